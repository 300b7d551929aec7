"""Groups (MPI 4.1 §7.3, mpisim.mpi.group): each constructor against hand-computed members,
and the set identities they keep."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mpisim.mpi.constants import PROC_NULL, UNDEFINED
from mpisim.mpi.errors import ErrRank
from mpisim.mpi.group import EMPTY, IDENT, SIMILAR, UNEQUAL, Group, compare

WORLD = Group(range(6), me=2)


def test_constructors_keep_the_order_7_3_2_gives():
    assert WORLD.incl([4, 1]).members == (4, 1)
    assert WORLD.excl([0, 5]).members == (1, 2, 3, 4)
    assert WORLD.range_incl([(0, 4, 2), (5, 3, -2)]).members == (0, 2, 4, 5, 3)
    assert WORLD.range_excl([(1, 5, 2)]).members == (0, 2, 4)
    a, b = WORLD.incl([3, 1, 2]), WORLD.incl([2, 5])
    assert a.union(b).members == (3, 1, 2, 5)      # a's order, then b's others
    assert a.intersection(b).members == (2,)
    assert a.difference(b).members == (3, 1)
    assert a.rank == 2 and b.rank == 0 and WORLD.incl([0]).rank == UNDEFINED


def test_translate_ranks_and_compare():
    a, b = WORLD.incl([3, 1, 2]), WORLD.incl([2, 3])
    assert a.translate([0, 1, 2, PROC_NULL], b) == [1, UNDEFINED, 0, PROC_NULL]
    assert compare(a, WORLD.incl([3, 1, 2])) == IDENT
    assert compare(a, WORLD.incl([1, 2, 3])) == SIMILAR
    assert compare(a, b) == UNEQUAL
    assert EMPTY.size == 0 and EMPTY.rank == UNDEFINED
    with pytest.raises(ErrRank):
        WORLD.incl([6])
    with pytest.raises(ErrRank):
        WORLD.incl([1, 1])


@given(st.sets(st.integers(0, 5)), st.sets(st.integers(0, 5)))
def test_set_identities(xs, ys):
    a, b = WORLD.incl(sorted(xs)), WORLD.incl(sorted(ys))
    union, inter, diff = a.union(b), a.intersection(b), a.difference(b)
    assert set(union.members) == xs | ys and set(inter.members) == xs & ys
    assert set(diff.members) == xs - ys
    assert diff.union(inter).size == a.size
    assert a.translate(range(a.size), a) == list(range(a.size))
