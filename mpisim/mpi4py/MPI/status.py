"""``MPI.Status`` of the stand-in: what a receive, probe, wait or test reports.

As in mpi4py, a Status is filled in place by the calls given it (:func:`fill` copies the
engine's status into it). Its count is kept in bytes, as MPICH keeps it in the
``MPI_Status`` structure, so ``Get_count`` and ``Get_elements`` answer for any datatype
(MPI_UNDEFINED when the bytes are not a whole number of them, 3.2.5) and ``Set_elements``
sets it for a datatype (MPI 4.1 §13.3, for generalized requests). ``tomemory`` gives the
structure's five ints in MPICH's order (``count_lo``, ``count_hi_and_cancelled``,
``MPI_SOURCE``, ``MPI_TAG``, ``MPI_ERROR``); writing into it changes the status, as writing
into the C structure would. A Status pickles as mpi4py's does (source, tag, error, count,
cancelled) and two statuses are equal when all five agree.
"""

from __future__ import annotations

from typing import Any

from ...mpi.constants import ANY_SOURCE, ANY_TAG, UNDEFINED
from ..datatypes.datatype import DATATYPES, Datatype
from ..exceptions import CODES, Unsupporting, unsupported
from ..msgbuffer.p2p import c_int

__all__ = ["Status", "empty", "fill"]

_BYTE = DATATYPES["BYTE"]
_CANCELLED = 1 << 31
"""The bit of ``count_hi_and_cancelled`` that holds the cancelled flag (MPICH)."""


class Status(metaclass=Unsupporting):
    """mpi4py's MPI.Status (see the module)."""

    __slots__ = ("_bytes", "_cancelled", "_error", "_source", "_tag")

    def __init__(self, status: Status | None = None) -> None:
        if status is not None and not isinstance(status, Status):
            raise TypeError(f"Argument 'status' has incorrect type (expected "
                            f"mpi4py.MPI.Status, got {type(status).__name__})")
        if status is None:
            self._source, self._tag, self._error = ANY_SOURCE, ANY_TAG, 0
            self._bytes, self._cancelled = 0, False
        else:
            self._source, self._tag, self._error = status._source, status._tag, status._error
            self._bytes, self._cancelled = status._bytes, status._cancelled

    # -- fields ---------------------------------------------------------------------------
    def Get_source(self) -> int:
        return self._source

    def Set_source(self, source: int) -> None:
        self._source = c_int(source)

    def Get_tag(self) -> int:
        return self._tag

    def Set_tag(self, tag: int) -> None:
        self._tag = c_int(tag)

    def Get_error(self) -> int:
        return self._error

    def Set_error(self, error: int) -> None:
        self._error = c_int(error)

    source = property(Get_source, Set_source)
    tag = property(Get_tag, Set_tag)
    error = property(Get_error, Set_error)

    # -- counts ---------------------------------------------------------------------------
    def Get_count(self, datatype: Datatype = _BYTE) -> int:
        """Whole elements of ``datatype`` received (MPI_Get_count); MPI_UNDEFINED when the
        bytes are not a whole number of them."""
        size = _size(datatype)
        if size == 0:
            return 0 if self._bytes == 0 else UNDEFINED
        return self._bytes // size if self._bytes % size == 0 else UNDEFINED

    def Get_elements(self, datatype: Datatype) -> int:
        """Basic elements received (MPI_Get_elements): for a derived datatype, those of
        its whole elements and of the part of one that arrived."""
        size = _size(datatype)
        if size == 0:
            return 0
        whole, rest = divmod(self._bytes, size)
        sizes = _basic_sizes(datatype._t)
        elements = whole * len(sizes)
        for basic in sizes:
            if rest <= 0:
                break
            rest -= basic
            elements += 1
        return elements if rest == 0 else UNDEFINED

    def Set_elements(self, datatype: Datatype, count: int) -> None:
        """The status holds ``count`` elements of ``datatype`` (MPI_Status_set_elements)."""
        self._bytes = _size(datatype) * _count(count)

    @property
    def count(self) -> int:
        return self.Get_count(_BYTE)

    @count.setter
    def count(self, value: int) -> None:
        self.Set_elements(_BYTE, value)

    def Is_cancelled(self) -> bool:
        return self._cancelled

    def Set_cancelled(self, flag: bool) -> None:
        self._cancelled = bool(flag)

    cancelled = property(Is_cancelled, Set_cancelled)

    # -- memory, pickling, comparison -----------------------------------------------------
    def tomemory(self) -> _StatusMemory:
        """The status as MPICH's five ints (see the module); writes change the status."""
        return _StatusMemory(self)

    def __getstate__(self) -> dict[str, int]:
        return {"source": self._source, "tag": self._tag, "error": self._error,
                "count": self._bytes, "cancelled": self._cancelled}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._source, self._tag, self._error = state["source"], state["tag"], state["error"]
        self._bytes = state.get("count", 0)
        self._cancelled = bool(state.get("cancelled", False))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return self.__getstate__() == other.__getstate__()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<mpi4py.MPI.Status source={self._source} tag={self._tag} "
                f"error={self._error} count={self._bytes}>")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Status", name)


