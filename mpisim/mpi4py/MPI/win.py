"""``MPI.Win`` of the stand-in (MPI 4.1 §12): mpi4py's window object over the handle's
one-sided calls (:mod:`mpisim.handle.rma`).

As in mpi4py: ``MPI.Win()`` is a null window equal to MPI.WIN_NULL; ``Win.Create(memory,
disp_unit, info, comm)`` takes any writable buffer (a bytearray, ``MPI.Alloc_mem``'s
memory, a numpy array, an array.array) and the window *is* that memory, so a put lands in
the script's own buffer; ``Win.Allocate``, ``Win.Allocate_shared`` and
``Win.Create_dynamic`` make the others, and ``tomemory()`` (or ``Shared_query``) gives the
memory as an ``MPI.buffer`` the script reads and writes. ``Free`` turns the object into a
null window. Operations take mpi4py's buffer specs for the origin (``buf``, ``[buf,
datatype]``, ``[buf, count, datatype]``...) and its target spec: None (displacement 0, the
origin's count and datatype), a displacement, or ``[disp, count, datatype]``; a window
cannot be pickled (ValueError).

Blocking calls (the synchronizations, creation and free) suspend the rank in simulated
time; errors are raised as MPI.Exception (MPI_ERR_RMA_SYNC...), or end the run under
MPI_ERRORS_ARE_FATAL set with ``Set_errhandler``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ...mpi.constants import BOTTOM, PROC_NULL
from ...mpi.errors import MPIError
from ...rma import accumulate as _acc
from ...rma import constants as _c
from ...rma.window import Window as _Window
from ..bridge import current
from ..datatypes.datatype import Datatype
from ..datatypes.integers import c_aint, c_int, typed
from ..datatypes.objattrs import LocalAttributeMethods, delete_local_attributes
from ..datatypes.typecodes import lookup
from ..exceptions import Exception as MPIException
from ..exceptions import Unsupporting, as_exception
from ..msgbuffer.membuffer import buffer
from ..msgbuffer.p2p import p2p, raw
from .errhandler import ErrhandlerMethods
from .group import Group
from .held import Held
from .info import Info, handle_info
from .op import OPS, Op
from .request import Request

__all__ = ["NAMES", "WIN_NULL", "Win"]

REPLACE = Op("REPLACE", _acc.REPLACE, lambda x, y: y)
NO_OP = Op("NO_OP", _acc.NO_OP, lambda x, y: x)


def _local(call: str, *args: Any) -> Any:
    """A local call of the handle; its MPI error raised as MPI.Exception."""
    try:
        return getattr(current().plain(), call)(*args)
    except MPIError as e:
        raise as_exception(e) from None


class _NoMemory(buffer):
    """The memory of a window without any (MPI_Win_create over MPI.BOTTOM, a dynamic
    window): no bytes, at address 0 (MPI_BOTTOM), as MPI.Get_address reports it."""

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return {"data": (0, False), "shape": (0,), "typestr": "|u1", "version": 3}


def _memory(array: np.ndarray) -> buffer:
    """A window's bytes as the ``MPI.buffer`` a script reads (shared, not a copy)."""
    if array.size == 0:
        return np.zeros(0, dtype=np.uint8).view(_NoMemory)
    return array.view(buffer)


