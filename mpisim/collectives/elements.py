"""A buffer's elements as a collective reads them, and which reduction ops apply to them.

MPI reads a buffer as ``count`` elements of its datatype, whatever the language's view of
that memory is: a C ``int[2]`` sent as one ``MPI_2INT`` is one (value, index) pair, and
numpy's view of a buffer (its dtype, its shape) is the program's, not MPI's. :func:`typed`
gives the numpy view MPI's reading corresponds to, so that a reduction combines elements of
the datatype (a MAXLOC of an ``int32`` array sent as ``INT_INT`` compares pairs), and
:func:`store` writes a value back into a receive buffer whatever its view.

:func:`check_op` holds 6.9.2's table of which predefined op applies to which datatypes:
MPI_MAX and MPI_MIN to integers and floating point; MPI_SUM and MPI_PROD to those and
complex; the logical ops to integers and logicals; the bitwise ops to integers and bytes;
MPI_MAXLOC and MPI_MINLOC to the pair types. Another combination is erroneous, and MPICH
refuses it with MPI_ERR_OP ("Invalid MPI_Op"), as mpisim does. User ops apply to anything.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..mpi import datatypes as _dt
from ..mpi.errors import ErrOp

__all__ = ["check_op", "store", "typed"]

_UINT8 = np.dtype(np.uint8)

_CLASSES = {"MAX": "if", "MIN": "if", "SUM": "ifc", "PROD": "ifc", "LAND": "il",
            "LOR": "il", "LXOR": "il", "BAND": "iy", "BOR": "iy", "BXOR": "iy",
            "MAXLOC": "p", "MINLOC": "p"}
"""6.9.2: the classes of datatypes each predefined op applies to: i integer, f floating
point, c complex, l logical, y byte, p (value, index) pair."""

_NAMED = {"BYTE": "y", "PACKED": "y", "LOGICAL": "l", "C_BOOL": "l", "CXX_BOOL": "l"}
"""Datatypes whose class is not their numpy dtype's (BYTE is uint8 to numpy)."""


def _class_of(dtype: np.dtype, datatype: Any) -> str:
    """The 6.9.2 class of elements of ``datatype`` (when predefined), else of ``dtype``."""
    name = getattr(datatype, "name", None)
    if name in _NAMED:
        return _NAMED[name]
    if dtype.names is not None:
        return "p" if len(dtype.names) == 2 else "?"
    return {"i": "i", "u": "i", "f": "f", "c": "c", "b": "l"}.get(dtype.kind, "?")


def check_op(op: Any, value: Any, datatype: Any = None) -> None:
    """MPI_ERR_OP if the predefined ``op`` does not apply to the numpy ``value``'s elements
    (of ``datatype`` when given); other values and user ops are not checked."""
    allowed = _CLASSES.get(getattr(op, "name", "").removeprefix("MPI_"))
    if allowed is None or not isinstance(value, np.ndarray | np.generic):
        return
    kind = _class_of(value.dtype, datatype)
    if kind not in allowed:
        shown = getattr(datatype, "name", None) or str(value.dtype)
        raise ErrOp(f"{op.name} is not defined for {shown} (6.9.2: it applies to "
                    f"{_describe(allowed)})")


def _describe(classes: str) -> str:
    words = {"i": "integers", "f": "floating point", "c": "complex", "l": "logicals",
             "y": "bytes", "p": "(value, index) pair types"}
    return ", ".join(words[c] for c in classes)


def typed(buf: Any, count: Any = None, datatype: Any = None) -> Any:
    """``buf`` as ``count`` elements of ``datatype``: a numpy array of another dtype is seen
    as the datatype's elements (its bytes reinterpreted), cut to ``count`` elements when
    given; anything else, or a datatype numpy has no dtype for, is returned as it is. A 0-d
    array or numpy scalar of the datatype's dtype stays what it is."""
    if not isinstance(buf, np.ndarray | np.generic) or not isinstance(datatype, _dt.Datatype):
        return buf
    want = datatype.numpy_dtype
    if want is None or (want.kind in "SUV" and want.names is None):
        return buf
    arr = np.asarray(buf)
    if arr.dtype != want:
        raw = np.ascontiguousarray(arr).reshape(-1).view(_UINT8)
        usable = raw.size - raw.size % want.itemsize
        arr = raw[:usable].view(want)
    elif count is None:
        return buf
    if count is not None and arr.ndim and count < arr.size:
        arr = arr.reshape(-1)[:count]
    return arr


def store(recvbuf: np.ndarray, value: Any) -> None:
    """Write ``value`` (a numpy array or scalar) into ``recvbuf``: element by element when
    they have one dtype and size, else as bytes (a pair type received into an int array),
    as many as both hold."""
    value = np.asarray(value)
    if value.dtype == recvbuf.dtype and value.size == recvbuf.size:
        recvbuf[...] = value.reshape(recvbuf.shape)
        return
    src = np.ascontiguousarray(value).reshape(-1).view(_UINT8)
    if recvbuf.flags.c_contiguous:
        dst = recvbuf.reshape(-1).view(_UINT8)
        n = min(src.size, dst.size)
        dst[:n] = src[:n]
        return
    staged = np.ascontiguousarray(recvbuf)
    flat = staged.reshape(-1).view(_UINT8)
    n = min(src.size, flat.size)
    flat[:n] = src[:n]
    recvbuf[...] = staged
