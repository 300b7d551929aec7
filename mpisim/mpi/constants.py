"""MPI constants, spelled as in MPI without the ``MPI_`` prefix.

The integer values follow MPICH where MPI leaves them to the implementation; programs
should compare against the names, never the numbers.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ANY_SOURCE",
    "ANY_TAG",
    "BOTTOM",
    "BUFFER_AUTOMATIC",
    "COMM_TYPE_HW_GUIDED",
    "COMM_TYPE_HW_UNGUIDED",
    "COMM_TYPE_RESOURCE_GUIDED",
    "COMM_TYPE_SHARED",
    "COUNT_MAX",
    "INT_MAX",
    "IN_PLACE",
    "PROC_NULL",
    "ROOT",
    "TAG_UB",
    "THREAD_FUNNELED",
    "THREAD_LEVELS",
    "THREAD_MULTIPLE",
    "THREAD_SERIALIZED",
    "THREAD_SINGLE",
    "UNDEFINED",
    "automatic_or",
    "buffer_setting",
]

ANY_SOURCE = -2
"""Wildcard source for receives and probes (MPI_ANY_SOURCE)."""
ANY_TAG = -1
"""Wildcard tag for receives and probes (MPI_ANY_TAG)."""
PROC_NULL = -1
"""The null process: a send or receive with it completes at once and moves nothing."""
COMM_TYPE_SHARED, COMM_TYPE_HW_GUIDED, COMM_TYPE_HW_UNGUIDED, COMM_TYPE_RESOURCE_GUIDED = 1, 2, 3, 4
"""MPI_Comm_split_type's split types (MPI 4.1 §7.4.2; MPICH's values)."""
ROOT = -3
"""MPI_ROOT: the root of a collective over an intercommunicator, as the root names itself
(MPI 4.1 §6.2.2; the others of its group give PROC_NULL)."""
UNDEFINED = -32766
"""Returned where a value cannot be expressed (e.g. type_size of a type over INT_MAX bytes)."""
TAG_UB = 2**31 - 1
"""The largest tag value (MPI_TAG_UB attribute); MPI guarantees at least 32767."""
INT_MAX = 2**31 - 1
"""Largest C int: the bound of MPI's ``int`` counts and sizes (type_size)."""
COUNT_MAX = 2**63 - 1
"""Largest MPI_Count: the bound of the ``_c`` (large-count) calls, e.g. MPI_Buffer_attach_c."""
THREAD_SINGLE, THREAD_FUNNELED, THREAD_SERIALIZED, THREAD_MULTIPLE = 0, 1, 2, 3
"""The levels of thread support (MPI 4.1 §11.2.1), in increasing order: one thread; calls
from the main thread only; from any thread, one at a time; from any thread at any time."""
THREAD_LEVELS = {"single": THREAD_SINGLE, "funneled": THREAD_FUNNELED,
                 "serialized": THREAD_SERIALIZED, "multiple": THREAD_MULTIPLE}
"""The levels by name (``"multiple"`` for MPI_THREAD_MULTIPLE)."""


class _Bottom:
    """MPI_BOTTOM: the address zero; as ``buf`` it means the datatype holds absolute
    addresses (taken with ``get_address``)."""

    _instance: _Bottom | None = None

    def __new__(cls) -> _Bottom:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "BOTTOM"

    def __reduce__(self) -> str:
        return "BOTTOM"


BOTTOM = _Bottom()


class _InPlace:
    """MPI_IN_PLACE (6.9.1 and the sections of each collective that allow it): as a
    collective's send buffer (the receive buffer at a scatter's root), a process's own part
    is taken from, and its result left in, its receive buffer."""

    _instance: _InPlace | None = None

    def __new__(cls) -> _InPlace:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "IN_PLACE"

    def __reduce__(self) -> str:
        return "IN_PLACE"


IN_PLACE = _InPlace()


class _BufferAutomatic:
    """MPI_BUFFER_AUTOMATIC (MPI 4.1): attached in place of a buffer, MPI allocates buffer
    space as needed, so a bsend never overflows; detach hands it back."""

    _instance: _BufferAutomatic | None = None

    def __new__(cls) -> _BufferAutomatic:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "BUFFER_AUTOMATIC"

    def __reduce__(self) -> str:
        return "BUFFER_AUTOMATIC"


BUFFER_AUTOMATIC = _BufferAutomatic()
BufferAutomatic = _BufferAutomatic  # its type, for annotations


def buffer_setting(parse: Any, value: Any) -> tuple[Any, tuple[str, Any] | None]:
    """The run's ``buffer``: a size or AUTOMATIC for the process buffer, or a mapping
    ``{comm: NAME, size: SIZE}`` for the buffer of the communicator the program names NAME
    (MPI 4.1). Returns (process size or None, (NAME, size) or None)."""
    if isinstance(value, dict):
        unknown = set(value) - {"comm", "size"}
        if unknown or not isinstance(value.get("comm"), str) or "size" not in value:
            raise ValueError("expected a size, AUTOMATIC, or {comm: NAME, size: SIZE}, got "
                             f"{value!r}")
        return None, (value["comm"], automatic_or(parse, value["size"]))
    return automatic_or(parse, value), None


def automatic_or(parse: Any, value: Any) -> Any:
    """BUFFER_AUTOMATIC for itself or the words ``AUTOMATIC`` / ``BUFFER_AUTOMATIC`` (any
    case); else ``parse(value)`` (a buffer size)."""
    if value is BUFFER_AUTOMATIC or (isinstance(value, str) and value.strip().upper() in (
            "AUTOMATIC", "BUFFER_AUTOMATIC", "MPI_BUFFER_AUTOMATIC")):
        return BUFFER_AUTOMATIC
    return parse(value)