class Win(Held, ErrhandlerMethods, LocalAttributeMethods, metaclass=Unsupporting):
    """mpi4py's MPI.Win (see the module)."""

    _NULL = "WIN_NULL"
    _held = property(lambda self: self._w)

    _w: _Window | None = None   # the handle's Window (None: MPI_WIN_NULL)
    _ATTR_KIND = "win"

    def __init__(self, win: Win | None = None) -> None:
        if win is None:
            return
        if not isinstance(win, Win):
            raise TypeError(f"expecting a window, got {type(win).__name__}")
        self._w = win._w

    @classmethod
    def _of(cls, w: _Window | None) -> Win:
        made = cls.__new__(cls)
        made._w = w
        return made

    def _win(self) -> _Window:
        if self._w is None:
            raise MPIException("invalid window (MPI_WIN_NULL)", None, "MPI_ERR_WIN")
        return self._w

    def _attr_handle(self) -> Any:
        """The handle its attributes are on (MPI_ERR_WIN for MPI_WIN_NULL)."""
        return self._win()

    def _key(self) -> Any:
        """This window in the rank's table of error handlers."""
        return ("win", self._win().info.number)

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """A blocking call of the handle on this window (the rank waits in simulated
        time)."""
        ctx = current()
        w = self._win()
        return ctx.call(lambda: getattr(ctx.mpi, method)(*args, win=w, **kwargs), self._key())

    def __repr__(self) -> str:
        if self._w is None:
            return "<mpi4py.MPI.Win WIN_NULL>"
        return f"<mpi4py.MPI.Win {self._w.name}>"

    def free(self) -> None:
        """Free if not null."""
        if self:
            self.Free()

    # -- creation (§12.2) ------------------------------------------------------------------
    @classmethod
    def _made(cls, method: str, comm: Any, *args: Any) -> Win:
        ctx = current()
        mpi = ctx.mpi
        handle = comm._c(mpi) if comm is not None else mpi.comm_self
        w = ctx.call(lambda: getattr(mpi, method)(*args, comm=handle))
        return cls._of(w)

    @classmethod
    def Create(cls, memory: Any, disp_unit: int = 1, info: Any = None,
               comm: Any = None) -> Win:
        """MPI_Win_create over ``memory`` (None or MPI.BOTTOM: no memory)."""
        base = None
        if memory is not None and memory is not BOTTOM:
            base = raw(memory, False)[0]
        return cls._made("win_create", comm, base, None, c_int(disp_unit), handle_info(info))

    @classmethod
    def Allocate(cls, size: int, disp_unit: int = 1, info: Any = None,
                 comm: Any = None) -> Win:
        """MPI_Win_allocate: ``size`` bytes MPI allocates (``tomemory()`` gives them)."""
        return cls._made("win_allocate", comm, c_aint(size), c_int(disp_unit),
                         handle_info(info))

    @classmethod
    def Allocate_shared(cls, size: int, disp_unit: int = 1, info: Any = None,
                        comm: Any = None) -> Win:
        """MPI_Win_allocate_shared (``Shared_query`` gives any member's part)."""
        return cls._made("win_allocate_shared", comm, c_aint(size), c_int(disp_unit),
                         handle_info(info))

    @classmethod
    def Create_dynamic(cls, info: Any = None, comm: Any = None) -> Win:
        """MPI_Win_create_dynamic: memory comes with ``Attach``."""
        return cls._made("win_create_dynamic", comm, handle_info(info))

    def Shared_query(self, rank: int) -> tuple[buffer, int]:
        """MPI_Win_shared_query: (the memory of ``rank``'s part, its disp_unit)."""
        memory, unit = _local("win_shared_query", self._win(), c_int(rank))
        return _memory(memory), unit

    def Attach(self, memory: Any) -> None:
        """MPI_Win_attach: ``memory`` becomes accessible (a dynamic window)."""
        _local("win_attach", self._win(), raw(memory, False)[0])

    def Detach(self, memory: Any) -> None:
        """MPI_Win_detach."""
        _local("win_detach", self._win(), raw(memory, False)[0])

    def Free(self) -> None:
        """MPI_Win_free (collective); the object becomes MPI.WIN_NULL."""
        ctx = current()
        w = self._win()
        delete_local_attributes(self)  # §7.7.3: the attributes are deleted first
        ctx.call(lambda: ctx.mpi.win_free(w), self._key())
        self._w = None

    # -- what the window is (§12.2.6, §12.2.7) -----------------------------------------------
    def Get_attr(self, keyval: int) -> Any:
        """MPI_Win_get_attr: a predefined key's value (WIN_BASE...), else the attribute
        the script set (None when it set none)."""
        if c_int(keyval) in _c.ATTRIBUTES.values():
            return _local("win_get_attr", self._win(), keyval)
        return LocalAttributeMethods.Get_attr(self, keyval)

    @property
    def attrs(self) -> tuple[int, int, int]:
        """(base address, size, disp_unit)."""
        w = self._win()
        return (_local("win_get_attr", w, _c.WIN_BASE), _local("win_get_attr", w, _c.WIN_SIZE),
                _local("win_get_attr", w, _c.WIN_DISP_UNIT))

    @property
    def flavor(self) -> int:
        return _local("win_get_attr", self._win(), _c.WIN_CREATE_FLAVOR)

    @property
    def model(self) -> int:
        return _local("win_get_attr", self._win(), _c.WIN_MODEL)

    def tomemory(self) -> buffer:
        """This process's window memory, as an ``MPI.buffer`` (shared)."""
        return _memory(self._win().memory)

    def Get_group(self) -> Group:
        return Group._of(_local("win_get_group", self._win()))

    group = property(Get_group)

    @property
    def group_size(self) -> int:
        return self._win().size

    @property
    def group_rank(self) -> int:
        return self._win().rank

    def Get_info(self) -> Info:
        return Info._of(_local("win_get_info", self._win()))

    def Set_info(self, info: Any) -> None:
        _local("win_set_info", self._win(), handle_info(info))

    info = property(Get_info, Set_info)

    def Get_name(self) -> str:
        if self._w is None:
            return "MPI_WIN_NULL"
        return _local("win_get_name", self._w)

    def Set_name(self, name: str) -> None:
        _local("win_set_name", self._win(), str(name))

    name = property(Get_name, Set_name)

    # -- operations (§12.3) ----------------------------------------------------------------
    def _op(self, method: str, origin: Any, target_rank: Any, target: Any,
            readonly: bool, **more: Any) -> Any:
        rank = c_int(target_rank)
        buf, count, datatype = p2p(origin, rank, readonly)
        disp, tcount, tdt = _target(target, count, datatype)
        return self._call(method, buf, count, datatype, rank, disp, tcount, tdt, **more)

    def Put(self, origin: Any, target_rank: int, target: Any = None) -> None:
        """MPI_Put."""
        self._op("put", origin, target_rank, target, True)

    def Get(self, origin: Any, target_rank: int, target: Any = None) -> None:
        """MPI_Get (the data are in ``origin`` once the epoch is complete)."""
        self._op("get", origin, target_rank, target, False)

    def Accumulate(self, origin: Any, target_rank: int, target: Any = None,
                   op: Any = OPS["SUM"]) -> None:
        """MPI_Accumulate."""
        self._op("accumulate", origin, target_rank, target, True, op=_engine_op(op))

    def Get_accumulate(self, origin: Any, result: Any, target_rank: int, target: Any = None,
                       op: Any = OPS["SUM"]) -> None:
        """MPI_Get_accumulate."""
        self._fetching("get_accumulate", origin, result, target_rank, target, op)

    def Rput(self, origin: Any, target_rank: int, target: Any = None) -> Request:
        """MPI_Rput."""
        return Request(self._op("rput", origin, target_rank, target, True))

    def Rget(self, origin: Any, target_rank: int, target: Any = None) -> Request:
        """MPI_Rget."""
        return Request(self._op("rget", origin, target_rank, target, False))

    def Raccumulate(self, origin: Any, target_rank: int, target: Any = None,
                    op: Any = OPS["SUM"]) -> Request:
        """MPI_Raccumulate."""
        return Request(self._op("raccumulate", origin, target_rank, target, True,
                                op=_engine_op(op)))

    def Rget_accumulate(self, origin: Any, result: Any, target_rank: int, target: Any = None,
                        op: Any = OPS["SUM"]) -> Request:
        """MPI_Rget_accumulate."""
        return Request(self._fetching("rget_accumulate", origin, result, target_rank,
                                      target, op))

    def _fetching(self, method: str, origin: Any, result: Any, target_rank: Any, target: Any,
                  op: Any) -> Any:
        rank = c_int(target_rank)
        buf, count, datatype = p2p(origin, rank, True)
        rbuf, rcount, rdt = p2p(result, rank, False)
        disp, tcount, tdt = _target(target, count, datatype)
        return self._call(method, buf, count, datatype, rbuf, rcount, rdt, rank, disp, tcount,
                          tdt, op=_engine_op(op))

    def Fetch_and_op(self, origin: Any, result: Any, target_rank: int, target_disp: int = 0,
                     op: Any = OPS["SUM"]) -> None:
        """MPI_Fetch_and_op: one element (mpi4py's ValueError otherwise)."""
        rank = c_int(target_rank)
        buf, count, datatype = p2p(origin, rank, True)
        rbuf, rcount, rdt = p2p(result, rank, False)
        if rank != PROC_NULL:
            _one(count, "origin")
            _one(rcount, "result")
            if datatype is not rdt:
                raise ValueError("mismatch in origin and result MPI datatypes")
        self._call("fetch_and_op", buf, rbuf, datatype, rank, int(target_disp),
                   op=_engine_op(op))

    def Compare_and_swap(self, origin: Any, compare: Any, result: Any, target_rank: int,
                         target_disp: int = 0) -> None:
        """MPI_Compare_and_swap: one element each (mpi4py's ValueError otherwise)."""
        rank = c_int(target_rank)
        buf, count, datatype = p2p(origin, rank, True)
        cbuf, ccount, cdt = p2p(compare, rank, True)
        rbuf, rcount, rdt = p2p(result, rank, False)
        if rank != PROC_NULL:
            _one(count, "origin")
            _one(ccount, "compare")
            _one(rcount, "result")
            if datatype is not cdt:
                raise ValueError("mismatch in origin and compare MPI datatypes")
            if datatype is not rdt:
                raise ValueError("mismatch in origin and result MPI datatypes")
        self._call("compare_and_swap", buf, cbuf, rbuf, datatype, rank, int(target_disp))

    # -- synchronization (§12.5) -----------------------------------------------------------
    def Fence(self, assertion: int = 0) -> None:
        self._call("win_fence", c_int(assertion))

    def Start(self, group: Group, assertion: int = 0) -> None:
        self._call("win_start", _group(group), c_int(assertion))

    def Complete(self) -> None:
        self._call("win_complete")

    def Post(self, group: Group, assertion: int = 0) -> None:
        self._call("win_post", _group(group), c_int(assertion))

    def Wait(self) -> bool:
        self._call("win_wait")
        return True

    def Test(self) -> bool:
        return bool(self._call("win_test"))

    def Lock(self, rank: int, lock_type: int = _c.LOCK_EXCLUSIVE, assertion: int = 0) -> None:
        self._call("win_lock", c_int(rank), c_int(lock_type), c_int(assertion))

    def Unlock(self, rank: int) -> None:
        self._call("win_unlock", c_int(rank))

    def Lock_all(self, assertion: int = 0) -> None:
        self._call("win_lock_all", c_int(assertion))

    def Unlock_all(self) -> None:
        self._call("win_unlock_all")

    def Flush(self, rank: int) -> None:
        self._call("win_flush", c_int(rank))

    def Flush_all(self) -> None:
        self._call("win_flush_all")

    def Flush_local(self, rank: int) -> None:
        self._call("win_flush_local", c_int(rank))

    def Flush_local_all(self) -> None:
        self._call("win_flush_local_all")

    def Sync(self) -> None:
        self._call("win_sync")


