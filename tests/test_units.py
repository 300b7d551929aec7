"""Unit strings for times, sizes and bandwidths."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mpisim.units import (
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
