"""One process's arguments of a collective call as its algorithm takes them (:class:`Args`).

One builder per family of calls (MPI 4.1 §6): broadcast, reductions (reduce, allreduce,
scan, exscan), gathers (gather, allgather and their v forms), scatters, all-to-alls (plain,
v and w forms) and reduce-scatters. Each reads the handle's arguments on one communicator:

- data: a numpy array travels as its bytes and arrives as a copy, seen as elements of the
  datatype when one is given (:func:`.elements.typed`); a list gives one item per process;
  any other Python object travels as ``count`` elements of ``datatype`` (0 bytes without a
  count), as in point-to-point calls;
- blocks: the v forms' counts and displacements say where each process's block lies in a
  numpy buffer (:mod:`.layout`);
- ``MPI_IN_PLACE`` (``ms.IN_PLACE``) where the standard allows it: as the send buffer of a
  gather's root, of every process of an allgather, all-to-all, allreduce, scan, exscan or
  reduce-scatter, of a reduce's root; as the receive buffer of a scatter's root. The
  process's own part is then read from its receive buffer (a size-only call gives its
  ``count`` instead), and its result written there. Elsewhere it is MPI_ERR_BUFFER;
- a receive buffer (numpy) gets the result in place, through ``Args.deliver``.

Integer arguments (root, counts, displacements) are Python or numpy integers; a bool, a
float or anything else is refused with the error class MPI gives (MPI_ERR_ROOT,
MPI_ERR_COUNT, MPI_ERR_ARG).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np

from ..mpi import datatypes as _dt
from ..mpi.constants import IN_PLACE, PROC_NULL, ROOT
from ..mpi.errors import ErrArg, ErrBuffer, ErrCount, ErrRoot
from ..mpi.signature import signature
from .algorithms import Args
from .elements import check_op, store, typed
from .layout import as_int, blocks, check_counts, place, vblocks
from .meeting import Signature
from .ops import as_op

__all__ = ["alltoall_args", "bcast_args", "check_root", "gather_args", "nbytes_of",
           "reduce_args", "reduce_local", "reduce_scatter_args", "reduction", "scatter_args"]


# -- pieces -------------------------------------------------------------------------------
def nbytes_of(buf: Any, count: Any, datatype: Any) -> int:
    """Bytes a value travels as: a numpy array's or numpy scalar's, else count x datatype
    size (0 if none)."""
    if isinstance(buf, np.ndarray | np.generic) and count is None:
        return int(buf.nbytes)
    if count is None:
        return 0
    n = as_int(count, "count", ErrCount)
    if n < 0:
        raise ErrCount(f"count must be a non-negative integer, got {count!r}")
    return n * _datatype(datatype).size


def _datatype(datatype: Any) -> Any:
    dt = _dt.BYTE if datatype is None else datatype
    if not isinstance(dt, _dt.Datatype):
        raise ErrArg(f"{datatype!r} is not a datatype")
    return dt


def check_root(root: Any, comm: Any) -> int:
    """The root, a rank of ``comm`` (MPI_ERR_ROOT otherwise)."""
    try:
        r = as_int(root, "root", ErrRoot)
    except ErrRoot:
        r = -1
    if getattr(comm, "is_inter", False):  # MPI 4.1 §6.2.2: ROOT, PROC_NULL or a remote rank
        if r in (ROOT, PROC_NULL) or 0 <= r < comm.peers:
            return r
        raise ErrRoot(f"root {root!r} is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
                      f"group of {comm.name} (size {comm.peers})")
    if not 0 <= r < comm.size:
        raise ErrRoot(f"root {root!r} is not a rank of {comm.name} (size {comm.size})")
    return r


def contribution(buf: Any, count: Any, datatype: Any) -> tuple[Any, int]:
    """A process's data and its bytes (a numpy buffer seen as the datatype's elements)."""
    return typed(buf, count, datatype), nbytes_of(buf, count, datatype)


def reduction(sendbuf: Any, count: Any, datatype: Any, op: Any) -> Args:
    """A reduction's contribution: ``sendbuf`` as elements of ``datatype`` (see
    :func:`.elements.typed`), its bytes, and the op, checked against them (6.9.2)."""
    value, nbytes = contribution(sendbuf, count, datatype)
    op = as_op(op)
    check_op(op, value, datatype)
    return Args(value=value, nbytes=nbytes, op=op)


def _storing(recvbuf: Any) -> Callable[[Any], Any] | None:
    """Deliver a result (an array or a numpy scalar) into a numpy ``recvbuf``."""
    if not isinstance(recvbuf, np.ndarray):
        return None

    def deliver(value: Any) -> Any:
        if isinstance(value, np.ndarray | np.generic):
            store(recvbuf, value)
        return value
    return deliver


def _unpacking(buf: np.ndarray, count: int, datatype: Any) -> Callable[[Any], Any]:
    """Deliver packed bytes into ``buf`` through a derived datatype."""
    def deliver(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            _dt.unpack(value, buf, count, datatype)
        return value
    return deliver


def _placing(recvbuf: Any, counts: list[int] | None, displs: Any, datatype: Any
             ) -> Callable[[Any], Any] | None:
    """Deliver a list of parts into their blocks of a numpy ``recvbuf``."""
    if not isinstance(recvbuf, np.ndarray):
        return None

    def deliver(parts: Any) -> Any:
        if isinstance(parts, list):
            place(recvbuf, parts, counts, displs, datatype)
        return parts
    return deliver


def _in_place(call: str, recvbuf: Any, count: Any, datatype: Any,
              block: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[Any, int]:
    """An MPI_IN_PLACE contribution: a copy of the receive buffer (or of ``block`` of it);
    without a numpy receive buffer, ``count`` elements of the datatype, size only."""
    if isinstance(recvbuf, np.ndarray):
        own = (recvbuf if block is None else block(recvbuf)).copy()
        return typed(own, None, datatype), int(own.nbytes)
    if count is None:
        raise ErrBuffer(f"{call}: MPI_IN_PLACE takes this process's data from its receive "
                        "buffer: give a numpy recvbuf (or a count)")
    return None, nbytes_of(None, count, datatype)


def _not_in_place(call: str, where: str) -> ErrBuffer:
    return ErrBuffer(f"{call}: MPI_IN_PLACE is allowed {where} only")


def _inter(comm: Any) -> bool:
    return bool(getattr(comm, "is_inter", False))


def _members(comm: Any) -> int:
    """How many blocks a buffer of one block per process holds: one per process of the
    other group on an intercommunicator (MPI 4.1 §6.2.2), else one per process."""
    return comm.peers if _inter(comm) else comm.size


def _is_root(comm: Any, r: int) -> bool:
    """This process is the root: on an intercommunicator, the one passing MPI_ROOT."""
    return r == ROOT if _inter(comm) else comm.rank == r


def _no_in_place_across(comm: Any, call: str, *bufs: Any) -> None:
    """MPI_IN_PLACE has no meaning over an intercommunicator (MPI 4.1 §6.2.2)."""
    if _inter(comm) and any(b is IN_PLACE for b in bufs):
        raise _not_in_place(call, "on an intracommunicator")


def _items(buf: Any, size: int, count: Any, datatype: Any, counts: list[int] | None,
           displs: Any, call: str, types: list[Any] | None = None) -> Args:
    """One item per process and its bytes: a numpy buffer cut in blocks (``counts`` and
    ``displs`` for the v forms, a datatype per block for the w form, whose displacements are
    in bytes), a list of ``size`` items, or with counts and no data, sizes only."""
    if isinstance(buf, np.ndarray):
        if types is not None:
            parts = [vblocks(buf, [counts[k]], [displs[k]], types[k], unit=1)[0]  # type: ignore[index]
                     for k in range(size)]
        elif counts is not None:
            parts = vblocks(buf, counts, displs, datatype)
        else:
            parts = blocks(buf, size, count, datatype)
        items = [p.copy() for p in parts]
        return Args(items=items, sizes=_sizes(items, counts, count, datatype, types))
    if isinstance(buf, list | tuple):
        if len(buf) != size:
            raise ErrArg(f"{call}: expected a list of {size} items (one per process), got "
                         f"{len(buf)}")
        items = list(buf)
        if counts is None:
            return Args(items=items, sizes=[nbytes_of(x, count, datatype) for x in items])
        return Args(items=items, sizes=_sizes(items, counts, count, datatype, types))
    if counts is not None or (count is not None and buf is None):
        return Args(items=[None] * size, sizes=_sizes([None] * size, counts, count, datatype,
                                                      types))
    raise ErrArg(f"{call}: expected a list of {size} items (one per process) or a numpy "
                 f"array, got {type(buf).__name__}")


def _sizes(items: list[Any], counts: list[int] | None, count: Any, datatype: Any,
           types: list[Any] | None) -> list[int]:
    """Each item's bytes: its counts of its datatype, else a numpy item's own."""
    if counts is not None:
        dts = types if types is not None else [datatype] * len(counts)
        return [c * _datatype(t).size if t is not None or not isinstance(x, np.ndarray)
                else int(x.nbytes) for c, t, x in zip(counts, dts, items, strict=True)]
    return [nbytes_of(x, count, datatype) if not isinstance(x, np.ndarray) or count is not None
            else int(x.nbytes) for x in items]


# -- what each member says to the others (meeting.py) ------------------------------------
def _type_of(value: Any, datatype: Any) -> tuple[str, str] | None:
    """The elements' type: as signatures compare it (§3.3.1: the sequence of basic types,
    whatever the displacements), and as a report names it (the datatype's name, else the
    numpy dtype). A basic type compares as its representation (a numpy dtype: MPI_SIGNED_CHAR
    and MPI_INT8_T are both int8, one type signature); a derived type of one basic type as
    that basic type (``contiguous(80, DOUBLE)`` is 80 doubles); any other by its signature's
    runs; one whose signature is unknown or too long is not compared (None)."""
    if isinstance(datatype, _dt.Datatype):
        hit = _type_keys.get(id(datatype))  # (a call per collective: str of a numpy dtype is slow)
        if hit is not None and hit[0] is datatype and hit[1] is datatype.name:
            return hit[2]
        types = _datatype_type(datatype)
        if len(_type_keys) > 10_000:
            _type_keys.clear()
        _type_keys[id(datatype)] = (datatype, datatype.name, types)
        return types
    if isinstance(value, np.ndarray | np.generic):
        return str(value.dtype), str(value.dtype)
    return None


_type_keys: dict[int, tuple[Any, str, tuple[str, str] | None]] = {}
"""id(datatype) -> (datatype, its name then, :func:`_type_of` its elements), as
:func:`~mpisim.mpi.signature.signature` keeps its runs (a renamed type is read again)."""


def _datatype_type(datatype: Any) -> tuple[str, str] | None:
    runs = signature(datatype)
    if runs is None:
        return None
    basic = _dt.BASIC_TYPES.get(runs[0][0]) if len(runs) == 1 else None
    if basic is not None or datatype._predefined:
        of = basic if basic is not None else datatype
        key = str(of.numpy_dtype) if of.numpy_dtype is not None else of.name
    else:
        key = "+".join(f"{name}*{k}" for name, k in runs)
    return key, datatype.name


def _sign(a: Args, sends: Any, expects: Any, types: tuple[str, str] | None,
          root: int | None = None, op: Any = None, shown: str = "") -> Args:
    """Give ``a`` its Signature: the bytes it sends to and expects from the members, its
    elements' type (``types``: what is compared, what a report shows)."""
    name = getattr(op, "name", None)
    key, named = types if types is not None else (None, None)
    shape = (root, name, shown, a.nbytes, named)
    args = _args_shown.get(shape)  # (the same few texts, call after call)
    if args is None:
        parts = ([f"root={root}"] if root is not None else []) + ([name] if name else []) + \
            ([shown] if shown else [f"{a.nbytes} B" + (f" of {named}" if named else "")])
        args = ", ".join(parts)
        if len(_args_shown) > 10_000:
            _args_shown.clear()
        _args_shown[shape] = args
    a.sig = Signature(root=root, op=name, sends=sends, expects=expects, types=key, args=args)
    return a


