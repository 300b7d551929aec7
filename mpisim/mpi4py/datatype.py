"""Datatypes, reduction ops and buffer specs of the stand-in.

A :class:`Datatype` wraps one of mpisim's datatypes with mpi4py's methods (``Get_size``,
``Get_extent``, ``Create_vector(...).Commit()``...). :func:`message` reads an mpi4py buffer
spec — a numpy array, bytearray, bytes, array.array or anything with the buffer protocol,
alone or as ``[buf, datatype]``, ``[buf, count, datatype]``, ``[buf, (count, displ),
datatype]`` — into what the handle takes: a numpy view of the caller's memory (so a receive
writes into the caller's buffer), a count and a datatype.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..collectives import ops as _ops
from ..mpi import datatypes as _dt
from ..mpi.constants import BOTTOM
from ..mpi.errors import MPIError
from .exceptions import Exception as MPIException
from .exceptions import as_exception, unsupported

__all__ = ["DATATYPES", "OPS", "Datatype", "Op", "message"]

_UINT8 = np.dtype(np.uint8)


class Datatype:
    """mpi4py's MPI.Datatype over an mpisim datatype (``None``: DATATYPE_NULL)."""

    def __init__(self, t: Any = None, name: str | None = None) -> None:
        self._t = t
        self._name = name or (t.name if t is not None else "DATATYPE_NULL")

    # -- queries -------------------------------------------------------------------------
    def _type(self) -> Any:
        if self._t is None:
            raise MPIException("datatype is MPI_DATATYPE_NULL", None, "MPI_ERR_TYPE")
        return self._t

    def Get_size(self) -> int:
        return _dt.type_size(self._type())

    def Get_extent(self) -> tuple[int, int]:
        t = self._type()
        return t.lb, t.extent

    def Get_true_extent(self) -> tuple[int, int]:
        t = self._type()
        return t.true_lb, t.true_extent

    def Pack_size(self, count: int, comm: Any = None) -> int:
        return _call(_dt.pack_size, count, self._type())

    def Get_name(self) -> str:
        return f"MPI_{self._name}" if self._t is not None and self._t._predefined else self._name

    size = property(Get_size)
    extent = property(lambda self: self.Get_extent()[1])
    lb = property(lambda self: self.Get_extent()[0])
    ub = property(lambda self: sum(self.Get_extent()))
    true_extent = property(lambda self: self.Get_true_extent()[1])
    name = property(Get_name)

    # -- constructors --------------------------------------------------------------------
    def Create_contiguous(self, count: int) -> Datatype:
        return Datatype(_call(self._type().create_contiguous, count))

    def Create_vector(self, count: int, blocklength: int, stride: int) -> Datatype:
        return Datatype(_call(self._type().create_vector, count, blocklength, stride))

    def Create_hvector(self, count: int, blocklength: int, stride: int) -> Datatype:
        return Datatype(_call(self._type().create_hvector, count, blocklength, stride))

    def Create_indexed(self, blocklengths: Any, displacements: Any) -> Datatype:
        return Datatype(_call(self._type().create_indexed, blocklengths, displacements))

    def Create_hindexed(self, blocklengths: Any, displacements: Any) -> Datatype:
        return Datatype(_call(self._type().create_hindexed, blocklengths, displacements))

    def Create_indexed_block(self, blocklength: int, displacements: Any) -> Datatype:
        return Datatype(_call(self._type().create_indexed_block, blocklength, displacements))

    def Create_hindexed_block(self, blocklength: int, displacements: Any) -> Datatype:
        return Datatype(_call(self._type().create_hindexed_block, blocklength, displacements))

    def Create_resized(self, lb: int, extent: int) -> Datatype:
        return Datatype(_call(self._type().create_resized, lb, extent))

    def Create_subarray(self, sizes: Any, subsizes: Any, starts: Any,
                        order: int = _dt.ORDER_C) -> Datatype:
        return Datatype(_call(self._type().create_subarray, sizes, subsizes, starts, order))

    @classmethod
    def Create_struct(cls, blocklengths: Any, displacements: Any, datatypes: Any) -> Datatype:
        types = [d._type() for d in datatypes]
        return cls(_call(_dt.Datatype.create_struct, blocklengths, displacements, types))

    def Dup(self) -> Datatype:
        return Datatype(self._type().create_contiguous(1).commit()) if not \
            self._type()._predefined else Datatype(self._t, self._name)

    def Commit(self) -> Datatype:
        self._type().commit()
        return self

    def Free(self) -> None:
        t = self._type()
        if t._predefined:
            raise MPIException("cannot free a predefined datatype", None, "MPI_ERR_TYPE")
        self._t = None

    # -- identity ------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Datatype) and self._t is other._t

    def __hash__(self) -> int:
        return id(self._t)

    def __bool__(self) -> bool:
        return self._t is not None

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Datatype {self._name}>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Datatype", name)


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except MPIError as e:
        raise as_exception(e) from None


