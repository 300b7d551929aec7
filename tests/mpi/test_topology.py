"""Process topologies as data (MPI 4.1 §8, mpisim.mpi.topology): MPI_Dims_create's balance
as MPICH 5.0.2 and Open MPI 5.0.11 compute it, and the Cartesian numbering, shifts and
sub-grids, against hand-computed values and as invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mpisim.mpi.constants import PROC_NULL
from mpisim.mpi.errors import ErrArg, ErrDims
from mpisim.mpi.topology import Cart, check_cart, check_graph, dims_create

# (nnodes, dims) -> MPICH 5.0.2, Open MPI 5.0.11 (observed with mpi4py's MPI.Compute_dims)
OBSERVED = [
    ((4, 2), [2, 2], [2, 2]),
    ((12, 3), [3, 2, 2], [3, 2, 2]),
    ((30, 3), [5, 3, 2], [5, 3, 2]),
    ((7, 2), [7, 1], [7, 1]),
    ((16, 4), [2, 2, 2, 2], [2, 2, 2, 2]),
    ((6, [0, 3, 0]), [2, 3, 1], [2, 3, 1]),
    ((20, 4), [5, 2, 2, 1], [5, 2, 2, 1]),
    ((72, 2), [9, 8], [12, 6]),  # the one count up to 96 where the two libraries differ
]


@pytest.mark.parametrize("args, mpich, openmpi", OBSERVED)
def test_dims_create_balances_as_each_library(args, mpich, openmpi):
    assert dims_create(*args, "closest") == mpich
    assert dims_create(*args, "greedy") == openmpi


@pytest.mark.parametrize("args", [(10, [0, 3]), (0, 2), (4, [-1, 0]), (6, [2, 2])])
def test_dims_that_cannot_be_laid_out_are_mpi_err_dims(args):
    # (MPICH 5.0.2 loops forever on (10, [0, 3]); Open MPI says MPI_ERR_DIMS)
    with pytest.raises(ErrDims):
        dims_create(*args)


@given(st.integers(1, 400), st.integers(1, 4), st.sampled_from(["closest", "greedy"]))
def test_dims_create_fills_a_grid_of_exactly_nnodes_in_non_increasing_order(n, k, rule):
    dims = dims_create(n, k, rule)
    assert math.prod(dims) == n and len(dims) == k
    assert dims == sorted(dims, reverse=True)  # §8.5.2: non-increasing order


@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
def test_cart_coords_and_rank_are_inverse(dims, data):
    cart = Cart(tuple(dims), tuple([True] * len(dims)))
    rank = data.draw(st.integers(0, cart.size - 1))
    coords = cart.coords(rank)
    assert cart.rank(coords) == rank
    assert all(0 <= c < d for c, d in zip(coords, dims, strict=True))


@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_a_shift_and_its_opposite_undo_each_other(dims, data):
    periods = tuple(data.draw(st.lists(st.booleans(), min_size=len(dims),
                                       max_size=len(dims))))
    cart = Cart(tuple(dims), periods)
    rank = data.draw(st.integers(0, cart.size - 1))
    direction = data.draw(st.integers(0, len(dims) - 1))
    source, dest = cart.shift(rank, direction, 1)
    if dest != PROC_NULL:  # whoever I send to receives from me (§8.5.6)
        assert cart.shift(dest, direction, 1)[0] == rank
    if source != PROC_NULL:
        assert cart.shift(source, direction, 1)[1] == rank


def test_row_major_numbering_and_shifts_off_a_non_periodic_edge():
    cart = Cart((2, 3), (False, True))
    assert [cart.coords(r) for r in range(6)] == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1],
                                                  [1, 2]]  # the last coordinate fastest
    assert cart.shift(0, 0, 1) == (PROC_NULL, 3)
    assert cart.shift(0, 1, 1) == (2, 1)  # periodic: wraps
    assert cart.rank([0, -1]) == 2
    with pytest.raises(ErrArg):
        cart.rank([-1, 0])  # non-periodic: out of range
    assert cart.neighbors(4) == ([1, PROC_NULL, 3, 5], [1, PROC_NULL, 3, 5])


def test_cart_sub_keeps_the_remaining_dimensions_split_by_the_dropped_ones():
    cart = Cart((2, 3), (True, False))
    assert cart.sub([False, True]) == Cart((3,), (False,))
    assert [cart.sub_split(r, [False, True]) for r in range(6)] == [
        (0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]


def test_creation_arguments_are_checked():
    with pytest.raises(ErrArg):
        check_cart([4, 2], None, 4)  # a grid larger than the communicator
    with pytest.raises(ErrArg):
        check_cart([2], [True, False], 4)
    with pytest.raises(ErrDims):
        check_cart([0, 2], None, 4)
    graph = check_graph([2, 3], [1, 1, 0], 2)
    assert graph.neighbors_of(0) == [1, 1] and graph.neighbors_of(1) == [0]
    with pytest.raises(ErrArg):
        check_graph([2, 1], [1, 0], 2)  # not cumulative
