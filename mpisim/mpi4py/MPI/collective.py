"""Collective methods of the stand-in's ``Comm`` (MPI 4.1 §6): each one call of the handle.

Lowercase forms move Python objects pickled, as mpi4py does: each rank's object travels as
its pickle's bytes (a uint8 array, so every item's size is its own) and every rank unpickles
its own copy. Reductions of Python objects apply the op to the values as mpi4py does
(``MPI.SUM`` is ``+``; any Python callable ``op(a, b)`` works); the message size is the
pickle's. mpi4py 4.1 has the lowercase forms barrier, bcast, reduce, allreduce, gather,
scatter, allgather, alltoall, scan and exscan (no nonblocking or v ones), as here.

Uppercase forms take buffer specs (:mod:`..msgbuffer.collective`): the handle reads and writes numpy
views of the script's buffers, so a receive buffer is filled in place; a 0-d array or a
numpy scalar is a buffer of one element. Every collective of §6 has its blocking and
nonblocking form (``Ialltoallw``...); a nonblocking one returns a Request whose Wait
completes it. ``MPI.IN_PLACE`` (the handle's ``IN_PLACE``) is accepted where MPI accepts
it, and so is ``None`` in its place, as mpi4py takes it. A ``root`` is converted as mpi4py
converts a C int (:func:`..datatypes.integers.c_int`), counts as it reads them (``operator.index``).
As mpi4py, a reduction checks that one process's send
and receive specs agree (``ValueError: mismatch in send count 3 and receive count 2``);
the other collectives leave that to MPI (a block larger than the receiver's is
MPI_ERR_TRUNCATE there).
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

import numpy as np

from ...collectives import ops as _ops
from ...mpi import datatypes as _dt
from ...mpi.constants import BOTTOM, IN_PLACE, PROC_NULL, ROOT
from ..datatypes.integers import c_int, c_ints, index, typed
from ..msgbuffer import bottom
from ..msgbuffer.collective import Simple, Vector, message, simple, vector, wvector
from .op import OPS, Op, python_op

if TYPE_CHECKING:  # for the annotations (the code imports it where it is used)
    from .request import Request

__all__ = ["IN_PLACE", "CollectiveMethods"]

_UINT8 = np.dtype(np.uint8)


def _pack(obj: Any) -> np.ndarray:
    return np.frombuffer(bytearray(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)), dtype=_UINT8)


def _unpack(arr: Any) -> Any:
    return None if arr is None else pickle.loads(np.asarray(arr, dtype=_UINT8).tobytes())


def _copy(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))


def _engine_op(op: Any) -> Any:
    """The handle's op of an mpi4py op; a non-commutative one (``MPI.REPLACE``,
    ``Op.Create(f, commute=False)``) combined in rank order (6.9.5). Anything but an
    MPI.Op is refused as mpi4py's typed argument is (``TypeError: Argument 'op' has
    incorrect type``)."""
    typed(op, Op, "op")
    engine = op._engine
    if engine is not None and not op.Is_commutative() and getattr(engine, "commutative", False):
        engine = _ops.Op(engine.name, engine.fn, engine.ufunc, commutative=False)
    return engine


def _request(event: Any) -> Request:
    from .request import Request

    return Request(event)


class CollectiveMethods:
    """Mixin of :class:`~.comm.Comm` (needs ``_p2p``, ``Get_rank``, ``Get_size``)."""

    def _p2p(self, call: str, blocking: bool, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def Get_rank(self) -> int:  # pragma: no cover
        raise NotImplementedError

    def Get_size(self) -> int:  # pragma: no cover
        raise NotImplementedError

    def Is_inter(self) -> bool:  # pragma: no cover
        raise NotImplementedError

    # -- the two groups of an intercommunicator (MPI 4.1 §6.2.2) ---------------------------
    def _blocks(self) -> int:
        """Blocks of a buffer with one per process: the other group's on an
        intercommunicator (its Get_remote_size), else this one's size."""
        return self.Get_remote_size() if self.Is_inter() else self.Get_size()  # type: ignore[attr-defined]

    def _is_root(self, root: int | None) -> bool:
        """Whether this process is a rooted call's root: over an intercommunicator the one
        passing MPI.ROOT."""
        if root is None:
            return False
        return root == ROOT if self.Is_inter() else self.Get_rank() == root

    def _bystander(self, root: int | None) -> bool:
        """MPI.PROC_NULL over an intercommunicator: the root's group, which takes no part."""
        return root == PROC_NULL and self.Is_inter()

    def _may_be_in_place(self, allowed: bool = True) -> bool:
        return allowed and not self.Is_inter()

    # -- barrier -------------------------------------------------------------------------
    def Barrier(self) -> None:
        self._p2p("barrier", True)

    def barrier(self) -> None:
        self._p2p("barrier", True)

    def Ibarrier(self) -> Request:
        return _request(self._p2p("ibarrier", True))

    # -- lowercase -----------------------------------------------------------------------
    def bcast(self, obj: Any = None, root: int = 0) -> Any:
        root = c_int(root)
        # an intercommunicator's root names itself MPI_ROOT (MPI 4.1 §6.2.2)
        mine = _pack(obj) if self._is_root(root) else None
        return _unpack(self._p2p("bcast", True, buf=mine, root=root))

    def reduce(self, sendobj: Any, op: Any = OPS["SUM"], root: int = 0) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        value = self._p2p("reduce", True, sendbuf=sendobj, count=size, op=python_op(op),
                          root=c_int(root))
        return None if value is None else _copy(value)

    def allreduce(self, sendobj: Any, op: Any = OPS["SUM"]) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        return _copy(self._p2p("allreduce", True, sendbuf=sendobj, count=size,
                               op=python_op(op)))

    def gather(self, sendobj: Any, root: int = 0) -> list[Any] | None:
        got = self._p2p("gather", True, sendbuf=_pack(sendobj), root=c_int(root))
        return None if got is None else [_unpack(x) for x in got]

    def allgather(self, sendobj: Any) -> list[Any]:
        return [_unpack(x) for x in self._p2p("allgather", True, sendbuf=_pack(sendobj))]

    def scatter(self, sendobj: Any = None, root: int = 0) -> Any:
        root = c_int(root)
        items = [_pack(x) for x in _one_per_process(sendobj, self._blocks())] \
            if self._is_root(root) else None
        return _unpack(self._p2p("scatter", True, sendbuf=items, root=root))

    def alltoall(self, sendobj: Any) -> list[Any]:
        items = [_pack(x) for x in _one_per_process(sendobj, self._blocks())]
        return [_unpack(x) for x in self._p2p("alltoall", True, sendbuf=items)]

    def scan(self, sendobj: Any, op: Any = OPS["SUM"]) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        return _copy(self._p2p("scan", True, sendbuf=sendobj, count=size, op=python_op(op)))

    def exscan(self, sendobj: Any, op: Any = OPS["SUM"]) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        value = self._p2p("exscan", True, sendbuf=sendobj, count=size, op=python_op(op))
        return None if value is None else _copy(value)

    # -- broadcast -----------------------------------------------------------------------
    def Bcast(self, buf: Any, root: int = 0) -> None:
        self._bcast("bcast", buf, root)

    def Ibcast(self, buf: Any, root: int = 0) -> Request:
        return _request(self._bcast("ibcast", buf, root))

    def _bcast(self, call: str, buf: Any, root: Any) -> Any:
        root = c_int(root)
        arr, count, datatype = message(buf, writable=True)
        if isinstance(arr, np.ndarray) and datatype is not None \
                and datatype.numpy_dtype is None:  # a derived datatype: its type map's data
            return self._p2p(call, True, buf=arr, count=index(count or 1),
                             datatype=datatype, root=root)
        spec = simple(buf, 1, writable=True)
        return self._p2p(call, True, buf=spec.buf, datatype=spec.datatype, root=root)

    # -- reductions ----------------------------------------------------------------------
    def Reduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"], root: int = 0) -> None:
        self._reduce("reduce", sendbuf, recvbuf, op, c_int(root))

    def Ireduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"],
                root: int = 0) -> Request:
        return _request(self._reduce("ireduce", sendbuf, recvbuf, op, c_int(root)))

    def Allreduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> None:
        self._reduce("allreduce", sendbuf, recvbuf, op)

    def Iallreduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> Request:
        return _request(self._reduce("iallreduce", sendbuf, recvbuf, op))

    def Scan(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> None:
        self._reduce("scan", sendbuf, recvbuf, op)

    def Iscan(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> Request:
        return _request(self._reduce("iscan", sendbuf, recvbuf, op))

    def Exscan(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> None:
        self._reduce("exscan", sendbuf, recvbuf, op)

    def Iexscan(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> Request:
        return _request(self._reduce("iexscan", sendbuf, recvbuf, op))

    def _reduce(self, call: str, sendbuf: Any, recvbuf: Any, op: Any,
                root: int | None = None) -> Any:
        """A reduction: the contribution and, where a result arrives (the root of a reduce,
        every process of the others), the receive buffer, of one count and datatype."""
        if self._bystander(root):
            return self._p2p(call, True, sendbuf=None, root=root, op=_engine_op(op))
        receives = root is None or self._is_root(root)
        recv = simple(recvbuf, 1, writable=True) if receives else None
        if root is not None and self.Is_inter() and receives:  # MPI.ROOT: receives only
            send, datatype = None, recv.datatype if recv else None
        elif _in_place(sendbuf, self._may_be_in_place(receives)):
            send, datatype = IN_PLACE, recv.datatype if recv else None
        else:
            spec = simple(sendbuf)
            if recv is not None:
                _agree(spec, recv)
            send, datatype = spec.buf, spec.datatype
        kwargs = {"root": root} if root is not None else {}
        return self._p2p(call, True, sendbuf=send, recvbuf=recv.buf if recv else None,
                         datatype=datatype, op=_engine_op(op), **kwargs)

    def Reduce_scatter_block(self, sendbuf: Any, recvbuf: Any,
                             op: Any = OPS["SUM"]) -> None:
        self._reduce_scatter_block("reduce_scatter_block", sendbuf, recvbuf, op)

    def Ireduce_scatter_block(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> Request:
        return _request(self._reduce_scatter_block("ireduce_scatter_block", sendbuf, recvbuf,
                                                   op))

    def _reduce_scatter_block(self, call: str, sendbuf: Any, recvbuf: Any, op: Any) -> Any:
        size = self.Get_size()
        if _in_place(sendbuf):
            recv = simple(recvbuf, size, writable=True)
            send: Any = IN_PLACE
        else:
            recv = simple(recvbuf, 1, writable=True)
            spec = simple(sendbuf, size)
            _agree(spec, recv)
            send = spec.buf
        return self._p2p(call, True, sendbuf=send, count=recv.count, datatype=recv.datatype,
                         op=_engine_op(op), recvbuf=recv.buf)

    def Reduce_scatter(self, sendbuf: Any, recvbuf: Any, recvcounts: Any = None,
                       op: Any = OPS["SUM"]) -> None:
        self._reduce_scatter("reduce_scatter", sendbuf, recvbuf, recvcounts, op)

    def Ireduce_scatter(self, sendbuf: Any, recvbuf: Any, recvcounts: Any = None,
                        op: Any = OPS["SUM"]) -> Request:
        return _request(self._reduce_scatter("ireduce_scatter", sendbuf, recvbuf, recvcounts,
                                             op))

    def _reduce_scatter(self, call: str, sendbuf: Any, recvbuf: Any, recvcounts: Any,
                        op: Any) -> Any:
        """Without ``recvcounts``, each process's count is its receive buffer's, gathered
        from every process (as mpi4py does, with an MPI_Allgather)."""
        if _in_place(sendbuf):  # the receive buffer holds every block
            if recvcounts is None:
                raise ValueError("message: MPI.IN_PLACE needs recvcounts")
            whole = simple(recvbuf, 1, writable=True)
            counts = _counts_of(recvcounts)
            if whole.buf is not None and whole.count < sum(counts):
                raise ValueError(f"mismatch in receive count {whole.count} and "
                                 f"sum(counts) {sum(counts)}")
            send: Any = IN_PLACE
            buf, datatype = whole.buf, whole.datatype
        else:
            mine = simple(recvbuf, 1, writable=True)
            counts = _counts_of(recvcounts) if recvcounts is not None else [
                int(c) for c in self._p2p("allgather", True, sendbuf=mine.count)]
            spec = simple(sendbuf)
            rank = self.Get_rank()
            if counts[rank] != mine.count:
                raise ValueError(f"mismatch in receive count {mine.count} and "
                                 f"counts[{rank}] {counts[rank]}")
            if spec.count != sum(counts):
                raise ValueError(f"mismatch in send count {spec.count} and "
                                 f"sum(counts) {sum(counts)}")
            if spec.datatype is not mine.datatype and spec.buf is not None:
                raise ValueError("mismatch in send and receive MPI datatypes")
            send, buf, datatype = spec.buf, mine.buf, spec.datatype
        return self._p2p(call, True, sendbuf=send, recvcounts=counts, datatype=datatype,
                         op=_engine_op(op), recvbuf=buf)

    # -- gathers -------------------------------------------------------------------------
    def Gather(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> None:
        self._gather("gather", sendbuf, recvbuf, c_int(root))

    def Igather(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> Request:
        return _request(self._gather("igather", sendbuf, recvbuf, c_int(root)))

    def Allgather(self, sendbuf: Any, recvbuf: Any) -> None:
        self._gather("allgather", sendbuf, recvbuf)

    def Iallgather(self, sendbuf: Any, recvbuf: Any) -> Request:
        return _request(self._gather("iallgather", sendbuf, recvbuf))

    def _gather(self, call: str, sendbuf: Any, recvbuf: Any, root: int | None = None) -> Any:
        if self._bystander(root):
            return self._p2p(call, True, sendbuf=None, root=root)
        receives = root is None or self._is_root(root)
        recv = simple(recvbuf, self._blocks(), writable=True) if receives else None
        if root is not None and self.Is_inter() and receives:  # MPI.ROOT: receives only
            send, count, datatype = None, None, recv.datatype if recv else None
        else:
            send, count, datatype = self._send_block(
                IN_PLACE if _in_place(sendbuf, self._may_be_in_place(receives)) else sendbuf,
                recv)
        kwargs = {"root": root} if root is not None else {}
        return self._p2p(call, True, sendbuf=send, count=count, datatype=datatype,
                         recvbuf=recv.buf if recv else None, **kwargs)

    def Gatherv(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> None:
        self._gatherv("gatherv", sendbuf, recvbuf, c_int(root))

    def Igatherv(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> Request:
        return _request(self._gatherv("igatherv", sendbuf, recvbuf, c_int(root)))

    def Allgatherv(self, sendbuf: Any, recvbuf: Any) -> None:
        self._gatherv("allgatherv", sendbuf, recvbuf)

    def Iallgatherv(self, sendbuf: Any, recvbuf: Any) -> Request:
        return _request(self._gatherv("iallgatherv", sendbuf, recvbuf))

    def _gatherv(self, call: str, sendbuf: Any, recvbuf: Any, root: int | None = None) -> Any:
        if self._bystander(root):
            return self._p2p(call, True, sendbuf=None, root=root)
        receives = root is None or self._is_root(root)
        recv = vector(recvbuf, self._blocks(), writable=True) if receives else None
        if root is not None and self.Is_inter() and receives:  # MPI.ROOT: receives only
            send, count, datatype = None, None, recv.datatype if recv else None
        elif _in_place(sendbuf, self._may_be_in_place(receives)):
            send, count, datatype = IN_PLACE, None, recv.datatype if recv else None
        else:
            spec = simple(sendbuf)
            send, count, datatype = spec.buf, spec.count, spec.datatype
        kwargs = {"root": root} if root is not None else {}
        return self._p2p(call, True, sendbuf=send, count=count, datatype=datatype,
                         recvbuf=recv.buf if recv else None,
                         recvcounts=recv.counts if recv else None,
                         displs=recv.displs if recv else None, **kwargs)

    def _send_block(self, sendbuf: Any, recv: Simple | None) -> tuple[Any, Any, Any]:
        """(send buffer or IN_PLACE, count, datatype) of a plain gather's contribution."""
        if sendbuf is IN_PLACE:
            return IN_PLACE, recv.count if recv else None, recv.datatype if recv else None
        spec = simple(sendbuf)
        return spec.buf, spec.count, spec.datatype

    # -- scatters ------------------------------------------------------------------------
    def Scatter(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> None:
        self._scatter("scatter", sendbuf, recvbuf, c_int(root))

    def Iscatter(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> Request:
        return _request(self._scatter("iscatter", sendbuf, recvbuf, c_int(root)))

    def _scatter(self, call: str, sendbuf: Any, recvbuf: Any, root: int) -> Any:
        if self._bystander(root):
            return self._p2p(call, True, sendbuf=None, root=root)
        at_root = self._is_root(root)
        if at_root and self.Is_inter():  # MPI.ROOT: sends only
            send = simple(sendbuf, self._blocks())
            return self._p2p(call, True, sendbuf=send.buf, count=send.count,
                             datatype=send.datatype, root=root)
        recv = None if _in_place(recvbuf, at_root) else simple(recvbuf, 1, writable=True)
        count: int | None
        datatype: _dt.Datatype | None
        if at_root:
            send = simple(sendbuf, self.Get_size())
            buf, count, datatype = send.buf, send.count, send.datatype
        else:
            buf, count, datatype = None, recv.count if recv else None, \
                recv.datatype if recv else None
        return self._p2p(call, True, sendbuf=buf, count=count, datatype=datatype, root=root,
                         recvbuf=IN_PLACE if recv is None else recv.buf)

    def Scatterv(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> None:
        self._scatterv("scatterv", sendbuf, recvbuf, c_int(root))

    def Iscatterv(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> Request:
        return _request(self._scatterv("iscatterv", sendbuf, recvbuf, c_int(root)))

    def _scatterv(self, call: str, sendbuf: Any, recvbuf: Any, root: int) -> Any:
        if self._bystander(root):
            return self._p2p(call, True, sendbuf=None, root=root)
        at_root = self._is_root(root)
        if at_root and self.Is_inter():  # MPI.ROOT: sends only
            sends = vector(sendbuf, self._blocks())
            return self._p2p(call, True, sendbuf=sends.buf, datatype=sends.datatype, root=root,
                             sendcounts=sends.counts, displs=sends.displs)
        recv = None if _in_place(recvbuf, at_root) else simple(recvbuf, 1, writable=True)
        send = vector(sendbuf, self.Get_size()) if at_root else None
        datatype = send.datatype if send else recv.datatype if recv else None
        return self._p2p(call, True, sendbuf=send.buf if send else None,
                         count=recv.count if recv else None, datatype=datatype, root=root,
                         recvbuf=IN_PLACE if recv is None else recv.buf,
                         sendcounts=send.counts if send else None,
                         displs=send.displs if send else None)

    # -- all-to-all ----------------------------------------------------------------------
    def Alltoall(self, sendbuf: Any, recvbuf: Any) -> None:
        self._alltoall("alltoall", sendbuf, recvbuf)

    def Ialltoall(self, sendbuf: Any, recvbuf: Any) -> Request:
        return _request(self._alltoall("ialltoall", sendbuf, recvbuf))

    def _alltoall(self, call: str, sendbuf: Any, recvbuf: Any) -> Any:
        recv = simple(recvbuf, self._blocks(), writable=True)
        send = IN_PLACE if _in_place(sendbuf, self._may_be_in_place()) \
            else simple(sendbuf, self._blocks())
        sent = send if isinstance(send, Simple) else recv
        return self._p2p(call, True, sendbuf=IN_PLACE if send is IN_PLACE else sent.buf,
                         count=sent.count, datatype=sent.datatype, recvbuf=recv.buf)

    def Alltoallv(self, sendbuf: Any, recvbuf: Any) -> None:
        self._alltoallv("alltoallv", sendbuf, recvbuf)

    def Ialltoallv(self, sendbuf: Any, recvbuf: Any) -> Request:
        return _request(self._alltoallv("ialltoallv", sendbuf, recvbuf))

    def _alltoallv(self, call: str, sendbuf: Any, recvbuf: Any) -> Any:
        size = self._blocks()
        recv = vector(recvbuf, size, writable=True)
        send = IN_PLACE if _in_place(sendbuf, self._may_be_in_place()) \
            else vector(sendbuf, size)
        sent = send if isinstance(send, Vector) else recv
        return self._p2p(call, True, sendbuf=IN_PLACE if send is IN_PLACE else sent.buf,
                         datatype=sent.datatype, recvbuf=recv.buf,
                         sendcounts=None if send is IN_PLACE else sent.counts,
                         sdispls=None if send is IN_PLACE else sent.displs,
                         recvcounts=recv.counts, rdispls=recv.displs)

    def Alltoallw(self, sendbuf: Any, recvbuf: Any) -> None:
        _, finish = self._alltoallw("alltoallw", sendbuf, recvbuf)
        finish()

    def Ialltoallw(self, sendbuf: Any, recvbuf: Any) -> Request:
        from .request import Request

        engine, finish = self._alltoallw("ialltoallw", sendbuf, recvbuf)
        return Request(engine, result=lambda _r: finish())

    def _alltoallw(self, call: str, sendbuf: Any, recvbuf: Any) -> tuple[Any, Any]:
        """The call's value and the step that completes it: with MPI.BOTTOM receive blocks,
        writing the received bytes through their addresses (:mod:`..msgbuffer.bottom`)."""
        size = self._blocks()
        recv = wvector(recvbuf, size, writable=True)
        finish: Any = bottom.nothing
        if recv.buf is BOTTOM:
            assert recv.counts is not None and recv.displs is not None  # (wvector: BOTTOM's)
            packed, finish = bottom.receiving(recv.counts, recv.displs, recv.datatype)
            recv = Vector(packed.buf, packed.counts, packed.displs, packed.types)
        kwargs: dict[str, Any] = {"sendbuf": IN_PLACE}
        if not _in_place(sendbuf, self._may_be_in_place()):
            send = wvector(sendbuf, size)
            if send.buf is BOTTOM:
                assert send.counts is not None and send.displs is not None  # (as above)
                sent = bottom.gathered(send.counts, send.displs, send.datatype)
                send = Vector(sent.buf, sent.counts, sent.displs, sent.types)
            kwargs = {"sendbuf": send.buf, "sendcounts": send.counts, "sdispls": send.displs,
                      "sendtypes": send.datatype}
        value = self._p2p(call, True, recvbuf=recv.buf, recvcounts=recv.counts,
                          rdispls=recv.displs, recvtypes=recv.datatype, **kwargs)
        return value, finish


def _one_per_process(objs: Any, size: int) -> list[Any]:
    """A lowercase scatter's or alltoall's objects as mpi4py takes them: None is a None for
    every process, any iterable is listed, and it must hold one per process."""
    items = [None] * size if objs is None else list(objs)
    if len(items) != size:
        raise ValueError(f"expecting {size} items, got {len(items)}")
    return items


def _in_place(buf: Any, allowed: bool = True) -> bool:
    """MPI.IN_PLACE, or None where in-place is allowed: mpi4py passes a None send buffer
    (a scatter root's None receive buffer) as MPI_IN_PLACE (observed with 4.1.2)."""
    return buf is IN_PLACE or (buf is None and allowed)


def _counts_of(counts: Any) -> list[int]:
    """Reduce_scatter's recvcounts: an integer array (``len`` first, then each item)."""
    return c_ints(counts.tolist() if isinstance(counts, np.ndarray) else counts)


def _agree(send: Simple, recv: Simple) -> None:
    """mpi4py's check of a reduction's send and receive specs: one count, one datatype."""
    if send.count != recv.count:
        raise ValueError(f"mismatch in send count {send.count} and receive count "
                         f"{recv.count}")
    if send.datatype is not recv.datatype and send.buf is not None and recv.buf is not None:
        raise ValueError("mismatch in send and receive MPI datatypes")
