"""The buffer specs of mpi4py's collectives, read as mpi4py reads them.

A collective's buffer holds one block per process (a gather's receive buffer, a scatter's
send buffer, both buffers of an all-to-all) or one contribution (a reduction's). mpi4py
reads it as (observed with mpi4py 4.1.2, docs/guide/facts-collectives.md):

- :func:`simple`: ``buf``, ``[buf, datatype]``, ``[buf, count, datatype]`` (``count``
  elements per block), ``[buf, (count, displ), datatype]``; without a count the buffer is
  cut in equal blocks, and a buffer that does not cut evenly is ``ValueError: message:
  cannot infer count, number of entries N is not a multiple of required number of blocks
  P``;
- :func:`vector` (Gatherv, Scatterv, Allgatherv, Alltoallv): ``buf``, ``[buf, datatype]``,
  ``[buf, counts]``, ``[buf, counts, datatype]``, ``[buf, (counts, displs), datatype]``,
  ``[buf, counts, displs, datatype]``; counts and displacements in elements of the datatype,
  displacements by default one block after the other; an integer count is every process's,
  an integer displacement a stride (process k's block at k times it); of longer lists the
  first one per process (MPI reads no more);
- :func:`wvector` (Alltoallw): ``[buf, counts, displs, datatypes]``, displacements in bytes.

The buffer is returned as a numpy view of the caller's memory seen as elements of the
datatype (:func:`mpisim.collectives.elements.typed`), so what the handle writes lands in
the script's buffer. Counts and displacements are read with ``operator.index``
(:func:`..datatypes.integers.index`). :func:`message` reads one buffer spec (a numpy
array, bytearray, bytes, array.array or anything with the buffer protocol, alone or as
``[buf, datatype]``, ``[buf, count, datatype]``, ``[buf, (count, displ), datatype]``) into
what the handle takes: a numpy view of the caller's memory (so a receive writes into the
caller's buffer), a count and a datatype.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ...collectives.elements import typed
from ...mpi import datatypes as _dt
from ...mpi.constants import BOTTOM
from ...mpi.errors import MPIError
from ..datatypes.datatype import Datatype
from ..datatypes.integers import index, pair, sized
from ..datatypes.typecodes import lookup
from ..exceptions import Exception as MPIException
from ..exceptions import unsupported

__all__ = ["Simple", "Vector", "message", "simple", "vector", "wvector"]

_UINT8 = np.dtype(np.uint8)


@dataclass(slots=True)
class Simple:
    """A buffer of ``blocks`` blocks of ``count`` elements of ``datatype``. (A class, not a
    named tuple: a field ``count`` would hide ``tuple.count`` from the type checker.)"""

    buf: Any            # numpy view (the datatype's elements), or None
    count: int          # elements per block
    datatype: _dt.Datatype


class Vector(NamedTuple):
    """A buffer of one block per process: ``counts[k]`` elements at ``displs[k]``."""

    buf: Any
    counts: list[int] | None
    displs: list[int] | None
    datatype: Any       # mpisim datatype (Alltoallw: a list of them)


def _entries(arr: np.ndarray, datatype: _dt.Datatype, infer: bool = False) -> int:
    """Elements of ``datatype`` the buffer holds; ``infer``: the count is read from them, and
    a buffer that is not a whole number of elements is mpi4py's ValueError."""
    if datatype.numpy_dtype is not None and arr.dtype == datatype.numpy_dtype:
        return arr.size
    extent = datatype.extent
    if infer and (extent <= 0 or arr.nbytes % extent):
        lb = getattr(datatype, "lb", 0)
        raise ValueError(f"message: cannot infer count, buffer length {arr.nbytes} is not a "
                         f"multiple of datatype extent {extent} (lb:{lb}, ub:{lb + extent})")
    return arr.nbytes // max(extent, 1)


def _blocks_of(total: int, blocks: int) -> int:
    if blocks and total % blocks:
        raise ValueError(f"message: cannot infer count, number of entries {total} is not a "
                         f"multiple of required number of blocks {blocks}")
    return total // blocks if blocks else 0


def _view(arr: np.ndarray, elements: int, datatype: _dt.Datatype) -> np.ndarray:
    """The first ``elements`` elements of ``datatype`` in ``arr``, as the datatype's numpy
    elements (bytes for a datatype numpy has no dtype for); a 0-d array of one element
    stays 0-d."""
    seen = typed(arr, elements, datatype)
    if isinstance(seen, np.ndarray) and (datatype.numpy_dtype is None
                                         or seen.dtype != datatype.numpy_dtype):
        raw = seen.reshape(-1).view(_UINT8) if seen.flags.c_contiguous else \
            np.ascontiguousarray(seen).reshape(-1).view(_UINT8)
        return raw[:elements * datatype.extent]
    return seen