_args_shown: dict[tuple[Any, ...], str] = {}
"""A call's arguments as a report shows them, by what they are made of."""


def _width(datatype: Any, *buffers: Any) -> int:
    """Bytes of one element a count counts: the datatype's size, else a numpy buffer's item
    size (a count of a numpy array's elements), else 1."""
    if isinstance(datatype, _dt.Datatype):
        return datatype.size
    for buf in buffers:
        if isinstance(buf, np.ndarray | np.generic):
            return int(buf.dtype.itemsize)
    return 1


def _block_bytes(recvbuf: Any, size: int, own: int) -> int:
    """What a plain form's receiver expects from each member: a block of its numpy receive
    buffer (cut in ``size`` equal blocks), else as much as it sends itself."""
    if isinstance(recvbuf, np.ndarray) and size:
        return int(recvbuf.nbytes) // size
    return own


def _per_rank(sizes: list[int] | None) -> dict[int, int]:
    return dict(enumerate(sizes)) if sizes is not None else {}


# -- the families -------------------------------------------------------------------------
def _derived(buf: Any, count: Any, datatype: Any) -> bool:
    """A numpy buffer read through a derived datatype (no numpy dtype of its own): its
    data is the packed bytes the type map selects (4.1.5)."""
    return isinstance(buf, np.ndarray) and count is not None \
        and isinstance(datatype, _dt.Datatype) and datatype.numpy_dtype is None


