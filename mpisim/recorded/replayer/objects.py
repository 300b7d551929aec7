"""The recorded program's own objects, and the invalid handles it passed, replayed so that
a replay's correctness findings (:mod:`mpisim.mpi.findings`) judge what the run did.

A replay sends sizes, not data, yet the checks need what the program named: the datatypes
of its sends and receives (type signatures, MPI 4.1 §3.3.1), the op each rank gave a
reduction (§6.9.1), which derived types, requests and ops it made and freed (§5.1.9, §3.9,
§6.13), and the null handles it passed (§9.4). This module gives them back:

- **Datatypes.** A predefined type replays as mpisim's of that name (``MPI_INT``: INT;
  aliases such as ``MPI_2INT`` and ``MPI_LONG_LONG_INT`` included); one mpisim does not have
  as a basic type of its own name, so that it matches only itself, as a named type does.
  A derived type is rebuilt from its recorded signature (``sig=MPI_INT*4,...``: a contiguous
  or struct type of those basic types), so a vector of ints received as floats is a
  type-mismatch. One without a signature (a recording made before it was logged, or one
  too long for the recorder) has an *unknown* signature: it is never compared, never
  reported. ``MPI_Type_commit`` of a derived type hands the program an object that
  ``MPI_Type_free`` frees; one never freed is a ``leak-datatype``.
- **Ops.** A reduction's ``op`` by name (``SUM``...), a user op by the id ``MPI_Op_create``
  gave it (the replay's op is named ``u1``..., so two ranks' different user ops differ).
- **Null handles.** ``comm=-1`` (MPI_COMM_NULL), ``T=0`` (MPI_DATATYPE_NULL), ``op=NULL``
  (MPI_OP_NULL) raise the error class the standard names (MPI_ERR_COMM, MPI_ERR_TYPE,
  MPI_ERR_OP) in the call that passed them, as the library did: the run ends with that
  error and an ``invalid-argument`` finding, or, where the recording shows the program went
  on (MPI_ERRORS_RETURN), the finding is kept and the replay goes on (:func:`caught`).
- **Persistent collectives** (§6.13): ``MPI_Bcast_init``... make a request that each
  ``MPI_Start`` starts again as the nonblocking collective of the recorded arguments; one
  never freed is a ``leak-request``, one active at MPI_Finalize ``request-not-completed``.
- **MPI_Cancel** (§3.8.4): a receive not yet matched is cancelled (its wait returns at
  once); anything else completes as it would have, which the standard allows.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from ...collectives.ops import OPS, Op
from ...engine.sites import site_text
from ...handle.access import lifecycle_of, port_of, posted_receives
from ...mpi import datatypes as _dt
from ...mpi.errors import ErrComm, ErrOp, ErrType, MPIError
from ...mpi.findings import Call as FindingCall
from ...p2p.requests import EMPTY_STATUS_ARGS, Status
from ...runs.findings import ARGUMENT_CLASSES
from ..read.records import Call, TypeInfo

__all__ = ["NULL_COMM", "NULL_TYPE", "OBJECTS", "PersistentCollective", "caught", "make_type",
           "nonblocking_of", "null_comm", "null_type", "op_of"]

Gen = Generator[Any, Any, None]

NULL_COMM = -1
"""The recording's MPI_COMM_NULL (``comm=-1``)."""
NULL_TYPE = 0
"""The recording's MPI_DATATYPE_NULL (``T=0``; described types are numbered from 1)."""

_ALIASES = {"2INT": "TWOINT", "2REAL": "TWOREAL", "2DOUBLE_PRECISION": "TWODOUBLE_PRECISION",
            "2INTEGER": "TWOINTEGER", "LONG_LONG_INT": "LONG_LONG", "BOOL": "CXX_BOOL"}
"""MPI names of predefined types mpisim keeps under another name (MPI 4.1 §3.2.2, §6.9.4)."""

BY_NAME: dict[str, _dt.Datatype] = {f"MPI_{name}": dt for name, dt in _dt.BASIC_TYPES.items()}
BY_NAME.update({f"MPI_{alias}": _dt.BASIC_TYPES[name] for alias, name in _ALIASES.items()})
"""mpisim's predefined datatypes by the MPI names a recording gives them."""


