"""Strategies shared by the fuzz tests: values of any type and magnitude, small enough for
CI. ``MPISIM_FUZZ_EXAMPLES`` sets how many examples each test draws (a long campaign by hand:
``MPISIM_FUZZ_EXAMPLES=5000 pytest tests/fuzz``)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("MPISIM_FUZZ_EXAMPLES", "40"))
"""Examples per fuzz test (CI: the default; by hand: thousands)."""

FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
"""The settings of every fuzz test (derandomized in CI: a failure reproduces)."""

class Digits(str):
    """A long digit string, shown by its length when hypothesis reports it."""

    def __repr__(self) -> str:
        return f"Digits({len(self)} characters)" if len(self) > 60 else super().__repr__()


DIGITS = st.integers(1, 6000).map(lambda n: Digits("9" * n))
"""Digit strings of any length, across Python's 4300-digit conversion limit."""

class Huge(int):
    """An integer too long for str(): shown by its size when hypothesis reports it."""

    def __repr__(self) -> str:
        return f"Huge(about 10**{int(self.bit_length() * 0.30103)})"


HUGE = st.integers(300, 6000).map(lambda n: Huge(10**n)) | \
    st.integers(300, 6000).map(lambda n: Huge(-(10**n)))
"""Integers of hundreds to thousands of digits."""

NUMBERS = st.one_of(
    st.integers(), st.integers(-10**30, 10**30), st.sampled_from([2**63, -2**63, 2**63 - 1]),
    HUGE, st.floats(allow_nan=True, allow_infinity=True), st.booleans())
"""Numbers of any magnitude (and booleans, which are never numbers)."""

TEXTS = st.one_of(
    st.text(max_size=12), DIGITS, DIGITS.map(lambda d: Digits(f"{d} KiB")),
    DIGITS.map(lambda d: Digits(d + "us")),
    DIGITS.map(lambda d: Digits(f"1e{d}")), DIGITS.map(lambda d: Digits(f"0.{d}")),
    st.sampled_from(["64 KiB", "1us", "10 GB/s", "1 GiB", "-1", "nan", "inf", "1e309", "0x10",
                     "on", "010", "1:30", "", " ", "\x00", "µs", "1 h", "2**99", "[1, 2]",
                     "{a: 1}", "ANY_SOURCE", "rank"]),
    st.just("x" * 2000).map(Digits))  # (made by a map: hypothesis records only str choices)
"""Text of any length: unit strings, numbers in words, YAML surprises."""

VALUES = st.recursive(st.one_of(st.none(), NUMBERS, TEXTS),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                      max_leaves=6)
"""Any value a scenario key, a setting or an argument could be given."""