def bcast_args(comm: Any, buf: Any, count: Any, datatype: Any, root: Any) -> Args:
    """MPI_Bcast: the root's buffer; a numpy buffer elsewhere receives it (through a derived
    datatype: the elements its type map selects, packed and unpacked)."""
    r = check_root(root, comm)
    if _derived(buf, count, datatype):
        n = as_int(count, "count", ErrCount)
        value = _dt.pack(buf, n, datatype) if comm.rank == r else None
        a = Args(value, n * datatype.size, r)
        a.deliver = _unpacking(buf, n, datatype)
    else:
        a = Args(buf, nbytes_of(buf, count, datatype), r)
        a.deliver = _storing(buf)
    at_root = comm.rank == a.root
    sized = count is not None or isinstance(buf, np.ndarray | np.generic)  # else: any size
    return _sign(a, a.nbytes if at_root else {},
                 {a.root: a.nbytes} if sized and not at_root else {},
                 _type_of(buf, datatype), a.root)


def reduce_args(comm: Any, call: str, sendbuf: Any, recvbuf: Any, count: Any, datatype: Any,
                op: Any, root: Any) -> Args:
    """MPI_Reduce (``root`` given), Allreduce, Scan, Exscan: the contribution (IN_PLACE: the
    receive buffer's, at a reduce's root or anywhere for the others, 6.9.1 to 6.11)."""
    r = check_root(root, comm) if root is not None else 0
    _no_in_place_across(comm, call, sendbuf)
    if sendbuf is IN_PLACE:
        if root is not None and comm.rank != r:
            raise _not_in_place(call, "at the root")
        sendbuf, nbytes = _in_place(call, recvbuf, count, datatype)
        a = reduction(sendbuf, None, datatype, op)
        a.nbytes = nbytes
    else:
        a = reduction(sendbuf, count, datatype, op)
    a.root = r
    a.deliver = _storing(recvbuf)
    types = _type_of(a.value, datatype)
    if root is None:  # allreduce, scan, exscan: every member's contribution meets every one
        return _sign(a, a.nbytes, a.nbytes, types, None, a.op)
    at_root = comm.rank == r
    return _sign(a, {} if at_root else {r: a.nbytes}, a.nbytes if at_root else {}, types, r,
                 a.op)


