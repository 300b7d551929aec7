"""Buffer specifications of point-to-point calls, read as mpi4py 4.1 reads them.

mpi4py's ``message_simple`` (``msgbuffer.pxi``) takes a message as a buffer alone, or a
list or tuple of 2 to 4 items: ``[buf, datatype]``, ``[buf, count]``, ``[buf, (count,
displ)]``, ``[buf, count, datatype]``, ``[buf, (count, displ), datatype]``, ``[buf, count,
displ, datatype]``; a datatype is an ``MPI.Datatype`` or a typecode string (``"i"``,
``"d"``, ``"f8"``...). The buffer is raw memory: ``displ`` counts datatype extents from its
start, ``count`` defaults to what is left of it divided by the extent, and without a
datatype the buffer's own format names one (a float64 array: MPI_DOUBLE). ``None`` and
``MPI.BOTTOM`` stand for address zero and need an explicit datatype. Toward
``MPI.PROC_NULL`` the message is not read at all.

:func:`p2p` does the same steps in the same order, with mpi4py's exception types and
wording (a KeyError for an unknown typecode, a ValueError for a negative count...), and
gives what the ``mpi`` handle takes: a one-dimensional numpy view of the caller's memory in
memory order (so a receive writes where the real one would), a count and an mpisim datatype.
Where real mpi4py would read or write past the end of the object (a count larger than the
buffer: undefined behaviour in C), the stand-in refuses with MPI_ERR_BUFFER: it never
touches memory outside the object.

Ranks and tags are converted before the buffer is read, as mpi4py's Cython signatures
(``int dest``) do: :func:`..datatypes.integers.c_int` (through ``__int__``, so a float is truncated
and an object with only ``__index__`` is refused); counts and displacements go through
``operator.index``.
"""

from __future__ import annotations

import operator
import sys
from typing import Any

import numpy as np

from ...mpi import datatypes as _dt
from ...mpi.constants import BOTTOM, PROC_NULL
from ..datatypes.datatype import Datatype, lookup
from ..datatypes.integers import c_int
from ..exceptions import Exception as MPIException
from ..exceptions import unsupported

__all__ = ["c_int", "located", "p2p", "raw"]

_UINT8 = np.dtype(np.uint8)
_NDARRAY = np.ndarray
_NATIVE = "<" if sys.byteorder == "little" else ">"


# -- the buffer ------------------------------------------------------------------------
def _is_buffer(obj: Any) -> bool:
    """PyObject_CheckBuffer: has the buffer protocol (MPI.BOTTOM has it in mpi4py)."""
    if isinstance(obj, np.ndarray | bytes | bytearray | memoryview) or obj is BOTTOM:
        return True
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _device(obj: Any) -> bool:
    return hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__")


def raw(obj: Any, readonly: bool) -> tuple[np.ndarray, str]:
    """(the object's bytes as a 1-d view in memory order, its format), or the error of
    mpi4py's getbuffer (PEP 3118 with PyBUF_ANY_CONTIGUOUS, then DLPack, then CAI)."""
    if isinstance(obj, np.ndarray):
        return _arrayraw(obj, readonly)
    try:
        view = memoryview(obj)
    except TypeError as e:
        if _device(obj):
            raise unsupported("buffer", f"{type(obj).__name__} (GPU/DLPack buffers)") from None
        raise TypeError(str(e).removeprefix("memoryview: ")) from None
    if not view.contiguous:
        raise BufferError("memoryview: underlying buffer is not contiguous")
    if not readonly and view.readonly:
        raise BufferError("scalar buffer is readonly" if isinstance(obj, np.generic) else
                          _NOT_WRITABLE.get(type(obj), "Object is not writable."))
    if view.ndim == 0 or view.format not in ("B", "b", "c"):
        flat = np.asarray(view).ravel(order="K")
    else:
        flat = np.frombuffer(view, dtype=_UINT8) if view.readonly else np.asarray(view.cast("B"))
    return (flat if flat.dtype == _UINT8 else flat.view(_UINT8)), view.format


_NOT_WRITABLE = {memoryview: "memoryview: underlying buffer is not writable"}


def _arrayraw(arr: np.ndarray, readonly: bool) -> tuple[np.ndarray, str]:
    """A numpy array: refused as by mpi4py's DLPack path (numpy arrays export DLPack)."""
    flags = arr.flags
    if not (flags.c_contiguous or flags.f_contiguous):
        raise BufferError("dlpack: buffer is not contiguous")
    if not readonly and not flags.writeable:
        raise BufferError("dlpack: buffer is not writable")
    flat = arr.ravel(order="K")
    if flat.dtype.hasobject:
        return flat, "O"
    return flat.view(_UINT8), _format(arr.dtype)