def _inferred(spec: Any, arr: Any, datatype: _dt.Datatype | None) -> _dt.Datatype:
    """The datatype mpi4py infers from a buffer's typecode when the spec names none: a
    uint8 array ('B') is MPI_UNSIGNED_CHAR, an integer (MPI_SUM applies), not MPI_BYTE."""
    named = isinstance(spec, list | tuple) and any(isinstance(x, Datatype | str)
                                                     for x in spec[1:])
    if not named and datatype is _dt.BYTE and isinstance(arr, np.ndarray) \
            and arr.dtype == _UINT8:
        return _dt.UNSIGNED_CHAR
    return datatype or _dt.BYTE


def simple(spec: Any, blocks: int = 1, writable: bool = False) -> Simple:
    """A plain collective's buffer (see the module); ``blocks`` blocks of equal count."""
    arr, count, datatype = message(spec, writable)
    datatype = _inferred(spec, arr, datatype)
    if arr is None or arr is BOTTOM:
        return Simple(None, 0 if count is None else index(count), datatype)
    count = _blocks_of(_entries(arr, datatype, infer=True), blocks) if count is None \
        else index(count)
    return Simple(_view(arr, count * blocks, datatype), count, datatype)


def _split(spec: Any) -> tuple[Any, list[Any], Any]:
    """(buffer, the middle items, datatype or None) of a v spec."""
    if not isinstance(spec, list | tuple):
        return spec, [], None
    buf, rest = spec[0], list(spec[1:])
    datatype = None
    if rest and (isinstance(rest[-1], Datatype | str) or (rest[-1] is None and len(rest) > 1)):
        datatype = rest.pop()  # (None: the buffer's own, as with no datatype)
    return buf, rest, datatype


def _ints(values: Any, size: int | None = None) -> list[int] | None:
    """Integers as ``operator.index`` reads them; the first ``size`` (MPI reads one per
    process of the communicator: a longer list is taken, as mpi4py passes it); a 0-d array
    is one integer for every process."""
    if values is None:
        return None
    if _integral(values):
        return [index(values)] * (size or 1)
    sized(values)  # a float: "object of type 'float' has no len()", as mpi4py says
    if isinstance(values, np.ndarray):
        values = values.tolist()
    values = list(values)
    return [index(v) for v in (values if size is None else values[:size])]


def vector(spec: Any, size: int, writable: bool = False) -> Vector:
    """A v form's buffer (see the module): counts default to equal blocks, displacements to
    one block after the other."""
    if spec is None:
        return Vector(None, None, None, _dt.BYTE)
    buf, rest, datatype = _split(spec)
    counts: Any = None
    displs: Any = None
    if len(rest) == 1 and isinstance(rest[0], tuple) and len(rest[0]) == 2:
        counts, displs = rest[0]  # (counts, displs), as mpi4py reads a pair
    elif len(rest) == 1:
        counts = rest[0]
    elif len(rest) == 2:
        counts, displs = rest
    elif rest:
        raise ValueError(f"message: cannot read the buffer spec {spec!r}")
    arr, _, dt = message(buf if datatype is None else [buf, datatype], writable)
    dt = _inferred(spec, arr, dt)
    if arr is None or arr is BOTTOM:
        return Vector(None, _counts(counts, size, 0), _displs(displs, size), dt)
    total = _entries(arr, dt, infer=counts is None)
    counts = _counts(counts, size, total)
    return Vector(_view(arr, total, dt), counts, _displs(displs, size), dt)


def _displs(displs: Any, size: int) -> list[int] | None:
    """Displacements as given; an integer is a stride (process k's block at k times it)."""
    if displs is not None and _integral(displs):
        return [k * index(displs) for k in range(size)]
    return _ints(displs, size)


def _counts(counts: Any, size: int, total: int) -> list[int]:
    """Counts as given (an integer: the same for every process), else equal blocks."""
    if counts is None:
        return [_blocks_of(total, size)] * size
    if _integral(counts):  # an integer (a 0-d array too): every process's count
        return [index(counts)] * size
    return _ints(counts, size)  # type: ignore[return-value]


def _integral(value: Any) -> bool:
    """An integer where a v spec takes one for every process (mpi4py: an object with
    ``__index__``; a float is read as a sequence, and refused for its missing ``len``)."""
    return hasattr(type(value), "__index__") and np.ndim(value) == 0


