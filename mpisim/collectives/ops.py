"""Reduction operations (MPI_Op, MPI 4.1 §6.9.2): predefined ones and user functions.

An op combines two contributions elementwise: numpy arrays with the numpy ufunc, Python
numbers (and lists of numbers, elementwise) with the Python operator; a None (a size-only
contribution, no data) leaves the other. MAXLOC / MINLOC take (value, index) pairs and keep
the lower index on ties, as 6.9.4 says. A Python callable
``f(a, b)`` is a user op; mpisim treats every op as commutative (6.9.5 lets an
implementation reorder commutative ops; a non-commutative user op is applied in an order
the algorithm chooses).
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
    """A reduction operation: ``op(a, b)`` combines two contributions."""

    __slots__ = ("fn", "name", "ufunc")

    def __init__(self, name: str, fn: Callable[[Any, Any], Any], ufunc: Any = None) -> None:
        self.name = name
        self.fn = fn
        self.ufunc = ufunc

    def __call__(self, a: Any, b: Any) -> Any:
        if a is None or b is None:  # size-only contributions (no data given)
            return b if a is None else a
        if self.ufunc is not None and (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
            return self.ufunc(a, b)
        if isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b) \
                and self.ufunc is not None:
            return [self.fn(x, y) for x, y in zip(a, b, strict=True)]
        return self.fn(a, b)

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


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

OPS = {op.name.removeprefix("MPI_"): op for op in (SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND,
                                                  BOR, BXOR, MAXLOC, MINLOC)}


def as_op(op: Any) -> Op:
    """An Op from an Op, a name ("SUM", "MPI_SUM") or a callable (a user op)."""
    if isinstance(op, Op):
        return op
    if isinstance(op, str) and op.upper().removeprefix("MPI_") in OPS:
        return OPS[op.upper().removeprefix("MPI_")]
    if callable(op):
        return Op(getattr(op, "__name__", "user op"), op)
    raise ErrOp(f"{op!r} is not a reduction operation (one of {', '.join(OPS)}, or a "
                "function of two arguments)")