def _target(target: Any, count: int, datatype: Any) -> tuple[int, int, Any]:
    """(displacement, count, datatype) of mpi4py's target spec (``_p_msg_rma.for_rma``)."""
    if target is None:
        return 0, count, datatype
    if isinstance(target, int | np.integer):  # a bool too (mpi4py 4.1.2: an integral)
        return int(target), count, datatype
    if isinstance(target, list | tuple):
        if len(target) > 3:
            raise ValueError("target: expecting 3 items at most")
        disp = int(_index(target[0])) if len(target) >= 1 else 0
        tcount = int(_index(target[1])) if len(target) >= 2 else count
        tdt = _datatype(target[2]) if len(target) >= 3 else datatype
        return disp, tcount, tdt
    raise ValueError("target: expecting integral or list/tuple")


def _index(value: Any) -> int:
    return operator.index(value)


def _datatype(dt: Any) -> Any:
    if isinstance(dt, Datatype):
        return dt._type()
    if isinstance(dt, str):
        return lookup(dt)._type()
    raise TypeError(f"expecting a datatype, got {type(dt).__name__}")


def _one(count: int, what: str) -> None:
    if count != 1:
        raise ValueError(f"{what}: expecting a single element, got {count}")


def _engine_op(op: Any) -> Any:
    """The handle's op for an mpi4py op (MPI.SUM, MPI.REPLACE...): anything else is the
    TypeError of mpi4py's typed argument, MPI.OP_NULL MPI_ERR_OP (as MPICH 5.0.2)."""
    engine = typed(op, Op, "op")._engine
    if engine is None:
        raise MPIException("MPI.OP_NULL is not an operation", None, "MPI_ERR_OP")
    return engine


