"""What the accumulate family does to a target's memory (MPI 4.1 §12.3.4 to §12.3.6).

An accumulate combines each element of the origin's data with the element of the target it
lands on: ``target = op(target, origin)``, elementwise, for a predefined op (user ops are
MPI_ERR_OP, §12.3.4), with :data:`REPLACE` (the origin's value: a put that is atomic) and,
for the fetching forms, :data:`NO_OP` (the target is left alone: an atomic read). The
elements are those of the one predefined type the target datatype is made of (a derived type
of mixed basic types is MPI_ERR_TYPE). The simulator applies one operation at one instant of
simulated time, so each is atomic per element (§12.7: concurrent accumulates with the same op
give the result of some order of them; mpisim's order is the order they reach the target).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..collectives.ops import OPS, Op
from ..mpi.errors import ErrOp, ErrType

__all__ = ["ACCUMULATE_OPS", "FETCH_OPS", "NO_OP", "REPLACE", "accumulate_op", "combine",
           "compare_and_swap", "element_dtype"]

REPLACE = Op("MPI_REPLACE", lambda target, origin: origin)
"""MPI_REPLACE: the origin's value replaces the target's (an atomic put)."""
NO_OP = Op("MPI_NO_OP", lambda target, origin: target)
"""MPI_NO_OP: the target is left as it is (with MPI_Get_accumulate: an atomic read)."""

ACCUMULATE_OPS = {**{op.name: op for op in OPS.values()}, REPLACE.name: REPLACE}
"""The ops MPI_Accumulate and MPI_Raccumulate take, by MPI name."""
FETCH_OPS = {**ACCUMULATE_OPS, NO_OP.name: NO_OP}
"""The ops of MPI_Get_accumulate, MPI_Rget_accumulate and MPI_Fetch_and_op."""


def accumulate_op(op: Any, call: str, fetching: bool) -> Op:
    """The predefined op ``op`` names (an Op, or a name: "SUM", "MPI_REPLACE"); anything
    else, and MPI_NO_OP where the call does not fetch, is MPI_ERR_OP."""
    allowed = FETCH_OPS if fetching else ACCUMULATE_OPS
    if isinstance(op, Op) and allowed.get(op.name) is op:
        return op
    if isinstance(op, str):
        name = "MPI_" + op.upper().removeprefix("MPI_")
        if name in allowed:
            return allowed[name]
    raise ErrOp(f"{call}: {op!r} is not a predefined op it takes (§12.3.4: "
                f"{', '.join(n.removeprefix('MPI_') for n in allowed)}); user ops are not "
                "allowed in one-sided accumulates")


def element_dtype(datatype: Any, call: str) -> np.dtype:
    """The numpy dtype of the packed elements of ``datatype``: its one predefined type (a
    value-index pair without its padding); MPI_ERR_TYPE for a type of mixed basic types."""
    found = _leaves(datatype, set())
    if len(found) != 1:
        raise ErrType(f"{call}: the target datatype {datatype.name} is not made of one "
                      "predefined type (§12.3.4)")
    basic = found.pop()
    dtype = basic.numpy_dtype
    if dtype is None:
        raise ErrType(f"{call}: no arithmetic for {basic.name} on this platform")
    if dtype.names is None:
        return dtype
    first, second = (dtype.fields[n][0] for n in dtype.names)
    return np.dtype({"names": list(dtype.names), "formats": [first, second],
                     "offsets": [0, first.itemsize], "itemsize": basic.size})


def _leaves(datatype: Any, found: set) -> set:
    """The predefined types ``datatype`` is built of (a pair type counts as one)."""
    if datatype.numpy_dtype is not None or not datatype._members:
        found.add(datatype)
        return found
    for old, _, _ in datatype._members:
        _leaves(old, found)
    return found


def combine(op: Op, target: np.ndarray, origin: np.ndarray, call: str) -> np.ndarray:
    """The target's new elements: ``op(target, origin)`` elementwise."""
    if op is REPLACE:
        return origin
    if op is NO_OP:
        return target
    try:
        with np.errstate(all="ignore"):  # integer overflow wraps, as in C
            out = op(target, origin)
    except (TypeError, ValueError, np.exceptions.DTypePromotionError) as e:
        raise ErrOp(f"{call}: {op.name} is not defined on {target.dtype} ({e})") from None
    return np.asarray(out).astype(target.dtype, copy=False)


def compare_and_swap(target: np.ndarray, origin: np.ndarray,
                     compare: np.ndarray) -> np.ndarray:
    """MPI_Compare_and_swap (§12.3.6): the target's element becomes the origin's if it
    equals ``compare`` (bytewise); returns what the target held."""
    old = target.copy()
    if target.tobytes() == compare.tobytes():
        target[...] = origin
    return old