def gather_args(comm: Any, call: str, sendbuf: Any, count: Any, datatype: Any, root: Any,
                recvbuf: Any = None, recvcounts: Any = None, displs: Any = None) -> Args:
    """MPI_Gather(v) (``root`` given), Allgather(v): the contribution (IN_PLACE at the root,
    or anywhere for the allgathers: this process's block of the receive buffer, 6.5, 6.7);
    a numpy receive buffer gets every block (at ``displs`` in the v forms). Over an
    intercommunicator the blocks are the other group's, one per remote process; the root
    (MPI_ROOT) and the rest of its group (MPI_PROC_NULL) send nothing (6.2.2)."""
    rooted = root is not None
    r = check_root(root, comm) if rooted else 0
    _no_in_place_across(comm, call, sendbuf)
    n = _members(comm)
    receives = not rooted or _is_root(comm, r)
    counts = check_counts(recvcounts, n, f"{call}: recvcounts") \
        if receives and recvcounts is not None else None
    if rooted and _inter(comm) and r in (ROOT, PROC_NULL):
        value, nbytes = None, 0  # the root's group sends nothing
    elif sendbuf is IN_PLACE:
        if not receives:
            raise _not_in_place(call, "at the root")
        own = comm.rank
        block = (lambda b: vblocks(b, counts, displs, datatype)[own]) if counts is not None \
            else (lambda b: blocks(b, n, count, datatype)[own])
        value, nbytes = _in_place(call, recvbuf, counts[own] if counts else count, datatype,
                                  block)
    else:
        value, nbytes = contribution(sendbuf, count, datatype)
    a = Args(value, nbytes, r)
    if receives:
        a.deliver = _placing(recvbuf, counts, displs, datatype)
        if counts is not None and displs is not None and _gapless(datatype):
            a.overlap = overlapping(counts, displs)
    types = _type_of(value, datatype)
    sends = {r: nbytes} if rooted else nbytes
    if not receives:
        expects: Any = {}
    elif counts is not None:  # the v forms' receive counts
        width = _width(datatype, recvbuf, value)
        expects = {k: c * width for k, c in enumerate(counts)}
    else:
        expects = _block_bytes(recvbuf, n, nbytes) if kind_is_plain(call) else {}
    return _sign(a, sends, expects, types, r if rooted else None)


