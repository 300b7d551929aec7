"""MPI_Type_create_darray's layout (MPI 4.1 §5.1.4): which elements of a global array
a process of a grid owns, for HPF-style block and cyclic distributions.

The process grid is ``psizes``, ranks laid out row-major; in each dimension the process at
coordinate c owns, with ``DISTRIBUTE_BLOCK`` and block b (by default ceil(g / p)), the
indices c*b ... (c+1)*b - 1; with ``DISTRIBUTE_CYCLIC`` and block b (by default 1), every
b-block whose number is c modulo p; with ``DISTRIBUTE_NONE``, all of them (p must be 1).
The datatype lists the owned elements in the local array's order (the last dimension
fastest with ORDER_C, the first with ORDER_FORTRAN), at their offsets in the global array,
and spans the whole global array (lb 0, extent the array's).
"""

from __future__ import annotations

import itertools
import math

from ..exceptions import Exception as MPIException

__all__ = ["BLOCK", "CYCLIC", "DFLT_DARG", "NONE", "offsets"]

BLOCK, CYCLIC, NONE, DFLT_DARG = 121, 122, 123, -49767
"""MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE and _DFLT_DARG (MPICH's values)."""
ORDER_C, ORDER_FORTRAN = 56, 57


def _owned(g: int, p: int, c: int, distrib: int, darg: int) -> list[int]:
    """The indices of one dimension of ``g`` that coordinate ``c`` of ``p`` owns."""
    if distrib == NONE:
        if p != 1:
            raise _bad(f"DISTRIBUTE_NONE needs 1 process in its dimension, not {p}")
        return list(range(g))
    if distrib == BLOCK:
        block = math.ceil(g / p) if darg == DFLT_DARG else darg
        if block * p < g:
            raise _bad(f"block {block} x {p} processes does not cover {g} elements")
        return list(range(min(c * block, g), min((c + 1) * block, g)))
    if distrib == CYCLIC:
        block = 1 if darg == DFLT_DARG else darg
        if block < 1:
            raise _bad(f"cyclic block {block} is not positive")
        return [i for i in range(g) if (i // block) % p == c]
    raise _bad(f"unknown distribution {distrib}")


def offsets(size: int, rank: int, gsizes: list[int], distribs: list[int],
            dargs: list[int], psizes: list[int], order: int) -> list[int]:
    """The owned elements' offsets in the global array, in elements, in the local array's
    order (see the module)."""
    ndims = len(gsizes)
    if not len(distribs) == len(dargs) == len(psizes) == ndims:
        raise _bad("gsizes, distribs, dargs and psizes must have the same length")
    if math.prod(psizes) != size or not 0 <= rank < size:
        raise _bad(f"rank {rank} of a grid {psizes} of {size} processes")
    if order not in (ORDER_C, ORDER_FORTRAN):
        raise _bad(f"order {order} is neither ORDER_C nor ORDER_FORTRAN")
    coords, rest = [], rank
    for p in reversed(psizes):  # the grid is row-major whatever the array's order
        coords.append(rest % p)
        rest //= p
    coords.reverse()
    owned = [_owned(*dim) for dim in zip(gsizes, psizes, coords, distribs, dargs,
                                         strict=True)]
    dims = range(ndims) if order == ORDER_C else range(ndims - 1, -1, -1)
    strides = [0] * ndims
    step = 1
    for d in reversed(dims):  # the dimension that varies fastest has stride 1
        strides[d] = step
        step *= gsizes[d]
    ordered = [owned[d] for d in dims]
    return [sum(i * strides[d] for i, d in zip(index, dims, strict=True))
            for index in itertools.product(*ordered)]


def _bad(why: str) -> MPIException:
    return MPIException(f"MPI_Type_create_darray: {why}", None, "MPI_ERR_ARG")