# mpi4py name -> mpisim datatype (aliases share one object, as in mpi4py)
_NAMES = {
    "BYTE": _dt.BYTE, "PACKED": _dt.PACKED, "CHAR": _dt.CHAR, "SIGNED_CHAR": _dt.SIGNED_CHAR,
    "UNSIGNED_CHAR": _dt.UNSIGNED_CHAR, "WCHAR": _dt.WCHAR, "SHORT": _dt.SHORT,
    "UNSIGNED_SHORT": _dt.UNSIGNED_SHORT, "INT": _dt.INT, "UNSIGNED": _dt.UNSIGNED,
    "UNSIGNED_INT": _dt.UNSIGNED, "LONG": _dt.LONG, "UNSIGNED_LONG": _dt.UNSIGNED_LONG,
    "LONG_LONG": _dt.LONG_LONG, "UNSIGNED_LONG_LONG": _dt.UNSIGNED_LONG_LONG,
    "FLOAT": _dt.FLOAT, "DOUBLE": _dt.DOUBLE, "LONG_DOUBLE": _dt.LONG_DOUBLE,
    "C_BOOL": _dt.C_BOOL, "BOOL": _dt.C_BOOL, "INT8_T": _dt.INT8_T, "INT16_T": _dt.INT16_T,
    "INT32_T": _dt.INT32_T, "INT64_T": _dt.INT64_T, "UINT8_T": _dt.UINT8_T,
    "UINT16_T": _dt.UINT16_T, "UINT32_T": _dt.UINT32_T, "UINT64_T": _dt.UINT64_T,
    "C_COMPLEX": _dt.C_COMPLEX, "C_FLOAT_COMPLEX": _dt.C_FLOAT_COMPLEX,
    "C_DOUBLE_COMPLEX": _dt.C_DOUBLE_COMPLEX, "C_LONG_DOUBLE_COMPLEX": _dt.C_LONG_DOUBLE_COMPLEX,
    "AINT": _dt.AINT, "OFFSET": _dt.OFFSET, "COUNT": _dt.COUNT, "INTEGER": _dt.INTEGER,
    "REAL": _dt.REAL, "DOUBLE_PRECISION": _dt.DOUBLE_PRECISION, "COMPLEX": _dt.COMPLEX,
    "DOUBLE_COMPLEX": _dt.DOUBLE_COMPLEX, "LOGICAL": _dt.LOGICAL, "CHARACTER": _dt.CHARACTER,
    "INTEGER1": _dt.INTEGER1, "INTEGER2": _dt.INTEGER2, "INTEGER4": _dt.INTEGER4,
    "INTEGER8": _dt.INTEGER8, "REAL4": _dt.REAL4, "REAL8": _dt.REAL8,
}
_WRAPPED: dict[int, Datatype] = {}
DATATYPES: dict[str, Datatype] = {}
for _name, _t in _NAMES.items():
    DATATYPES[_name] = _WRAPPED.setdefault(id(_t), Datatype(_t))
DATATYPES["DATATYPE_NULL"] = Datatype(None)


def wrapped(t: Any) -> Datatype:
    """The stand-in datatype for an mpisim one (the predefined object when there is one)."""
    return _WRAPPED.get(id(t)) or Datatype(t)