_FORMATS: dict[np.dtype, str] = {}


def _format(dtype: np.dtype) -> str:
    """The PEP 3118 format string numpy gives for ``dtype`` (cached)."""
    fmt = _FORMATS.get(dtype)
    if fmt is None:
        # numpy's stubs: no __buffer__ before 3.12
        fmt = _FORMATS[dtype] = memoryview(np.zeros(1, dtype)).format  # type: ignore[arg-type]
    return fmt


def _datatype_of_format(fmt: str) -> Datatype:
    """getdatatype: "B" is MPI_BYTE; a byte-order prefix must be the native one."""
    if fmt == "B":
        return _byte()
    if fmt[:1] == "@":
        fmt = fmt[1:]
    elif fmt[:1] in "<>":
        if fmt[0] != _NATIVE:
            raise BufferError(f"format string {fmt!r} with non-native byte order")
        fmt = fmt[1:]
    return lookup(fmt)


def _byte() -> Datatype:
    from ..datatypes.datatype import DATATYPES

    return DATATYPES["BYTE"]


def located(obj: Any) -> np.ndarray:
    """The memory ``MPI.Get_address`` takes the address of: the object's buffer, read as
    mpi4py reads it (``asbuffer_r``: the same errors; device buffers unsupported)."""
    if isinstance(obj, np.ndarray) and (obj.flags.c_contiguous or obj.flags.f_contiguous):
        return obj
    return raw(obj, True)[0]


# -- the message -------------------------------------------------------------------------
def _unpack(msg: Any) -> tuple[Any, Any, Any, Any]:
    """(buf, count, displ, datatype) of a message, as message_simple unpacks it."""
    if _is_buffer(msg):
        return msg, None, None, None
    if isinstance(msg, list | tuple):
        if len(msg) == 2:
            buf, count = msg
            if isinstance(count, Datatype | str):
                return buf, None, None, count
            if isinstance(count, tuple | list):
                count, displ = count
                return buf, count, displ, None
            return buf, count, None, None
        if len(msg) == 3:
            buf, count, datatype = msg
            if isinstance(count, tuple | list):
                count, displ = count
                return buf, count, displ, datatype
            return buf, count, None, datatype
        if len(msg) == 4:
            return tuple(msg)
        raise ValueError("message: expecting 2 to 4 items")
    if _device(msg):
        raise unsupported("buffer", f"{type(msg).__name__} (GPU/DLPack buffers)")
    raise TypeError("message: expecting buffer or list/tuple")


def _as_datatype(obj: Any) -> Datatype:
    return obj if isinstance(obj, Datatype) else lookup(obj)


def p2p(msg: Any, rank: int, readonly: bool) -> tuple[Any, int, Any]:  # noqa: C901, PLR0915 -- hot: a script's message 171,385 instructions, 1.28x a program's (bench.frontend)
    """(buffer, count, mpisim datatype) of a point-to-point message (see the module):
    ``readonly`` for a send, writable for a receive; nothing is read toward PROC_NULL."""
    if rank == PROC_NULL:
        return None, 0, _dt.BYTE
    cls = type(msg)
    if cls is _NDARRAY:  # the common cases, without the general steps
        fast = _fast(msg, readonly)
        if fast is not None:
            return fast
    elif (cls is list or cls is tuple) and len(msg) == 2:
        arr, datatype = msg
        if type(arr) is _NDARRAY and type(datatype) is Datatype:
            t = datatype._h.t  # (_fast_typed's common case, inlined: once per call)
            if t is not None and t.numpy_dtype is arr.dtype:
                extent = t.extent
                nbytes = arr.nbytes
                flags = arr.flags
                if extent > 0 and not nbytes % extent and flags.c_contiguous \
                        and (readonly or flags.writeable):
                    return (arr if arr.ndim == 1 else arr.reshape(-1)), nbytes // extent, t
            fast = _fast_typed(arr, t, readonly)
            if fast is not None:
                return fast
    buf, count, displ, datatype = _unpack(msg)
    if buf is None or buf is BOTTOM:
        dt = _as_datatype(datatype)
        memory, length = None, 0
    else:
        memory, fmt = raw(buf, readonly)
        dt = _datatype_of_format(fmt) if datatype is None else _as_datatype(datatype)
        length = memory.size
    lb = extent = offset = 0
    if displ is not None:
        displ = operator.index(displ)
        if displ < 0:
            raise ValueError(f"message: negative displacement {displ}")
        if displ > 0:
            lb, extent = _extent(dt, "handle displacement")
            if displ * extent > length:
                raise ValueError(f"message: displacement {displ} out of bounds, number of "
                                 f"datatype entries {length // extent}")
            offset = displ * extent
            length -= offset
    if count is not None:
        count = operator.index(count)
        if count < 0:
            raise ValueError(f"message: negative count {count}")
        if count > 0 and buf is None:
            raise ValueError(f"message: buffer is None but count is {count}")
    elif length > 0:
        if extent == 0:
            lb, extent = _extent(dt, "infer count")
        if length % extent:
            raise ValueError(f"message: cannot infer count, buffer length {length} is not a "
                             f"multiple of datatype extent {extent} (lb:{lb}, "
                             f"ub:{lb + extent})")
        count = length // extent
    else:
        count = 0
    t = dt._t if dt._t is not None else _dt.BYTE if count == 0 else None
    if t is None:
        raise MPIException("invalid datatype (MPI_DATATYPE_NULL)", None, "MPI_ERR_TYPE")
    if memory is None:
        return (BOTTOM if buf is BOTTOM else None), count, t
    view = memory[offset:]
    _check_reach(view, count, t)
    return _typed(view, t), count, t


