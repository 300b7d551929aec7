"""parse_values: the value lists and ranges of `mpisim sweep --vary KEY=...`."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mpisim.whatif import parse_values
from mpisim.whatif.values import MAX_VALUES, parse_value


def test_plain_lists_keep_their_types():
    assert parse_values("1,2,4") == [1, 2, 4]
    assert parse_values("circular, first-fit") == ["circular", "first-fit"]
    assert parse_values("0.5,2") == [0.5, 2]
    assert parse_values("true,false") == [True, False]
    assert parse_values("1e3") == [1000] and isinstance(parse_values("1e3")[0], int)


def test_units_resolve_to_bytes_seconds_and_bytes_per_second():
    assert parse_values("64KiB,1 MiB,5 kB") == [65536, 2**20, 5000]
    assert parse_values("1us,5us,2ms") == [1e-6, 5e-6, 2e-3]
    assert parse_values("10 GB/s,8 Gb/s") == [1e10, 1e9]


def test_geometric_range_is_inclusive():
    assert parse_values("1KiB..64KiB:x2") == [1024 * 2**i for i in range(7)]
    assert parse_values("1KiB..60KiB:x2") == [1024 * 2**i for i in range(6)]
    assert parse_values("1us..8us:x2") == [1e-6, 2e-6, 4e-6, 8e-6]


def test_arithmetic_range_is_inclusive_and_whole_numbers_stay_whole():
    assert parse_values("0..100:10") == list(range(0, 101, 10))
    assert parse_values("0..64KiB:16KiB") == [0, 16384, 32768, 49152, 65536]
    assert parse_values("1..4") == [1, 2, 3, 4]
    assert parse_values("0..1:0.1") == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def test_a_fractional_factor_on_sizes_rounds_to_bytes():
    assert parse_values("1KiB..4KiB:x1.5") == [1024, 1536, 2304, 3456]


def test_lists_may_mix_values_and_ranges():
    assert parse_values("0,1KiB..4KiB:x2,100") == [0, 1024, 2048, 4096, 100]


@pytest.mark.parametrize(("text", "words"), [
    ("", "no values"),
    ("1,,2", "empty item"),
    ("5..1:1", "backwards"),
    ("1..10:x1", "factor must be above 1"),
    ("0..10:x2", "start above 0"),
    ("1.5..3", "needs a step"),
    ("a..b:1", "not a number"),
    ("1..", "expected 'a..b:STEP'"),
    ("0..10:0", "step must be positive"),
    ("0..1e9:1", "more than"),
    ("3 parsecs", "unknown unit .parsecs."),
    ("1.5 B", "whole number of bytes"),
])
def test_bad_text_is_one_clear_value_error(text, words):
    with pytest.raises(ValueError, match=words) as info:
        parse_values(text)
    assert "\n" not in str(info.value)


def test_a_single_value_is_read_as_the_most_specific_kind():
    assert parse_value(" 42 ") == 42
    assert parse_value("first-fit") == "first-fit"
    assert parse_value("2.5") == 2.5


@given(start=st.integers(1, 4096), factor=st.integers(2, 5), count=st.integers(1, 12))
def test_geometric_ranges_hit_every_power_up_to_the_end(start, factor, count):
    end = start * factor ** (count - 1)
    assert parse_values(f"{start}..{end}:x{factor}") == [start * factor**i
                                                        for i in range(count)]


@given(start=st.integers(-1000, 1000), span=st.integers(0, 5000), step=st.integers(1, 700))
def test_arithmetic_ranges_cover_start_to_end_in_steps(start, span, step):
    values = parse_values(f"{start}..{start + span}:{step}")
    assert values[0] == start
    assert all(b - a == step for a, b in itertools.pairwise(values))
    assert values[-1] <= start + span < values[-1] + step
    assert len(values) <= MAX_VALUES


@given(st.floats(1e-9, 1e3), st.floats(1e-9, 1e3))
def test_float_ranges_include_their_end_despite_rounding(a, step):
    """Steps of at least a millionth of the values (12 significant digits are kept)."""
    assume(step >= a * 1e-6)
    values = parse_values(f"{a!r}..{a + 3 * step!r}:{step!r}")
    assert len(values) == 4
    assert math.isclose(values[-1], a + 3 * step, rel_tol=1e-9)
