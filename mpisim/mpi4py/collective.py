"""Collective methods of the stand-in's ``Comm``: Barrier and the engine's collectives.

Lowercase forms move Python objects pickled, as mpi4py does: each rank's object travels as
its pickle's bytes (a uint8 array, so every item's size is its own) and every rank unpickles
its own copy. Reductions of Python objects apply the op to the values as mpi4py does
(``MPI.SUM`` is ``+``; any Python callable ``op(a, b)`` works); the message size is the
pickle's. Uppercase forms take buffer specs and fill the receive buffer in place;
``MPI.IN_PLACE`` is accepted where MPI accepts it.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from .bridge import current
from .datatype import OPS, Op, message, python_op

__all__ = ["IN_PLACE", "Collectives"]

_UINT8 = np.dtype(np.uint8)


class _InPlace:
    def __repr__(self) -> str:
        return "MPI.IN_PLACE"


IN_PLACE = _InPlace()


def _pack(obj: Any) -> np.ndarray:
    return np.frombuffer(bytearray(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)), dtype=_UINT8)


def _unpack(arr: Any) -> Any:
    return None if arr is None else pickle.loads(np.asarray(arr, dtype=_UINT8).tobytes())


def _copy(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))


def _engine_op(op: Any) -> Any:
    return op._engine if isinstance(op, Op) else op


class Collectives:
    """Mixin of :class:`~.comm.Comm` (needs ``_p2p``)."""

    def _p2p(self, call: str, blocking: bool, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def Barrier(self) -> None:
        self._p2p("barrier", True)

    def barrier(self) -> None:
        self._p2p("barrier", True)

    # -- lowercase ---------------------------------------------------------------------
    def bcast(self, obj: Any = None, root: int = 0) -> Any:
        mine = _pack(obj) if current().mpi.rank == self._world_rank(root) else None
        return _unpack(self._p2p("bcast", True, buf=mine, root=root))

    def reduce(self, sendobj: Any, op: Any = OPS["SUM"], root: int = 0) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        value = self._p2p("reduce", True, sendbuf=sendobj, count=size, op=python_op(op),
                          root=root)
        return None if value is None else _copy(value)

    def allreduce(self, sendobj: Any, op: Any = OPS["SUM"]) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        return _copy(self._p2p("allreduce", True, sendbuf=sendobj, count=size,
                               op=python_op(op)))

    def gather(self, sendobj: Any, root: int = 0) -> list[Any] | None:
        got = self._p2p("gather", True, sendbuf=_pack(sendobj), root=root)
        return None if got is None else [_unpack(x) for x in got]

    def allgather(self, sendobj: Any) -> list[Any]:
        return [_unpack(x) for x in self._p2p("allgather", True, sendbuf=_pack(sendobj))]

    def scatter(self, sendobj: Any = None, root: int = 0) -> Any:
        items = None
        if current().mpi.rank == self._world_rank(root):
            items = [_pack(x) for x in sendobj]
        return _unpack(self._p2p("scatter", True, sendbuf=items, root=root))

    def alltoall(self, sendobj: Any) -> list[Any]:
        return [_unpack(x) for x in self._p2p("alltoall", True,
                                              sendbuf=[_pack(x) for x in sendobj])]

    def scan(self, sendobj: Any, op: Any = OPS["SUM"]) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        return _copy(self._p2p("scan", True, sendbuf=sendobj, count=size, op=python_op(op)))

    def exscan(self, sendobj: Any, op: Any = OPS["SUM"]) -> Any:
        size = len(pickle.dumps(sendobj, pickle.HIGHEST_PROTOCOL))
        value = self._p2p("exscan", True, sendbuf=sendobj, count=size, op=python_op(op))
        return None if value is None else _copy(value)

    def _world_rank(self, root: int) -> int:
        mpi = current().mpi
        comm = self._c(mpi)  # type: ignore[attr-defined]
        if comm is None:
            return root
        try:
            return comm.world(root)
        except (IndexError, TypeError):
            return -1  # a bad root: the handle's call reports it

    # -- uppercase ---------------------------------------------------------------------
    def Bcast(self, buf: Any, root: int = 0) -> None:
        arr, count, dt = message(buf, writable=True)
        self._p2p("bcast", True, buf=arr, count=count, datatype=dt, root=root)

    def Reduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"], root: int = 0) -> None:
        send, recv = _in_place(sendbuf, recvbuf)
        self._p2p("reduce", True, sendbuf=send, recvbuf=recv, op=_engine_op(op), root=root)

    def Allreduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> None:
        send, recv = _in_place(sendbuf, recvbuf)
        self._p2p("allreduce", True, sendbuf=send, recvbuf=recv, op=_engine_op(op))

    def Gather(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> None:
        send, _ = _in_place(sendbuf, None)
        parts = self._p2p("gather", True, sendbuf=send, root=root)
        if parts is not None:
            _into(recvbuf, parts)

    def Allgather(self, sendbuf: Any, recvbuf: Any) -> None:
        send, _ = _in_place(sendbuf, None)
        _into(recvbuf, self._p2p("allgather", True, sendbuf=send))

    def Scatter(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> None:
        send = None
        if current().mpi.rank == self._world_rank(root) and sendbuf is not None:
            send = np.ascontiguousarray(message(sendbuf)[0]).reshape(-1).view(_UINT8)
        part = self._p2p("scatter", True, sendbuf=send, root=root)
        if recvbuf is not IN_PLACE:
            _into(recvbuf, [part])

    def Alltoall(self, sendbuf: Any, recvbuf: Any) -> None:
        send = np.ascontiguousarray(message(sendbuf)[0]).reshape(-1).view(_UINT8)
        _into(recvbuf, self._p2p("alltoall", True, sendbuf=send))


    def Scan(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> None:
        send, recv = _in_place(sendbuf, recvbuf)
        self._p2p("scan", True, sendbuf=send, recvbuf=recv, op=_engine_op(op))

    def Exscan(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> None:
        send, recv = _in_place(sendbuf, recvbuf)
        self._p2p("exscan", True, sendbuf=send, recvbuf=recv, op=_engine_op(op))

    def Reduce_scatter_block(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> None:
        send, _ = _in_place(sendbuf, recvbuf)
        _into(recvbuf, [self._p2p("reduce_scatter_block", True, sendbuf=send,
                                  op=_engine_op(op))])

    # -- nonblocking (a Request; Wait completes it, the receive buffer is then filled) ------
    def Ibarrier(self) -> Any:
        from .request import Request

        return Request(self._p2p("ibarrier", True))

    def Ibcast(self, buf: Any, root: int = 0) -> Any:
        from .request import Request

        arr, count, dt = message(buf, writable=True)
        return Request(self._p2p("ibcast", True, buf=arr, count=count, datatype=dt,
                                 root=root))

    def Ireduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"], root: int = 0) -> Any:
        from .request import Request

        send, recv = _in_place(sendbuf, recvbuf)
        return Request(self._p2p("ireduce", True, sendbuf=send, recvbuf=recv,
                                 op=_engine_op(op), root=root))

    def Iallreduce(self, sendbuf: Any, recvbuf: Any, op: Any = OPS["SUM"]) -> Any:
        from .request import Request

        send, recv = _in_place(sendbuf, recvbuf)
        return Request(self._p2p("iallreduce", True, sendbuf=send, recvbuf=recv,
                                 op=_engine_op(op)))


def _in_place(sendbuf: Any, recvbuf: Any) -> tuple[Any, Any]:
    recv = None if recvbuf is None else message(recvbuf, writable=True)[0]
    if sendbuf is IN_PLACE:
        return recv.copy(), recv
    return message(sendbuf)[0], recv


def _into(recvbuf: Any, parts: list[Any]) -> None:
    """Copy the parts, in order, into the receive buffer's bytes."""
    if recvbuf is None or recvbuf is IN_PLACE:
        return
    raw = b"".join(np.ascontiguousarray(p).tobytes() for p in parts)
    view = message(recvbuf, writable=True)[0].reshape(-1).view(_UINT8)
    view[:len(raw)] = np.frombuffer(raw, dtype=_UINT8)