class _UnknownSignature(_dt.Datatype):
    """A derived type whose basic types the recording does not give: its size only, never
    compared by the type-matching check (:func:`mpisim.mpi.signature.signature` is None)."""

    __slots__ = ()
    signature_unknown = True


def _named(name: str, size: int) -> _dt.Datatype:
    """A predefined type of the recording: mpisim's of that name, else a basic type of its
    own name (it matches only itself, §3.3.1) and the recorded size."""
    known = BY_NAME.get(name)
    if known is not None and known.size == size:
        return known
    return _dt.Datatype(name.removeprefix("MPI_"), size, None)


def make_type(info: TypeInfo) -> _dt.Datatype:
    """This replay's datatype of a recorded one (see the module): its size is the recorded
    size, its type signature the recorded one where the recording gives it."""
    if info.kind == "named" and info.name:
        return _named(info.name, info.size)
    built = _from_signature(info.sig) if info.sig else None
    if built is not None and built.size == info.size:
        return built.commit()
    opaque = _dt.BYTE.create_contiguous(info.size)
    opaque.__class__ = _UnknownSignature
    opaque.name = f"derived type of {info.size} B"
    return opaque.commit()


def _from_signature(sig: tuple[tuple[str, int], ...]) -> _dt.Datatype | None:
    """A type of these runs of basic types (one run: contiguous; several: a struct of
    consecutive blocks); None if a run's type has no known size."""
    types = []
    for name, _copies in sig:
        known = BY_NAME.get(name)
        if known is None:
            return None
        types.append(known)
    if len(sig) == 1:
        return types[0].create_contiguous(sig[0][1])
    disps, at = [], 0
    for (_name, copies), t in zip(sig, types, strict=True):
        disps.append(at)
        at += copies * t.size
    return _dt.Datatype.create_struct([c for _n, c in sig], disps, types)