def _extent(dt: Datatype, what: str) -> tuple[int, int]:
    """(lb, extent) of a datatype that can place entries; mpi4py's ValueError if not."""
    if dt._t is None:
        raise ValueError(f"message: cannot {what}, datatype is null")
    lb, extent = dt.Get_extent()
    if extent <= 0:
        raise ValueError(f"message: cannot {what}, datatype extent {extent} "
                         f"(lb:{lb}, ub:{lb + extent})")
    return lb, extent


def _check_reach(view: np.ndarray, count: int, t: Any) -> None:
    """A count that reaches past the end of the object is refused (see the module)."""
    if count == 0 or t.size == 0:
        return
    low = t.true_lb
    high = (count - 1) * t.extent + t.true_lb + t.true_extent
    if low < 0 or high > view.size:
        raise MPIException(
            f"{count} x {t.name} (bytes {low} to {high}) reach past the buffer's "
            f"{view.size} bytes: a real MPI would touch memory outside the object",
            {"bytes": high, "capacity": view.size}, "MPI_ERR_BUFFER")


def _typed(view: np.ndarray, t: Any) -> np.ndarray:
    """The bytes as an array of the datatype's numpy type where it has one and they line
    up (the handle then copies them whole), else as bytes."""
    dtype = t.numpy_dtype
    if dtype is None or dtype == _UINT8 or view.size % dtype.itemsize:
        return view
    try:
        return view.view(dtype)
    except ValueError:  # not aligned for a view: the bytes do as well
        return view


_FAST: dict[np.dtype, Any] = {}


def _fast(arr: np.ndarray, readonly: bool) -> tuple[np.ndarray, int, Any] | None:
    """A C-contiguous numpy array of a native type mpi4py maps: the array itself, its size
    and its datatype (the common case; anything else takes the general steps)."""
    flags = arr.flags
    if not flags.c_contiguous or not (readonly or flags.writeable):
        return None
    t = _FAST.get(arr.dtype)
    if t is None:
        try:
            t = _datatype_of_format(_format(arr.dtype))._t
        except (KeyError, BufferError):
            return None
        if t is None or t.numpy_dtype != arr.dtype:
            return None
        _FAST[arr.dtype] = t
    flat = arr if arr.ndim == 1 else arr.reshape(-1)  # (a 1-d array is its own flat view)
    return flat, flat.size, t


def _fast_typed(arr: np.ndarray, t: Any, readonly: bool) -> tuple[np.ndarray, int, Any] | None:
    """``[array, datatype]`` with a C-contiguous array and a datatype numpy has a dtype
    for, whose extent divides the array's bytes: the whole array, as many elements as it
    holds (anything else takes the general steps)."""
    if t is None:
        return None
    dtype = t.numpy_dtype
    extent = t.extent
    if dtype is None or extent <= 0:
        return None
    flags = arr.flags
    nbytes = arr.nbytes
    if not flags.c_contiguous or not (readonly or flags.writeable) or nbytes % extent:
        return None
    flat = arr if arr.ndim == 1 else arr.reshape(-1)  # (a 1-d array is its own flat view)
    if flat.dtype != dtype:
        flat = _typed(flat.view(_UINT8), t)
    return flat, nbytes // extent, t
