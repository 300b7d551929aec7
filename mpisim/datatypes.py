"""MPI datatypes: basic types with their sizes and numpy dtypes (derived types: see below).

Sizes are those of a 64-bit Linux ABI (LP64), as MPICH and Open MPI report them there.
"""

from __future__ import annotations

import numpy as np

from .errors import ErrCount, ErrType

__all__ = ["Datatype", "datatype_of", "pack_size", "BASIC_TYPES"]


class Datatype:
    """An MPI datatype: a type map with size, extent and lower bound.

    Basic types are committed from the start; derived types must be committed before they
    are used in communication, as in MPI.
    """

    __slots__ = ("name", "size", "lb", "extent", "true_lb", "true_extent", "numpy_dtype",
                 "committed", "_is_basic")

    def __init__(self, name: str, size: int, numpy_dtype: np.dtype | None) -> None:
        self.name = name
        self.size = size
        self.lb = 0
        self.extent = size
        self.true_lb = 0
        self.true_extent = size
        self.numpy_dtype = numpy_dtype
        self.committed = True
        self._is_basic = True

    def commit(self) -> Datatype:
        """Commit the type for use in communication (MPI_Type_commit); returns it."""
        self.committed = True
        return self

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str | tuple:
        return self.name if self._is_basic else object.__reduce__(self)


def _basic(name: str, size: int, dtype: str | None) -> Datatype:
    return Datatype(name, size, np.dtype(dtype) if dtype else None)


BYTE = _basic("BYTE", 1, "u1")
CHAR = _basic("CHAR", 1, "S1")
SHORT = _basic("SHORT", 2, "i2")
INT = _basic("INT", 4, "i4")
LONG = _basic("LONG", 8, "i8")
LONG_LONG = _basic("LONG_LONG", 8, "i8")
UNSIGNED_CHAR = _basic("UNSIGNED_CHAR", 1, "u1")
UNSIGNED_SHORT = _basic("UNSIGNED_SHORT", 2, "u2")
UNSIGNED = _basic("UNSIGNED", 4, "u4")
UNSIGNED_LONG = _basic("UNSIGNED_LONG", 8, "u8")
FLOAT = _basic("FLOAT", 4, "f4")
DOUBLE = _basic("DOUBLE", 8, "f8")
LONG_DOUBLE = _basic("LONG_DOUBLE", 16, "longdouble" if np.dtype("longdouble").itemsize == 16 else None)
C_BOOL = _basic("C_BOOL", 1, "?")
INT8_T = _basic("INT8_T", 1, "i1")
INT16_T = _basic("INT16_T", 2, "i2")
INT32_T = _basic("INT32_T", 4, "i4")
INT64_T = _basic("INT64_T", 8, "i8")
UINT8_T = _basic("UINT8_T", 1, "u1")
UINT16_T = _basic("UINT16_T", 2, "u2")
UINT32_T = _basic("UINT32_T", 4, "u4")
UINT64_T = _basic("UINT64_T", 8, "u8")
C_FLOAT_COMPLEX = _basic("C_FLOAT_COMPLEX", 8, "c8")
C_DOUBLE_COMPLEX = _basic("C_DOUBLE_COMPLEX", 16, "c16")
INTEGER = _basic("INTEGER", 4, "i4")
REAL = _basic("REAL", 4, "f4")
DOUBLE_PRECISION = _basic("DOUBLE_PRECISION", 8, "f8")
COMPLEX = _basic("COMPLEX", 8, "c8")
DOUBLE_COMPLEX = _basic("DOUBLE_COMPLEX", 16, "c16")
LOGICAL = _basic("LOGICAL", 4, "i4")
CHARACTER = _basic("CHARACTER", 1, "S1")
PACKED = _basic("PACKED", 1, "u1")
AINT = _basic("AINT", 8, "i8")
OFFSET = _basic("OFFSET", 8, "i8")
COUNT = _basic("COUNT", 8, "i8")

BASIC_TYPES: dict[str, Datatype] = {
    t.name: t for t in (
        BYTE, CHAR, SHORT, INT, LONG, LONG_LONG, UNSIGNED_CHAR, UNSIGNED_SHORT, UNSIGNED,
        UNSIGNED_LONG, FLOAT, DOUBLE, LONG_DOUBLE, C_BOOL, INT8_T, INT16_T, INT32_T, INT64_T,
        UINT8_T, UINT16_T, UINT32_T, UINT64_T, C_FLOAT_COMPLEX, C_DOUBLE_COMPLEX, INTEGER, REAL,
        DOUBLE_PRECISION, COMPLEX, DOUBLE_COMPLEX, LOGICAL, CHARACTER, PACKED, AINT, OFFSET,
        COUNT,
    )
}
__all__ += list(BASIC_TYPES)

# numpy dtype -> the C datatype a C program would use for it (first match wins).
_FROM_NUMPY: dict[np.dtype, Datatype] = {}
for _t in (BYTE, SHORT, INT, LONG, UNSIGNED_SHORT, UNSIGNED, UNSIGNED_LONG, FLOAT, DOUBLE,
           LONG_DOUBLE, C_BOOL, INT8_T, C_FLOAT_COMPLEX, C_DOUBLE_COMPLEX, CHAR):
    if _t.numpy_dtype is not None:
        _FROM_NUMPY.setdefault(_t.numpy_dtype, _t)


def datatype_of(dtype: np.dtype | type | str) -> Datatype:
    """The MPI datatype for a numpy dtype (``np.float64`` -> DOUBLE)."""
    dt = np.dtype(dtype)
    key = dt.newbyteorder("=") if dt.byteorder not in ("=", "|") else dt
    try:
        return _FROM_NUMPY[key]
    except KeyError:
        raise ErrType(f"no MPI datatype for numpy dtype {dt}") from None


def pack_size(count: int, datatype: Datatype) -> int:
    """Upper bound in bytes of ``count`` elements packed (MPI_Pack_size).

    mpisim packs without a header, so the bound is exact: ``count * datatype.size``.
    """
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ErrCount(f"count must be a non-negative integer, got {count!r}")
    return int(count) * datatype.size
