"""Rank selectors: all, even, odd, N, [list], 'A..B' and expressions."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpisim.scenario.selectors import select
from mpisim.scenario.values import Invalid


@pytest.mark.parametrize("selector, ranks", [
    ("all", range(6)), ("even", [0, 2, 4]), ("odd", [1, 3, 5]), (3, [3]), (2.0, [2]),
    ([0, "size - 1", 0], [0, 5]), ("1..3", [1, 2, 3]), ("1 .. size-1", range(1, 6)),
    ("size - 1", [5]), ("rank % 3 == 0", [0, 3]), ("rank > 0 and rank < size - 1", range(1, 5)),
    ("rank % 2", [1, 3, 5]), ("half..half", [3]), ("0..0", [0]),
])
def test_selectors(selector, ranks):
    assert select(selector, 6, {"half": 3}) == frozenset(ranks)


@pytest.mark.parametrize("selector", [-1, 6, "5..6", "6", [7], "rank + ", None, True, {"a": 1},
                                      "2.5", "'x'"])
def test_bad_selectors_are_invalid(selector):
    with pytest.raises(Invalid):
        select(selector, 6, {})


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 64), data=st.data())
def test_ranges_and_parity_partition_the_ranks(size, data):
    lo = data.draw(st.integers(0, size - 1))
    hi = data.draw(st.integers(lo, size - 1))
    assert select(f"{lo}..{hi}", size, {}) == frozenset(range(lo, hi + 1))
    even, odd = select("even", size, {}), select("odd", size, {})
    assert even | odd == select("all", size, {}) == frozenset(range(size))
    assert not even & odd
    assert select("rank % 2 == 0", size, {}) == even
