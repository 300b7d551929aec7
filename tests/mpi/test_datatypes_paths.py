"""Derived datatypes measure their members two ways, in plain Python (few runs: the types
mpi4py.util.dtlib and most programs build) and with numpy (many runs, as a long indexed
type). Both must give the same size, bounds, extent, true extent and markers (4.1.2
constructors, 4.1.5 size, 4.1.6 markers, 4.1.7 extent, 4.1.8 true extent), and refuse the
same types whose bounds leave 64 bits (MPI_Aint)."""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from mpisim.mpi import datatypes as dt
from mpisim.mpi.datatypes import ORDER_C, ORDER_FORTRAN, Datatype
from mpisim.mpi.errors import ErrArg

BASICS = [dt.BYTE, dt.CHAR, dt.SHORT, dt.INT, dt.DOUBLE, dt.C_DOUBLE_COMPLEX]
count = st.integers(0, 4)
# mostly small displacements; now and then one near 2**62, so that some types leave 64 bits
offset = st.one_of(st.integers(-40, 80), st.integers(-2**62, 2**62))
# long enough to cross the default switch between the two paths (64 runs)
runs = st.lists(st.tuples(count, offset), min_size=0, max_size=90)


def recipes(depth: int) -> st.SearchStrategy:
    """A type's construction as data, so that the same type can be built twice."""
    leaf = st.sampled_from(range(len(BASICS))).map(lambda i: ("basic", i))
    if depth == 0:
        return leaf
    sub = recipes(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.just("contiguous"), sub, count),
        st.tuples(st.just("vector"), sub, count, count, st.integers(-3, 4)),
        st.tuples(st.just("hvector"), sub, st.integers(0, 80), count, offset),
        st.tuples(st.just("indexed"), sub, runs),
        st.tuples(st.just("hindexed"), sub, runs),
        st.tuples(st.just("indexed_block"), sub, count, st.lists(offset, max_size=80)),
        st.tuples(st.just("resized"), sub, st.integers(-16, 16), st.integers(0, 48)),
        st.tuples(st.just("subarray"), sub, st.lists(st.tuples(st.integers(1, 4),
                                                               st.integers(0, 3)),
                                                     min_size=1, max_size=3),
                  st.sampled_from([ORDER_C, ORDER_FORTRAN])),
        st.tuples(st.just("struct"), st.lists(st.tuples(sub, count, offset), min_size=0,
                                              max_size=70)),
    )


def build(recipe: tuple) -> Datatype:
    kind, *args = recipe
    if kind == "basic":
        return BASICS[args[0]]
    if kind == "struct":
        (members,) = args
        return Datatype.create_struct([n for _, n, _ in members], [d for _, _, d in members],
                                      [build(r) for r, _, _ in members])
    old, rest = build(args[0]), args[1:]
    if kind in ("indexed", "hindexed"):
        (pairs,) = rest
        make = old.create_indexed if kind == "indexed" else old.create_hindexed
        return make([n for n, _ in pairs], [d for _, d in pairs])
    if kind == "subarray":
        dims, order = rest
        sizes = [s + start for s, start in dims]
        return old.create_subarray(sizes, [s for s, _ in dims], [start for _, start in dims],
                                   order)
    return getattr(old, f"create_{kind}")(*rest)


def measured(recipe: tuple, small_runs: int) -> Any:
    """What the type's construction says of it, every member measured by one path (the
    Python one up to ``small_runs`` runs, numpy above), or the error it raises."""
    with mock.patch.object(dt, "_SMALL_RUNS", small_runs):
        try:
            t = build(recipe)
        except ErrArg as e:
            return f"ErrArg: {e}"
    return (t.size, t.lb, t.extent, t.true_lb, t.true_extent, t._lb_marked, t._ub_marked,
            t._align)


@given(recipes(3))
def test_the_python_and_the_numpy_paths_measure_every_type_alike(recipe: tuple) -> None:
    """4.1.2-4.1.8: size, lb, extent, true lb/extent and markers of a random derived type
    (every constructor, nested; the 64-bit limits included) are the same whether each
    member is measured in plain Python or with numpy."""
    assert measured(recipe, 10**9) == measured(recipe, -1)


def test_both_paths_agree_on_a_type_of_one_long_and_one_short_member() -> None:
    """A struct whose members fall on both sides of the default switch: the long indexed
    member (numpy) and the short one (Python) place its bounds together."""
    long = dt.INT.create_indexed([1] * 100, list(range(0, 300, 3)))
    t = Datatype.create_struct([1, 2], [-8, 0], [dt.DOUBLE, long])
    assert (t.size, t.lb, t.true_lb) == (8 + 2 * 400, -8, -8)
    assert (long.lb, long.extent) == (0, 297 * 4 + 4)
    assert t.extent == 2 * long.extent + 8  # from -8 to the second copy's end: 2,392 bytes,
    # already a multiple of DOUBLE's alignment