def _group(group: Any) -> Any:
    if not isinstance(group, Group):
        raise TypeError(f"expecting a group, got {type(group).__name__}")
    return group._g()


WIN_NULL = Win()

NAMES: dict[str, Any] = {
    "Win": Win, "WIN_NULL": WIN_NULL, "REPLACE": REPLACE, "NO_OP": NO_OP,
    "WIN_FLAVOR_CREATE": _c.WIN_FLAVOR_CREATE, "WIN_FLAVOR_ALLOCATE": _c.WIN_FLAVOR_ALLOCATE,
    "WIN_FLAVOR_DYNAMIC": _c.WIN_FLAVOR_DYNAMIC, "WIN_FLAVOR_SHARED": _c.WIN_FLAVOR_SHARED,
    "WIN_SEPARATE": _c.WIN_SEPARATE, "WIN_UNIFIED": _c.WIN_UNIFIED,
    "MODE_NOCHECK": _c.MODE_NOCHECK, "MODE_NOSTORE": _c.MODE_NOSTORE,
    "MODE_NOPUT": _c.MODE_NOPUT, "MODE_NOPRECEDE": _c.MODE_NOPRECEDE,
    "MODE_NOSUCCEED": _c.MODE_NOSUCCEED, "LOCK_EXCLUSIVE": _c.LOCK_EXCLUSIVE,
    "LOCK_SHARED": _c.LOCK_SHARED, **_c.ATTRIBUTES,
}
"""What the stand-in's ``MPI`` namespace gets from this module (:mod:`..run.module`)."""