class Op:
    """mpi4py's MPI.Op: applied to Python objects as mpi4py does (SUM is ``+``, so lists
    concatenate), to numpy arrays elementwise."""

    def __init__(self, name: str, engine: Any, python: Any) -> None:
        self._name = name
        self._engine = engine
        self._python = python

    def __call__(self, x: Any, y: Any) -> Any:
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return self._engine(x, y)
        return self._python(x, y)

    @classmethod
    def Create(cls, function: Any, commute: bool = False) -> Op:
        """A user op: ``function(invec, inoutvec, datatype)`` as in mpi4py."""
        def apply(x: Any, y: Any) -> Any:
            out = np.array(y, copy=True)
            function(x, out, None)
            return out
        return cls("user", apply, lambda x, y: function(x, y, None))

    def Free(self) -> None:
        pass

    def Is_commutative(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Op {self._name}>"


def _loc(pick: Any) -> Any:
    def op(x: Any, y: Any) -> Any:
        return pick((x[0], x[1]), (y[0], y[1]))
    return op


OPS = {
    "SUM": Op("SUM", _ops.SUM, operator.add), "PROD": Op("PROD", _ops.PROD, operator.mul),
    "MAX": Op("MAX", _ops.MAX, max), "MIN": Op("MIN", _ops.MIN, min),
    "LAND": Op("LAND", _ops.LAND, lambda a, b: a and b),
    "LOR": Op("LOR", _ops.LOR, lambda a, b: a or b),
    "LXOR": Op("LXOR", _ops.LXOR, lambda a, b: bool(a) != bool(b)),
    "BAND": Op("BAND", _ops.BAND, operator.and_), "BOR": Op("BOR", _ops.BOR, operator.or_),
    "BXOR": Op("BXOR", _ops.BXOR, operator.xor),
    "MAXLOC": Op("MAXLOC", _ops.MAXLOC, _loc(lambda a, b: max(a, b, key=lambda v: (v[0], -v[1])))),
    "MINLOC": Op("MINLOC", _ops.MINLOC, _loc(min)),
}


def python_op(op: Any) -> Any:
    """What the handle's reductions take for an mpi4py op: a callable on the values."""
    if isinstance(op, Op):
        return op
    if callable(op):
        return op
    raise MPIException(f"{op!r} is not an MPI.Op", None, "MPI_ERR_OP")


# -- buffer specs ------------------------------------------------------------------------
def message(spec: Any, writable: bool = False) -> tuple[Any, int | None, Any]:
    """(numpy view or None/BOTTOM, count or None, mpisim datatype) of an mpi4py buffer spec."""
    if spec is None:
        return None, 0, _dt.BYTE
    if spec is BOTTOM:
        return BOTTOM, 1, None
    count: int | None = None
    displ = 0
    datatype: Any = None
    if isinstance(spec, list | tuple):
        buf, rest = spec[0], list(spec[1:])
        if rest and isinstance(rest[-1], Datatype):
            datatype = rest.pop()._type()
        elif rest and isinstance(rest[-1], str):  # a typecode: "d", "i", "B"...
            datatype = _typecode(rest.pop())
        if len(rest) == 1 and isinstance(rest[0], tuple | list):
            count, displ = rest[0]
        elif len(rest) == 1:
            count = rest[0]
        elif len(rest) == 2:
            count, displ = rest
        elif rest:
            raise MPIException(f"cannot read the buffer spec {spec!r}", None, "MPI_ERR_ARG")
    else:
        buf = spec
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


def _typecode(code: str) -> Any:
    try:
        return _dt.datatype_of(np.dtype(code))
    except (TypeError, MPIError):
        raise MPIException(f"unknown typecode {code!r}", None, "MPI_ERR_TYPE") from None


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
            raise MPIException(f"a {type(buf).__name__} is not a buffer (expected a numpy "
                               "array, bytearray, array.array or a [buf, datatype] list)",
                               None, "MPI_ERR_BUFFER") from None
    if writable and not arr.flags.writeable:
        raise MPIException("the receive buffer is read-only", None, "MPI_ERR_BUFFER")
    return arr


def _datatype_of(arr: np.ndarray) -> Any:
    try:
        return _dt.datatype_of(arr.dtype)
    except MPIError:
        return _dt.BYTE
