"""The predefined datatypes of ``mpi4py.MPI`` as the stand-in offers them.

:data:`TABLE` is what mpi4py 4.1.2 shows over MPICH 5.0.2 on LP64 Linux for each named
datatype: its MPI name (``MPI.LONG_LONG.Get_name()`` is ``MPI_LONG_LONG_INT``), its
``typechar`` and ``typestr`` (numpy's character and ``kind + itemsize``) and its
``tocode()`` (None where mpi4py raises ValueError: the pair types). :data:`ALIASES` are
the names mpi4py binds to the same handle (``MPI.BOOL is MPI.C_BOOL``...) and :data:`NULL`
the names that are ``MPI_DATATYPE_NULL`` there (MPICH 5.0.2 has no LOGICAL1, REAL2,
INTEGER16, BFLOAT16_T...). :func:`backing` gives the mpisim datatype each name moves data
with (sizes, extents and layout as the table's), making the few mpisim lacks.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ...mpi import datatypes as _dt

__all__ = ["ALIASES", "NULL", "TABLE", "Named", "backing"]


class Named(NamedTuple):
    """One predefined datatype as mpi4py shows it."""

    mpi_name: str
    typechar: str
    typestr: str
    code: str | None


_ROWS = """
AINT MPI_AINT p i8 p
BYTE MPI_BYTE B u1 B
CHAR MPI_CHAR c S1 c
CHARACTER MPI_CHARACTER c S1 c
COMPLEX MPI_COMPLEX F c8 F
COMPLEX16 MPI_COMPLEX16 D c16 c16
COMPLEX32 MPI_COMPLEX32 G c32 c32
COMPLEX8 MPI_COMPLEX8 F c8 c8
COUNT MPI_COUNT p i8 p
CXX_BOOL MPI_CXX_BOOL ? b1 ?
CXX_DOUBLE_COMPLEX MPI_CXX_DOUBLE_COMPLEX D c16 D
CXX_FLOAT_COMPLEX MPI_CXX_FLOAT_COMPLEX F c8 F
CXX_LONG_DOUBLE_COMPLEX MPI_CXX_LONG_DOUBLE_COMPLEX G c32 G
C_BOOL MPI_C_BOOL ? b1 b1
C_COMPLEX MPI_C_COMPLEX F c8 F
C_DOUBLE_COMPLEX MPI_C_DOUBLE_COMPLEX D c16 D
C_LONG_DOUBLE_COMPLEX MPI_C_LONG_DOUBLE_COMPLEX G c32 G
DOUBLE MPI_DOUBLE d f8 d
DOUBLE_COMPLEX MPI_DOUBLE_COMPLEX D c16 D
DOUBLE_INT MPI_DOUBLE_INT V V16 -
DOUBLE_PRECISION MPI_DOUBLE_PRECISION d f8 d
FLOAT MPI_FLOAT f f4 f
FLOAT16_T MPIX_C_FLOAT16 e f2 e
FLOAT_INT MPI_FLOAT_INT V V8 -
INT MPI_INT i i4 i
INT16_T MPI_INT16_T h i2 i2
INT32_T MPI_INT32_T i i4 i4
INT64_T MPI_INT64_T l i8 i8
INT8_T MPI_INT8_T b i1 i1
INTEGER MPI_INTEGER i i4 i
INTEGER1 MPI_INTEGER1 b i1 i1
INTEGER2 MPI_INTEGER2 h i2 i2
INTEGER4 MPI_INTEGER4 i i4 i4
INTEGER8 MPI_INTEGER8 l i8 i8
INT_INT MPI_2INT V V8 -
LOGICAL MPI_LOGICAL i i4 i
LONG MPI_LONG l i8 l
LONG_DOUBLE MPI_LONG_DOUBLE g f16 g
LONG_DOUBLE_INT MPI_LONG_DOUBLE_INT V V32 -
LONG_INT MPI_LONG_INT V V16 -
LONG_LONG MPI_LONG_LONG_INT q i8 q
OFFSET MPI_OFFSET p i8 p
PACKED MPI_PACKED B u1 B
REAL MPI_REAL f f4 f
REAL16 MPI_REAL16 g f16 f16
REAL4 MPI_REAL4 f f4 f4
REAL8 MPI_REAL8 d f8 f8
SHORT MPI_SHORT h i2 h
SHORT_INT MPI_SHORT_INT V V8 -
SIGNED_CHAR MPI_SIGNED_CHAR b i1 b
UINT16_T MPI_UINT16_T H u2 u2
UINT32_T MPI_UINT32_T I u4 u4
UINT64_T MPI_UINT64_T L u8 u8
UINT8_T MPI_UINT8_T B u1 u1
UNSIGNED MPI_UNSIGNED I u4 I
UNSIGNED_CHAR MPI_UNSIGNED_CHAR B u1 B
UNSIGNED_LONG MPI_UNSIGNED_LONG L u8 L
UNSIGNED_LONG_LONG MPI_UNSIGNED_LONG_LONG Q u8 Q
UNSIGNED_SHORT MPI_UNSIGNED_SHORT H u2 H
WCHAR MPI_WCHAR U U1 U
"""

TABLE: dict[str, Named] = {
    name: Named(mpi, char, typestr, None if code == "-" else code)
    for name, mpi, char, typestr, code in (row.split() for row in _ROWS.strip().splitlines())
}
"""Each predefined datatype by its ``MPI.<NAME>`` (see the module)."""

ALIASES: dict[str, str] = {
    "BOOL": "C_BOOL", "C_FLOAT_COMPLEX": "C_COMPLEX", "FLOAT32_T": "FLOAT",
    "FLOAT64_T": "DOUBLE", "F_BOOL": "LOGICAL", "F_COMPLEX": "COMPLEX",
    "F_DOUBLE": "DOUBLE_PRECISION", "F_DOUBLE_COMPLEX": "DOUBLE_COMPLEX", "F_FLOAT": "REAL",
    "F_FLOAT_COMPLEX": "COMPLEX", "F_INT": "INTEGER", "SIGNED_INT": "INT",
    "SIGNED_LONG": "LONG", "SIGNED_LONG_LONG": "LONG_LONG", "SIGNED_SHORT": "SHORT",
    "SINT16_T": "INT16_T", "SINT32_T": "INT32_T", "SINT64_T": "INT64_T",
    "SINT8_T": "INT8_T", "TWOINT": "INT_INT", "UNSIGNED_INT": "UNSIGNED",
}
"""Names bound to the same object as another (``MPI.TWOINT is MPI.INT_INT``)."""

NULL: tuple[str, ...] = (
    "BFLOAT16_T", "COMPLEX4", "INTEGER16", "LOGICAL1", "LOGICAL2", "LOGICAL4", "LOGICAL8",
    "LOGICAL16", "REAL2", "DATATYPE_NULL")
"""Names that are MPI_DATATYPE_NULL in the library the stand-in follows."""

_MADE: dict[str, Any] = {}


def backing(name: str) -> Any:
    """The mpisim datatype that ``MPI.<name>`` moves data with."""
    t = getattr(_dt, name, None) if name != "INT_INT" else _dt.TWOINT
    if isinstance(t, _dt.Datatype):
        return t
    if name not in _MADE:
        _MADE[name] = _make(name)
    return _MADE[name]


def _make(name: str) -> Any:
    """The predefined types mpisim's own table lacks, laid out as in MPICH."""
    if name == "FLOAT16_T":
        return _basic(name, 2, "f2")
    if name == "REAL16":
        return _basic(name, 16, _dt.LONG_DOUBLE.numpy_dtype)
    if name in ("COMPLEX32", "CXX_LONG_DOUBLE_COMPLEX"):
        return _basic(name, 32, _dt.C_LONG_DOUBLE_COMPLEX.numpy_dtype, 16)
    if name == "LONG_DOUBLE_INT":
        t = _dt.Datatype.create_struct([1, 1], [0, 16], [_dt.LONG_DOUBLE, _dt.INT]).commit()
        t.name, t._predefined = name, True
        return t
    raise KeyError(name)


def _basic(name: str, size: int, dtype: Any, align: int | None = None) -> Any:
    return _dt.Datatype(name, size, None if dtype is None else np.dtype(dtype), align)