class _StatusMemory:
    """The five ints of an ``MPI_Status`` over a Status (see :meth:`Status.tomemory`)."""

    __slots__ = ("_status",)

    def __init__(self, status: Status) -> None:
        self._status = status

    def _values(self) -> list[int]:
        s = self._status
        hi = (s._bytes >> 31) & 0x7FFFFFFF | (_CANCELLED if s._cancelled else 0)
        lo = s._bytes & 0x7FFFFFFF
        return [lo, _signed(hi), s._source, s._tag, s._error]

    def __len__(self) -> int:
        return 5

    def __iter__(self) -> Any:
        return iter(self._values())

    def __getitem__(self, index: int) -> int:
        return self._values()[index]

    def __setitem__(self, index: int, value: int) -> None:
        s = self._status
        index = range(5)[index]
        value = c_int(value)
        if index == 2:
            s._source = value
        elif index == 3:
            s._tag = value
        elif index == 4:
            s._error = value
        elif index == 0:
            s._bytes = (s._bytes & ~0x7FFFFFFF) | (value & 0x7FFFFFFF)
        else:
            s._bytes = (s._bytes & 0x7FFFFFFF) | ((value & 0x7FFFFFFF) << 31)
            s._cancelled = bool(value & _CANCELLED)

    def tolist(self) -> list[int]:
        return self._values()


def _signed(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value


def _size(datatype: Any) -> int:
    if not isinstance(datatype, Datatype):
        raise TypeError(f"Argument 'datatype' has incorrect type (expected "
                        f"mpi4py.MPI.Datatype, got {type(datatype).__name__})")
    return datatype.Get_size()


def _count(count: Any) -> int:
    """An MPI_Count as mpi4py converts it (a C integer: a float is truncated)."""
    from ..datatypes.integers import c_aint

    return c_aint(count)


def _basic_sizes(t: Any, limit: int = 1 << 16) -> list[int]:
    """The sizes of the basic elements of one element of ``t``, in type-map order (a
    derived type's tree expanded; ``limit`` bounds the work for huge types)."""
    if not t._members:
        return [t.size] if t.size else []
    out: list[int] = []
    for old, _disps, counts in t._members:
        inner = _basic_sizes(old, limit)
        for n in counts.tolist():
            out.extend(inner * int(n))
            if len(out) > limit:
                return out
    return out


def fill(status: Status | None, st: Any) -> None:
    """Copy the engine's Status into the script's ``status`` (if it gave one)."""
    if status is None or st is None:
        return
    status._source, status._tag, status._bytes = st.source, st.tag, st.count
    status._error = CODES.get(st.error, 0) if st.error else 0
    status._cancelled = bool(st.cancelled)


def empty() -> Any:
    """The engine's empty status (MPI_ANY_SOURCE, MPI_ANY_TAG, count 0: 3.7.3)."""
    from ...p2p.requests import EMPTY_STATUS_ARGS
    from ...p2p.requests import Status as _EngineStatus

    return _EngineStatus(*EMPTY_STATUS_ARGS)