def scatter_args(comm: Any, call: str, sendbuf: Any, count: Any, datatype: Any, root: Any,
                 recvbuf: Any = None, sendcounts: Any = None, displs: Any = None) -> Args:
    """MPI_Scatter(v): at the root, one item per process (a numpy buffer cut in blocks, at
    ``displs`` in the v form, or a list); elsewhere what it receives. IN_PLACE is the root's
    receive buffer only (6.6): the root's block stays where it is. Over an
    intercommunicator the root (MPI_ROOT) has one item per process of the other group,
    which receives them; the rest of the root's group (MPI_PROC_NULL) takes no part."""
    r = check_root(root, comm)
    _no_in_place_across(comm, call, recvbuf)
    at_root = _is_root(comm, r)
    if recvbuf is IN_PLACE and not at_root:
        raise _not_in_place(call, "as the root's receive buffer")
    if at_root:
        n = _members(comm)
        counts = check_counts(sendcounts, n, f"{call}: sendcounts") \
            if sendcounts is not None else None
        a = _items(sendbuf, n, count, datatype, counts, displs, call)
        expects: Any = {}
        sends: Any = _per_rank(a.sizes)
        types = _type_of(a.items[0] if a.items else None, datatype)
    elif _inter(comm) and r == PROC_NULL:
        a, sends, expects, types = Args(), {}, {}, None
    else:
        a = Args(nbytes=nbytes_of(None, count, datatype))
        sends, expects = {}, ({r: a.nbytes} if count is not None or recvbuf is not None
                              else {})
        types = _type_of(recvbuf, datatype)
    a.root = r
    if recvbuf is not IN_PLACE and not (_inter(comm) and at_root):
        a.deliver = _placing_one(recvbuf)
    if isinstance(recvbuf, np.ndarray) and not at_root:
        expects = {r: int(recvbuf.nbytes) if count is None else a.nbytes}
    return _sign(a, sends, expects, types, r)


def _placing_one(recvbuf: Any) -> Callable[[Any], Any] | None:
    place_it = _placing(recvbuf, None, None, None)
    if place_it is None:
        return None
    return lambda value: (place_it([value]), value)[1]


