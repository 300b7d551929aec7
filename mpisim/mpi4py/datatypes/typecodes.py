"""Typecodes: the strings mpi4py takes for a datatype (``[buf, "i"]``,
``MPI.Datatype.fromcode("f8")``) and the buffer formats it reads a datatype from.

:data:`CODES` is mpi4py 4.1's ``MPI._typedict`` as built against MPICH 5.0.2 on LP64 Linux
(PEP 3118 / struct characters, numpy's ``i4``-style names, and the aliases mpi4py adds: the
last entry for a code wins there, as here), each code naming the stand-in's predefined
datatype. :func:`lookup` fails as mpi4py's does: ``KeyError("cannot map 'x' to MPI
datatype")``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CODES", "CODES_C", "CODES_F", "TABLE", "lookup", "typedict"]

CODES: dict[str, str] = {
    "?": "C_BOOL", "b": "SIGNED_CHAR", "h": "SHORT", "i": "INT", "l": "LONG",
    "q": "LONG_LONG", "B": "UNSIGNED_CHAR", "H": "UNSIGNED_SHORT", "I": "UNSIGNED",
    "L": "UNSIGNED_LONG", "Q": "UNSIGNED_LONG_LONG", "e": "FLOAT16_T", "f": "FLOAT",
    "d": "DOUBLE", "g": "LONG_DOUBLE", "Zf": "C_FLOAT_COMPLEX", "Zd": "C_DOUBLE_COMPLEX",
    "F": "C_FLOAT_COMPLEX", "D": "C_DOUBLE_COMPLEX", "Zg": "C_LONG_DOUBLE_COMPLEX",
    "G": "C_LONG_DOUBLE_COMPLEX", "i1": "INT8_T", "i2": "INT16_T", "i4": "INT32_T",
    "i8": "INT64_T", "f4": "FLOAT", "f8": "DOUBLE", "f16": "LONG_DOUBLE",
    "c8": "C_FLOAT_COMPLEX", "c16": "C_DOUBLE_COMPLEX", "c32": "C_LONG_DOUBLE_COMPLEX",
    "b1": "C_BOOL", "u1": "UINT8_T", "u2": "UINT16_T", "u4": "UINT32_T", "u8": "UINT64_T",
    "f2": "FLOAT16_T", "n": "COUNT", "N": "UNSIGNED_LONG", "p": "AINT", "P": "UNSIGNED_LONG",
    "c": "CHAR", "a": "CHAR", "S": "CHAR", "S1": "CHAR", "s": "CHAR", "1s": "CHAR",
    "U": "WCHAR", "U1": "WCHAR", "u": "UINT16_T", "1u": "UINT16_T", "w": "WCHAR",
    "1w": "WCHAR", "M": "INT64_T", "M8": "INT64_T", "m": "INT64_T", "m8": "INT64_T",
}
"""Typecode -> the name of the stand-in's ``MPI.<NAME>`` (mpi4py's ``MPI._typedict``)."""

CODES_C: tuple[str, ...] = (
    "?", "b", "h", "i", "l", "q", "B", "H", "I", "L", "Q", "f", "d", "g", "F", "D", "G",
    "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "c8", "f8", "c16",
    "f16", "c32")
"""The codes of ``MPI._typedict_c`` (C types only)."""

CODES_F: dict[str, str] = {
    "l": "LOGICAL", "i": "INTEGER", "r": "REAL", "s": "REAL", "d": "DOUBLE_PRECISION",
    "c": "COMPLEX", "z": "DOUBLE_COMPLEX", "i1": "INTEGER1", "i2": "INTEGER2",
    "i4": "INTEGER4", "i8": "INTEGER8", "r4": "REAL4", "r8": "REAL8", "r16": "REAL16",
    "c8": "COMPLEX8", "c16": "COMPLEX16", "c32": "COMPLEX32",
}
"""``MPI._typedict_f``: Fortran typecodes."""

def typedict(datatypes: dict[str, Any]) -> dict[str, Any]:
    """Typecode -> datatype, from the stand-in's datatypes by name, without the types that
    are MPI_DATATYPE_NULL (as mpi4py leaves out the library's missing ones)."""
    return {code: datatypes[name] for code, name in CODES.items()
            if datatypes.get(name) is not None and datatypes[name]}


TABLE: dict[str, Any] = {}
"""Typecode -> the stand-in's datatype: filled by :mod:`.datatype` when it builds its
predefined datatypes (this module stays below it: it imports nothing of the stand-in)."""


def lookup(key: Any) -> Any:
    """The datatype of a typecode; mpi4py's KeyError ("cannot map 'x' to MPI datatype")
    when there is none."""
    try:
        return TABLE[key]
    except (KeyError, TypeError):
        raise KeyError(f"cannot map {key!r} to MPI datatype") from None
