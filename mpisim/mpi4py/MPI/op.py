"""mpi4py's MPI.Op in the stand-in: the predefined reduction ops (:data:`OPS`), user ops
(``Op.Create``) and ``Op.Reduce_local``."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ...collectives import ops as _ops
from ..datatypes.datatype import _call
from ..msgbuffer.collective import message

__all__ = ["OPS", "Op", "python_op"]


class Op:
    """mpi4py's MPI.Op: applied to Python objects as mpi4py does (SUM is ``+``, so lists
    concatenate), to numpy arrays elementwise."""

    def __init__(self, name: str, engine: Any, python: Any, commute: bool | None = None) -> None:
        self._name = name
        self._engine = engine
        self._python = python
        # REPLACE and NO_OP are not commutative, as mpi4py says; the others predefined are
        self._commute = name not in ("REPLACE", "NO_OP") if commute is None else commute

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
        engine = _ops.Op("user", apply, commutative=bool(commute))
        return cls("user", engine, lambda x, y: function(x, y, None), bool(commute))

    def Free(self) -> None:
        pass

    def Is_commutative(self) -> bool:
        return self._commute

    def Reduce_local(self, inbuf: Any, inoutbuf: Any) -> None:
        """MPI_Reduce_local (6.9.7): ``inoutbuf`` becomes this op of ``inbuf`` and itself.
        The two specs must agree, as mpi4py checks (``ValueError: mismatch in inbuf count 2
        and inoutbuf count 3``)."""
        from ..bridge import current

        (src, n, t), (dst, m, u) = message(inbuf), message(inoutbuf, writable=True)
        n, m = _count_of(src, n, t), _count_of(dst, m, u)
        if n != m:
            raise ValueError(f"mismatch in inbuf count {n} and inoutbuf count {m}")
        if t is not u:
            raise ValueError("mismatch in inbuf and inoutbuf MPI datatypes")
        _call(current().plain().reduce_local, src, dst, n, u, self._engine)

    def __bool__(self) -> bool:
        return self._engine is not None  # MPI.OP_NULL is false, as mpi4py's

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Op {self._name}>"


def _count_of(arr: Any, count: Any, datatype: Any) -> int:
    """A spec's count: as given, else the buffer's whole elements of its datatype."""
    if count is not None:
        return operator.index(count)
    if not isinstance(arr, np.ndarray) or datatype is None:
        return 0
    return arr.nbytes // max(datatype.extent, 1)


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
    "OP_NULL": Op("OP_NULL", None, None),  # no op: a reduction with it is MPI_ERR_OP
}


def python_op(op: Any) -> Any:
    """What the handle's reductions take for an mpi4py op: a callable on the values."""
    if isinstance(op, Op):
        return op
    if callable(op):
        return op

    def applied(a: Any, b: Any) -> Any:  # mpi4py 4.1.2 calls op(a, b) as given: one process
        return op(a, b)  # never calls it; more raise "'int' object is not callable" here
    return applied