def alltoall_args(comm: Any, call: str, sendbuf: Any, count: Any, datatype: Any,
                  recvbuf: Any = None, sendcounts: Any = None, sdispls: Any = None,
                  recvcounts: Any = None, rdispls: Any = None, sendtypes: Any = None,
                  recvtypes: Any = None, w: bool = False) -> Args:
    """MPI_Alltoall, Alltoallv (counts and displacements in elements), Alltoallw (and a
    datatype per process, displacements in bytes): item k of the send buffer goes to
    process k. IN_PLACE (6.8): the items are read from the receive buffer, by the receive
    counts, displacements and types, and replaced there. Over an intercommunicator item k
    goes to process k of the other group, and the items received are the other group's
    (6.2.2)."""
    _no_in_place_across(comm, call, sendbuf)
    size = _members(comm)
    rcounts = check_counts(recvcounts, size, f"{call}: recvcounts") \
        if recvcounts is not None else None
    rtypes = _types(recvtypes, size, call, "recvtypes") if w and recvtypes is not None \
        else None
    if sendbuf is IN_PLACE:
        if not isinstance(recvbuf, np.ndarray) and rcounts is None and count is None:
            raise ErrBuffer(f"{call}: MPI_IN_PLACE takes the data from the receive buffer: "
                            "give a numpy recvbuf (or counts)")
        source, counts, displs, types = recvbuf, rcounts, rdispls, rtypes
        source = source.copy() if isinstance(source, np.ndarray) else None
    else:
        counts = check_counts(sendcounts, size, f"{call}: sendcounts") \
            if sendcounts is not None else None
        source, displs = sendbuf, sdispls
        types = _types(sendtypes, size, call, "sendtypes") if w else None
        if w and counts is None:
            raise ErrCount(f"{call}: sendcounts are needed with sendtypes")
    if w and counts is not None and displs is None:
        displs = _byte_displs(counts, types)
    a = _items(source, size, count, datatype, counts, displs, call, types)
    if isinstance(recvbuf, np.ndarray):
        a.deliver = _placing_w(recvbuf, rcounts, rdispls, rtypes) if rtypes else \
            _placing(recvbuf, rcounts, rdispls, datatype)
    if rcounts is not None and rdispls is not None:
        if rtypes is None and _gapless(datatype):
            a.overlap = overlapping(rcounts, rdispls)
        elif rtypes is not None and all(_gapless(t) for t in rtypes):  # bytes, by each type
            a.overlap = overlapping([c * _datatype(t).size for c, t in zip(rcounts, rtypes,
                                                                            strict=True)],
                                    rdispls)
    if rcounts is not None:  # the receive counts say what this rank expects
        widths = [_datatype(t).size for t in rtypes] if rtypes else \
            [_width(datatype, recvbuf, sendbuf)] * size
        expects: Any = {k: c * w for k, (c, w) in enumerate(zip(rcounts, widths, strict=True))}
    elif kind_is_plain(call) and a.sizes and not _inter(comm):  # equal blocks: its receive
        expects = _block_bytes(recvbuf, size, a.sizes[comm.rank])  # buffer's, else its own
    else:
        expects = {}
    return _sign(a, _per_rank(a.sizes), expects,
                 None if w else _type_of(a.items[0] if a.items else None, datatype),
                 shown=f"{sum(a.sizes or [])} B in all")


def overlapping(counts: list[int], displs: Any) -> tuple[int, int] | None:
    """The first two blocks (their ranks, lower first) of a v or w form's receive buffer that
    share a location, or None. MPI 4.1 §6.5: "The specification of counts, types, and
    displacements should not cause any location on the root to be written more than once.
    Such a call is erroneous" (and §6.7, §6.8 for the all- forms). Blocks in units of one
    element (or byte, for the w forms); empty blocks write nothing."""
    spans = sorted((int(d), int(d) + c, k)
                   for k, (c, d) in enumerate(zip(counts, displs, strict=False)) if c > 0)
    for (_, end, j), (start, _, k) in pairwise(spans):
        if start < end:  # sorted by start: an overlap shows between neighbours
            return (min(j, k), max(j, k))
    return None


def _gapless(datatype: Any) -> bool:
    """A datatype whose elements fill their extent (a basic type, a contiguous one): its
    blocks can be compared as intervals without their type maps (None: a Python object's
    own, unchecked)."""
    if datatype is None:
        return False
    t = _datatype(datatype)
    return t.size == t.extent and getattr(t, "lb", 0) == 0


def _types(types: Any, size: int, call: str, what: str) -> list[Any]:
    if not isinstance(types, list | tuple) or len(types) != size:
        raise ErrArg(f"{call}: {what}: expected {size} datatypes (one per process), got "
                     f"{types!r}")
    for t in types:
        _datatype(t)
    return list(types)


