"""Unit strings for times, sizes and bandwidths."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mpisim.values.units import (
    UnitError,
    format_size,
    format_time,
    parse_bandwidth,
    parse_size,
    parse_time,
)


@pytest.mark.parametrize("text, seconds", [("1us", 1e-6), ("2.5 ms", 2.5e-3), ("3ns", 3e-9),
                                           ("1µs", 1e-6), (0.5, 0.5), ("1e-6", 1e-6), ("2 s", 2)])
def test_times(text, seconds):
    assert parse_time(text) == pytest.approx(seconds)


def test_decimal_times_are_the_nearest_double():
    assert parse_time("5us") == 5e-6 and parse_time("100ns") == 1e-7


@pytest.mark.parametrize("text, nbytes", [("64 KiB", 65536), ("1 MB", 10**6), ("4KiB", 4096),
                                          (17, 17), ("1e3", 1000), ("1.5 KiB", 1536),
                                          ("1 TiB", 2**40)])
def test_sizes(text, nbytes):
    assert parse_size(text) == nbytes


@pytest.mark.parametrize("text, bps", [("10 GB/s", 1e10), ("100 Gb/s", 12.5e9),
                                       ("1 GiB/s", 2**30), (5e9, 5e9)])
def test_bandwidths(text, bps):
    assert parse_bandwidth(text) == pytest.approx(bps)


@pytest.mark.parametrize("fn, bad", [(parse_time, "fast"), (parse_time, "-1us"),
                                     (parse_time, "3 parsecs"), (parse_size, "1.5 B"),
                                     (parse_size, "-4"), (parse_size, True),
                                     (parse_bandwidth, "0 GB/s"), (parse_bandwidth, "10 GB")])
def test_bad_values_are_refused_with_a_reason(fn, bad):
    with pytest.raises(UnitError):
        fn(bad)


@given(st.integers(0, 2**50))
def test_sizes_round_trip_through_their_text(n):
    assert parse_size(f"{n} B") == n and str(n) in format_size(n)


def test_formatting_picks_a_readable_unit():
    assert format_time(1.2e-6) == "1.2 µs" and format_time(0) == "0 s"
    assert format_size(4096) == "4 KiB (4096 B)" and format_size(100) == "100 B"


# -- one grammar: the same text is the same value wherever it is read --------------------
UNIT_STRINGS = [("64 KiB", 65536), ("4KiB", 4096), ("1.5 KiB", 1536), ("1 MB", 10**6),
                ("2 GiB", 2**31), ("16 B", 16), ("3 bytes", 3), ("5us", 5e-6),
                ("2.5 ms", 2.5e-3), ("1min", 60.0), ("100ns", 1e-7), ("1µs", 1e-6),
                ("2 s", 2.0), ("10 GB/s", 1e10), ("100 Gb/s", 12.5e9), ("1 GiB/s", 2**30)]


@pytest.mark.parametrize(("text", "expected"), UNIT_STRINGS)
def test_a_unit_string_is_one_value_in_a_param_an_expression_set_and_vary(tmp_path, text,
                                                                          expected):
    """The grammar of mpisim.values.units read by a param, an expression (``1 * TEXT``), --set
    and --vary: the same value, exactly."""
    from mpisim.scenario import load
    from mpisim.scenario.expr import parse_expr
    from mpisim.scenario.schema import read_param
    from mpisim.whatif.values import parse_values

    as_value = read_param(text)
    in_expression = parse_expr(f"1 * {text}").evaluate({})
    path = tmp_path / "s.yaml"
    path.write_text("ranks: 1\nparams: {x: 0}\nprograms:\n  - ops: []\n")
    in_set = load(path).with_overrides({"x": text}).params["x"]
    in_vary = parse_values(text)[0]
    assert as_value == in_expression == in_set == in_vary == expected
    assert type(as_value) is type(in_set) is type(in_vary)


def test_minutes_work_inside_an_expression():
    from mpisim.scenario.expr import parse_expr

    assert parse_expr("2 * 1min").evaluate({}) == 120.0
    assert parse_expr("min(1min, 2s)").evaluate({}) == 2.0


def test_a_lower_case_b_is_a_bit_never_a_byte():
    """B is a byte, b a bit: 8b is refused as a size (not guessed), Gb/s is bits."""
    with pytest.raises(UnitError, match="bits"):
        parse_size("8b")
    assert parse_bandwidth("8 b/s") == 1.0 and parse_bandwidth("8 B/s") == 8.0


@pytest.mark.parametrize("text", ["1e308 KiB", "9223372036854775808", "8 EiB", "1e19"])
def test_sizes_beyond_an_mpi_count_are_refused(text):
    with pytest.raises(UnitError):
        parse_size(text)


@pytest.mark.parametrize(("fn", "text"), [(parse_time, "1e308 min"), (parse_time, "inf"),
                                          (parse_bandwidth, "1e308 GB/s")])
def test_times_and_bandwidths_stay_finite(fn, text):
    with pytest.raises(UnitError):
        fn(text)