class RecordedType:
    """A derived datatype the program committed: freed by its MPI_Type_free (the object a
    ``leak-datatype`` finding names when it never was)."""

    __slots__ = ("freed", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.freed = False


# -- invalid handles -----------------------------------------------------------------------
def _entered(r: Any, call: Call) -> None:
    """The replay is in ``call`` (the error it raises is this call's, at its place)."""
    port_of(r.mpi).enter(f"MPI_{call.name}")


def null_comm(r: Any, call: Call) -> MPIError:
    """MPI_COMM_NULL where a communicator is needed: MPI_ERR_COMM (§9.4)."""
    _entered(r, call)
    return ErrComm(f"MPI_{call.name}: MPI_COMM_NULL is not a valid communicator")


def null_type(r: Any, call: Call) -> MPIError:
    """MPI_DATATYPE_NULL where a datatype is needed: MPI_ERR_TYPE (§9.4)."""
    _entered(r, call)
    return ErrType(f"MPI_{call.name}: MPI_DATATYPE_NULL is not a valid datatype")


def op_of(r: Any, call: Call) -> Op:
    """The op a reduction was given (SUM in recordings made before ops were logged)."""
    name = call.args.get("op", "SUM")
    if name == "NULL":
        _entered(r, call)
        raise ErrOp(f"MPI_{call.name}: MPI_OP_NULL is not a valid operation")
    known = OPS.get(name)
    if known is not None:
        return known
    return r.user_ops.setdefault(name, _user_op(name, True))


def _user_op(name: str, commutes: bool) -> Op:
    """A user op of the recording: its name, no function (a replay has no data)."""
    return Op(name, lambda a, b: a, commutative=commutes)


def caught(r: Any, call: Call, error: MPIError) -> None:
    """A call that failed in the replay as it did in the recording (the program went on,
    MPI_ERRORS_RETURN): an invalid handle or argument is still a finding."""
    life = lifecycle_of(r.mpi)
    if life is None or error.error_class not in ARGUMENT_CLASSES:
        return
    where = site_text(port_of(r.mpi).where)
    life.findings.add("invalid-argument", f"{error.error_class}: {error.message}",
                      (FindingCall(r.mpi.rank, f"MPI_{call.name}", where),))


# -- the calls -----------------------------------------------------------------------------
def type_life(r: Any, call: Call) -> Gen:
    """MPI_Type_commit (a derived type handed to the program) and MPI_Type_free."""
    tid = call.args.get("T", NULL_TYPE)
    if tid == NULL_TYPE:
        raise null_type(r, call)
    info = r.log.types.get(tid)
    named = info is not None and info.kind == "named"
    if call.name == "Type_commit":
        if not named and tid not in r.type_objects:
            made = RecordedType(r.datatype(call, tid).name)
            r.type_objects[tid] = made
            port_of(r.mpi).made("datatype", made, "MPI_Type_commit")
        return
    if named:
        _entered(r, call)
        raise ErrType(f"MPI_Type_free: {info.name} is predefined and cannot be freed")
    made = r.type_objects.pop(tid, None)
    if made is not None:
        made.freed = True
    return
    yield


def op_life(r: Any, call: Call) -> Gen:
    """MPI_Op_create (a user op under the recording's id) and MPI_Op_free."""
    if call.name == "Op_create":
        name = call.out.get("op")
        if name is not None:
            r.user_ops[name] = _user_op(name, bool(call.args.get("commute", 1)))
        return
    name = call.args.get("op", "NULL")
    if name == "NULL" or name in OPS:
        _entered(r, call)
        raise ErrOp(f"MPI_Op_free: {'MPI_OP_NULL' if name == 'NULL' else name} cannot be "
                    "freed")
    r.user_ops.pop(name, None)
    return
    yield


def cancel(r: Any, call: Call) -> Gen:
    """MPI_Cancel: a receive still posted (not matched) is cancelled and completes at once;
    anything else completes as it would have (§3.8.4 allows either)."""
    mpi = r.mpi
    for rid in call.args.get("r", []):
        req = r.request(call, rid)
        posted = posted_receives(mpi)
        if req is not None and req.kind == "recv" and req in posted:
            posted.remove(req)
            status = Status(*EMPTY_STATUS_ARGS)
            status.cancelled = True
            req.status = status
            req.known(mpi.now)
    return
    yield


class PersistentCollective:
    """A persistent collective request (§6.13): the recorded ``*_init`` call, and the
    nonblocking collective its last MPI_Start began (``current``)."""

    __slots__ = ("call", "current", "freed", "name")

    def __init__(self, call: Call) -> None:
        self.call = call
        self.name = ""  # a finding names it by the call that made it
        self.current: Any = None
        self.freed = False

    @property
    def active(self) -> bool:
        """Started and not yet completed (by a wait or a successful test)."""
        return self.current is not None and bool(self.current.active)


def nonblocking_of(init: Call, rid: int) -> Call:
    """The nonblocking collective one MPI_Start of ``init`` makes (``Bcast_init``:
    ``Ibcast``), as a recorded call whose request is ``rid``."""
    base = init.name.removesuffix("_init")
    return replace(init, name=f"I{base[0].lower()}{base[1:]}", out={"r": rid}, args=dict(
        init.args))


def persistent_init(r: Any, call: Call) -> Gen:
    """MPI_Bcast_init...: the request, inactive until started."""
    rid = call.out.get("r")
    if rid is not None:
        r.comm(call)  # MPI_COMM_NULL is refused here, as the library does
        made = PersistentCollective(call)
        r.pcolls[rid] = made
        port_of(r.mpi).made("request", made, f"MPI_{call.name}")
    return
    yield


PERSISTENT_COLLECTIVES = tuple(f"{name}_init" for name in (
    "Barrier", "Bcast", "Reduce", "Allreduce", "Scan", "Exscan", "Reduce_scatter_block",
    "Reduce_scatter", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw"))
"""The persistent collectives the recorder logs (MPI 4.1 §6.13)."""

OBJECTS: dict[str, Any] = {
    "Type_commit": type_life, "Type_free": type_life, "Op_create": op_life,
    "Op_free": op_life, "Cancel": cancel, **dict.fromkeys(PERSISTENT_COLLECTIVES,
                                                          persistent_init)}
"""The recorded calls this module replays, by name (Start and Request_free of a persistent
collective: :mod:`.program`)."""