def _byte_displs(counts: list[int], types: list[Any] | None) -> list[int]:
    out, at = [], 0
    for c, t in zip(counts, types or [None] * len(counts), strict=True):
        out.append(at)
        at += c * _datatype(t).extent
    return out


def _placing_w(recvbuf: np.ndarray, counts: list[int] | None, displs: Any,
               types: list[Any] | None) -> Callable[[Any], Any]:
    """Deliver Alltoallw's parts: part k into ``counts[k]`` elements of ``types[k]`` at byte
    displacement ``displs[k]``."""
    def deliver(parts: Any) -> Any:
        if not isinstance(parts, list) or counts is None or types is None:
            place(recvbuf, parts)
            return parts
        where = displs if displs is not None else _byte_displs(counts, types)
        for k, part in enumerate(parts):
            place(recvbuf, [part], [counts[k]], [where[k]], types[k], unit=1)
        return parts
    return deliver


def reduce_scatter_args(comm: Any, call: str, sendbuf: Any, recvbuf: Any, count: Any,
                        recvcounts: Any, datatype: Any, op: Any) -> Args:
    """MPI_Reduce_scatter_block (``count`` elements per process) and Reduce_scatter
    (``recvcounts``): the send buffer's blocks, one per process, to reduce; process k gets
    the reduction of block k (6.10). IN_PLACE: the blocks are read from the receive buffer,
    and the result written at its start. Over an intercommunicator each group's blocks are
    the reduction of the other group's vectors, scattered by its own counts (6.10.1)."""
    _no_in_place_across(comm, call, sendbuf)
    size = comm.size
    counts = check_counts(recvcounts, size, f"{call}: recvcounts") \
        if recvcounts is not None else None
    if counts is None and count is not None:
        counts = [as_int(count, "count", ErrCount)] * size
        if counts[0] < 0:
            raise ErrCount(f"count must be a non-negative integer, got {count!r}")
    source = sendbuf
    if sendbuf is IN_PLACE:
        if not isinstance(recvbuf, np.ndarray) and counts is None:
            raise ErrBuffer(f"{call}: MPI_IN_PLACE takes the data from the receive buffer: "
                            "give a numpy recvbuf (or counts)")
        source = recvbuf.copy() if isinstance(recvbuf, np.ndarray) else None
    a = _items(source, size, None, datatype, counts, None, call)
    op = as_op(op)
    if a.items:
        check_op(op, a.items[0], datatype)
    a.op = op
    a.deliver = _storing_start(recvbuf)
    sizes = a.sizes or []
    mine = sizes[comm.rank] if sizes else 0
    return _sign(a, _per_rank(sizes), mine, _type_of(a.items[0] if a.items else None,
                                                      datatype), None, op,
                 f"{op.name}, {sum(sizes)} B in all")


def reduce_local(inbuf: Any, inoutbuf: Any, count: Any, datatype: Any, op: Any) -> Any:
    """MPI_Reduce_local (6.9.7): ``inoutbuf`` becomes ``inbuf`` op ``inoutbuf``, elementwise,
    in place (numpy buffers of ``count`` elements of ``datatype``, else all of them)."""
    if not isinstance(inoutbuf, np.ndarray):
        raise ErrBuffer(f"MPI_Reduce_local: inoutbuf must be a numpy array, got "
                        f"{type(inoutbuf).__name__}")
    a = reduction(inbuf, count, datatype, op)
    target = typed(inoutbuf, count, datatype)
    result = a.op(a.value, target)
    store(target if isinstance(target, np.ndarray) else inoutbuf, result)
    return inoutbuf


def kind_is_plain(call: str) -> bool:
    """A plain form (not v or w): every block has the size of this rank's own."""
    return not call.endswith(("v", "w"))


def _storing_start(recvbuf: Any) -> Callable[[Any], Any] | None:
    """Deliver a reduce-scatter's block at the start of the receive buffer."""
    if not isinstance(recvbuf, np.ndarray):
        return None

    def deliver(value: Any) -> Any:
        if isinstance(value, np.ndarray | np.generic):
            place(recvbuf, [value])
        return value
    return deliver
