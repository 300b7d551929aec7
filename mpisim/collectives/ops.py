"""Reduction operations (MPI_Op, MPI 4.1 §6.9.2): predefined ones and user functions.

An op combines two contributions elementwise: numpy arrays and numpy scalars with the numpy
ufunc, Python numbers (and lists of numbers, elementwise) with the Python operator; a None (a
size-only contribution, no data) leaves the other. A numpy contribution keeps its kind and
type: a 0-d array stays an array (a ufunc alone would give a numpy scalar, which a receive
buffer then never got: the pi = 0 of issue 27) and the result has the contribution's dtype
(MPI's result has the datatype of the buffers, 6.9.2: LAND of two ``int`` is an ``int``).
MAXLOC / MINLOC take (value, index) pairs, or numpy arrays of pairs (a structured dtype of
two fields, as the pair types ``DOUBLE_INT``... are), and keep the lower index on ties, as
6.9.4 says. A Python callable
``f(a, b)`` is a user op, commutative unless it says otherwise (an ``Is_commutative()``
returning False, as mpi4py's ``MPI.REPLACE``, ``MPI.NO_OP`` and ``Op.Create(f,
commute=False)``). 6.9.5 lets an implementation combine a commutative op in any order; a
non-commutative one is combined in rank order, ``x0 op x1 op ... op x(p-1)``: the
algorithms keep that order for it (a reduce to another root than 0 reduces to rank 0
first, as MPICH does; the ring allreduce gives way to recursive doubling).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..mpi.errors import ErrOp

__all__ = ["BAND", "BOR", "BXOR", "LAND", "LOR", "LXOR", "MAX", "MAXLOC", "MIN", "MINLOC",
           "OPS", "PROD", "SUM", "Op", "as_op"]


class Op:
    """A reduction operation: ``op(a, b)`` combines two contributions.

    The predefined ones are ``ms.SUM``, ``ms.MAX``... A program makes its own as
    ``ms.Op("absmax", lambda a, b: np.maximum(abs(a), abs(b)))`` and passes it as ``op=``.

    Parameters
    ----------
    name
        The name reports show.
    fn
        ``fn(a, b)``: the combination of two contributions (numpy arrays are combined
        elementwise by ``ufunc`` when there is one, else passed whole).
    ufunc
        A numpy ufunc that does the same elementwise (``np.add``), or None.
    commutative
        Whether the order of the contributions does not matter (default True); False:
        they are combined in rank order (MPI 4.1 §6.9.5).
    """

    __slots__ = ("commutative", "fn", "name", "ufunc")

    def __init__(self, name: str, fn: Callable[[Any, Any], Any], ufunc: Any = None,
                 commutative: bool = True) -> None:
        self.name = name
        self.fn = fn
        self.ufunc = ufunc
        self.commutative = commutative  # False: combined in rank order (6.9.5)

    def __call__(self, a: Any, b: Any) -> Any:
        if a is None or b is None:  # size-only contributions (no data given)
            return b if a is None else a
        if isinstance(a, _NUMPY) or isinstance(b, _NUMPY):
            if self.ufunc is not None:
                return _as_contribution(self.ufunc(a, b), a, b)
            if self.fn in _PAIR_PICKS and _pairs(a) and _pairs(b):
                return _loc_arrays(a, b, _PAIR_PICKS[self.fn])
        if isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b) \
                and self.ufunc is not None:
            return [self.fn(x, y) for x, y in zip(a, b, strict=True)]
        return self.fn(a, b)

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


_NUMPY = (np.ndarray, np.generic)


def _as_contribution(out: Any, a: Any, b: Any) -> Any:
    """A ufunc's result as the contributions were: an array (0-d too) if either was one,
    else a numpy scalar; of the first numpy contribution's dtype."""
    like = a if isinstance(a, _NUMPY) else b
    out = np.asarray(out)
    if out.dtype != like.dtype:
        out = out.astype(like.dtype)
    return out if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else out[()]


def _pairs(x: Any) -> bool:
    """A numpy array (or scalar) of (value, index) pairs: a structured dtype of two fields."""
    names = getattr(getattr(x, "dtype", None), "names", None)
    return names is not None and len(names) == 2


def _loc_arrays(a: Any, b: Any, greater: bool) -> Any:
    """MAXLOC (``greater``) or MINLOC of two arrays of pairs, elementwise (6.9.4): the better
    value; on a tie the lower index."""
    value, index = a.dtype.names
    va, vb = a[value], b[value]
    better = va > vb if greater else va < vb
    tie = va == vb
    take_a = better | (tie & (a[index] <= b[index]))
    out = np.where(take_a, a, b).astype(a.dtype)  # (np.where packs a struct's fields)
    return out if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else out[()]


def _maxloc(a: Any, b: Any) -> Any:
    if a[0] != b[0]:
        return a if a[0] > b[0] else b
    return a if a[1] <= b[1] else b


def _minloc(a: Any, b: Any) -> Any:
    if a[0] != b[0]:
        return a if a[0] < b[0] else b
    return a if a[1] <= b[1] else b


SUM = Op("MPI_SUM", operator.add, np.add)
PROD = Op("MPI_PROD", operator.mul, np.multiply)
MAX = Op("MPI_MAX", max, np.maximum)
MIN = Op("MPI_MIN", min, np.minimum)
LAND = Op("MPI_LAND", lambda a, b: bool(a) and bool(b), np.logical_and)
LOR = Op("MPI_LOR", lambda a, b: bool(a) or bool(b), np.logical_or)
LXOR = Op("MPI_LXOR", lambda a, b: bool(a) != bool(b), np.logical_xor)
BAND = Op("MPI_BAND", operator.and_, np.bitwise_and)
BOR = Op("MPI_BOR", operator.or_, np.bitwise_or)
BXOR = Op("MPI_BXOR", operator.xor, np.bitwise_xor)
MAXLOC = Op("MPI_MAXLOC", _maxloc)
MINLOC = Op("MPI_MINLOC", _minloc)

_PAIR_PICKS = {_maxloc: True, _minloc: False}

OPS = {op.name.removeprefix("MPI_"): op for op in (SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND,
                                                  BOR, BXOR, MAXLOC, MINLOC)}


def as_op(op: Any) -> Op:
    """An Op from an Op, a name ("SUM", "MPI_SUM") or a callable (a user op)."""
    if isinstance(op, Op):
        return op
    if isinstance(op, str) and op.upper().removeprefix("MPI_") in OPS:
        return OPS[op.upper().removeprefix("MPI_")]
    if callable(op):  # a user op: commutative unless it says otherwise (Is_commutative)
        commutes = getattr(op, "Is_commutative", None)
        return Op(getattr(op, "__name__", "user op"), op,
                  commutative=bool(commutes()) if callable(commutes) else True)
    raise ErrOp(f"{op!r} is not a reduction operation (one of {', '.join(OPS)}, or a "
                "function of two arguments)")