def wvector(spec: Any, size: int, writable: bool = False) -> Vector:
    """Alltoallw's buffer: ``[buf, counts, displs (bytes), datatypes]``, ``[buf, (counts,
    displs), datatypes]`` or ``[buf, datatypes]``; counts None: one element per process,
    displacements None: the blocks one after the other."""
    if isinstance(spec, list | tuple) and len(spec) == 3 and isinstance(spec[1], tuple) \
            and len(spec[1]) == 2:
        spec = [spec[0], spec[1][0], spec[1][1], spec[2]]
    elif isinstance(spec, list | tuple) and len(spec) == 2:
        spec = [spec[0], None, None, spec[1]]
    if not isinstance(spec, list | tuple) or len(spec) != 4:
        raise ValueError("message: expecting a list/tuple [buffer, counts, displacements, "
                         f"datatypes] of length 4, got {spec!r}")
    buf, counts, displs, types = spec
    if buf is BOTTOM and (counts is None or displs is None):
        raise ValueError("message: MPI.BOTTOM needs counts and displacements")
    if types is None or len(types) < size:
        raise ValueError(f"message: expecting {size} datatypes")
    dts = [t._type() for t in list(types)[:size]]
    if buf is BOTTOM:  # absolute addresses: the caller packs the blocks (.bottom)
        return Vector(BOTTOM, _ints(counts, size), _ints(displs, size), dts)
    counts = [1] * size if counts is None else counts
    if displs is None:
        displs, at = [], 0
        for c, t in zip(_ints(counts, size) or [], dts, strict=True):
            displs.append(at)
            at += c * t.extent
    if len(counts) < size or len(displs) < size:
        raise ValueError(f"message: expecting {size} counts and displacements")
    arr = None if buf is None else message(buf, writable)[0]
    if isinstance(arr, np.ndarray):
        arr = arr.reshape(-1).view(_UINT8) if arr.flags.c_contiguous else arr
    return Vector(arr, _ints(counts, size), _ints(displs, size), dts)


# -- buffer specs ------------------------------------------------------------------------
def message(spec: Any, writable: bool = False) -> tuple[Any, int | None, _dt.Datatype | None]:
    """(numpy view or None/BOTTOM, count or None, mpisim datatype) of an mpi4py buffer spec."""
    if spec is None:
        return None, 0, _dt.BYTE
    if spec is BOTTOM:
        return BOTTOM, 1, None
    buf, count, displ, datatype = _spec_parts(spec) if isinstance(spec, list | tuple) \
        else (spec, None, 0, None)
    if isinstance(datatype, Datatype):
        if datatype._h.t is None and count is None:  # as mpi4py words it
            raise ValueError("message: cannot infer count, datatype is null")
        datatype = datatype._type()  # MPI_DATATYPE_NULL with a count: MPI_ERR_TYPE
    if buf is None or buf is BOTTOM:
        return buf, (0 if count is None else count), datatype
    arr = _array(buf, writable)
    if datatype is None:
        datatype = _datatype_of(arr)
        if datatype is _dt.BYTE and arr.dtype != _UINT8:
            arr = arr.reshape(-1).view(_UINT8)
    if displ:
        raw = np.ascontiguousarray(arr).reshape(-1).view(_UINT8)
        arr = raw[displ * datatype.extent:]
    return arr, count, datatype


def _spec_parts(spec: list[Any] | tuple[Any, ...]) -> tuple[Any, int | None, int, Any]:
    """(buffer, count or None, displacement, datatype or typecode's datatype or None) of a
    list or tuple spec: ``[buf, dt]``, ``[buf, count, dt]``, ``[buf, (count, displ), dt]``,
    ``[buf, count, displ, dt]``."""
    count: int | None = None
    displ = 0
    datatype: Any = None
    buf, rest = spec[0], list(spec[1:])
    if rest and isinstance(rest[-1], Datatype):
        datatype = rest.pop()
    elif rest and isinstance(rest[-1], str):  # a typecode: "d", "i", "B"...
        datatype = _typecode(rest.pop())
    if len(rest) == 1 and isinstance(rest[0], tuple | list):
        count, displ = pair(rest[0])  # Cython's message: "need more than 1 value to unpack"
    elif len(rest) == 1:
        count = rest[0]
    elif len(rest) == 2:
        count, displ = rest
    elif rest:
        raise MPIException(f"cannot read the buffer spec {spec!r}", None, "MPI_ERR_ARG")
    return buf, count, displ, datatype


def _typecode(code: str) -> _dt.Datatype:
    """A buffer spec's typecode, looked up as mpi4py looks it up (its table of typecodes:
    an unknown one is KeyError "cannot map 'x' to MPI datatype")."""
    return lookup(code)._type()


def _array(buf: Any, writable: bool) -> np.ndarray:
    if isinstance(buf, np.ndarray):
        arr = buf
    else:
        try:
            arr = np.asarray(memoryview(buf))
        except TypeError:
            if hasattr(buf, "__cuda_array_interface__") or hasattr(buf, "__dlpack__"):
                raise unsupported("buffer", f"{type(buf).__name__} (GPU/DLPack buffers)") \
                    from None
            # mpi4py's own words (PyObject_GetBuffer's); a real run stops there too
            raise TypeError(f"a bytes-like object is required, not "
                            f"'{type(buf).__name__}'") from None
    if writable and not arr.flags.writeable:
        raise MPIException("the receive buffer is read-only", None, "MPI_ERR_BUFFER")
    return arr


def _datatype_of(arr: np.ndarray) -> _dt.Datatype:
    try:
        return _dt.datatype_of(arr.dtype)
    except MPIError:
        return _dt.BYTE
