"""Unit strings for times, sizes and bandwidths: the one grammar every reader uses.

``"1us"``, ``"2.5 ms"``, ``"1min"``, ``"64 KiB"``, ``"10 GB/s"``. Binary prefixes (KiB, MiB,
GiB, TiB, PiB) are powers of 1024, decimal ones (kB/KB, MB, GB, TB) powers of 1000, as in
IEC 80000-13. **B is a byte, b is a bit**: sizes are whole bytes (``B``, ``byte``, ``bytes``;
``8b`` is refused rather than guessed), bandwidths are bytes per second (``GB/s``) unless
written in bits (``Gb/s``, ``Mb/s``: divided by 8, as networks are quoted). Plain numbers pass
through (seconds, bytes, bytes/s).

The same text means the same value wherever it is read: a setting, a param, ``--set``,
``--vary`` and inside an expression (``2 * 1min``): :func:`parse_quantity` reads any of them,
:data:`QUANTITY` finds them in an expression. Values are bounded where they are read: a size
is a whole number of bytes that fits an ``MPI_Count`` (below 2**63), a time and a bandwidth
are finite, so no inf, NaN or unrepresentable integer reaches the engine or the JSON. Kept
small and hand-written on purpose: the grammar is tiny and the errors must name what was
wrong.
"""

from __future__ import annotations

import math
import re

__all__ = ["COUNT_LIMIT", "MAX_DIGITS", "QUANTITY", "SIZE_SCALES", "SIZE_UNITS",
           "TIME_SCALES", "TIME_UNITS", "UnitError", "digits", "format_size", "format_time",
           "int_words", "is_quantity", "parse_bandwidth", "parse_quantity", "parse_size",
           "parse_time", "shorten", "unit_kind"]


class UnitError(ValueError):
    """A value that is not a valid time, size or bandwidth."""


COUNT_LIMIT = 2**63
"""Sizes stay below this (an MPI_Count is a signed 64-bit integer)."""
MAX_DIGITS = 400
"""Numbers written with more digits than this are refused before they are converted: far
beyond any value a setting accepts (an MPI_Count has 19 digits, a double's range ends near
1e308), and short of Python's limit on converting text to an integer (4300 digits), which
would otherwise escape as a bare ValueError."""

# Sub-second units divide (5 / 1e6 is exactly the double nearest 5e-6; 5 * 1e-6 is not).
_TIME_DIV = {"ms": 1e3, "us": 1e6, "µs": 1e6, "ns": 1e9, "ps": 1e12}
_TIME_MUL = {"": 1.0, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
TIME_UNITS = (*_TIME_DIV, *(u for u in _TIME_MUL if u))
"""Every time unit word."""
_SIZE = {"": 1, "B": 1, "byte": 1, "bytes": 1,
         "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
         "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
SIZE_UNITS = tuple(u for u in _SIZE if u)
"""Every size unit word (bytes)."""
_BITS = {"b": 1, "kb": 10**3, "Kb": 10**3, "Mb": 10**6, "Gb": 10**9, "Tb": 10**12}
_BANDWIDTH_UNITS = (*(f"{u}/s" for u in _SIZE), *(f"{u}/s" for u in _BITS))

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_PATTERN = re.compile(rf"^\s*({_NUMBER})\s*([A-Za-zµ/]*)\s*$")
_WORDS = sorted({*TIME_UNITS, *SIZE_UNITS, *(u for u in _BANDWIDTH_UNITS if u != "/s")},
                key=len, reverse=True)
QUANTITY = re.compile(r"(?<![\w.])((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*("
                      + "|".join(re.escape(w) for w in _WORDS) + r")(?![\w/])")
"""A number directly followed by a unit word, as found inside an expression (never valid
Python, so replacing it by its value cannot change an expression that parses without it)."""


_LOG10_2 = math.log10(2)
_MAX_BITS = int(MAX_DIGITS / _LOG10_2)


def _split(value: object, what: str) -> tuple[float | int, str]:
    if isinstance(value, bool):
        raise UnitError(f"expected a {what}, got {_shown(value)}")
    if isinstance(value, int) and value.bit_length() > _MAX_BITS:
        raise UnitError(f"{int_words(value)} is out of range (at most {MAX_DIGITS} digits)")
    if isinstance(value, int | float):
        return value, ""
    if not isinstance(value, str):
        raise UnitError(f"expected a {what}, got {type(value).__name__} {_shown(value)}")
    m = _PATTERN.match(value)
    if not m:
        raise UnitError(f"cannot read {_shown(value)} as a {what}")
    text = m.group(1)
    if digits(text) > MAX_DIGITS:
        raise UnitError(f"a number of {digits(text)} digits is out of range (at most "
                        f"{MAX_DIGITS} digits)")
    number: float | int = int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)
    return number, m.group(2)


def digits(text: str) -> int:
    """How many digits a number's text has (its mantissa; the exponent is bounded apart)."""
    return sum(c.isdigit() for c in re.split(r"[eE]", text, maxsplit=1)[0])


def int_words(number: int) -> str:
    """A whole number as an error message shows it: itself when short, else how many digits
    it has (converting a huge integer to text is itself refused by Python)."""
    if number.bit_length() <= 64:
        return str(number)
    if number.bit_length() > 14_000:  # beyond what str() converts
        return f"a number of about {int(number.bit_length() * _LOG10_2) + 1} digits"
    return f"a number of {len(str(abs(number)))} digits"


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters for an error message (``…`` and its length)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _shown(value: object) -> str:
    """A value as an error message quotes it: long text cut, a huge integer by its digits."""
    if isinstance(value, str):
        return repr(shorten(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return int_words(value)
    return repr(value)


def is_quantity(text: str) -> bool:
    """True for ``"64 KiB"``, ``"5us"``, ``"1e3"``: a number with an optional unit word."""
    return bool(_PATTERN.match(text))


def unit_kind(unit: str) -> str | None:
    """``"time"``, ``"size"`` or ``"bandwidth"`` for a unit word, ``"number"`` for none,
    None for a word that is no unit."""
    if unit == "":
        return "number"
    if unit in _TIME_DIV or unit in _TIME_MUL:
        return "time"
    if unit in _SIZE:
        return "size"
    if unit in _BANDWIDTH_UNITS:
        return "bandwidth"
    return None


def parse_time(value: object) -> float:
    """Seconds from ``1.5e-6``, ``"1us"``, ``"2 ms"``, ``"1min"``; negative or non-finite
    times are refused."""
    number, unit = _split(value, "time (e.g. '1us')")
    if unit not in _TIME_DIV and unit not in _TIME_MUL:
        raise UnitError(f"unknown time unit {shorten(unit)!r} in {_shown(value)} (use s, ms, "
                        "us, ns, min, h)")
    try:
        seconds = (number / _TIME_DIV[unit] if unit in _TIME_DIV
                   else float(number) * _TIME_MUL[unit])
    except OverflowError:  # a whole number beyond a double
        seconds = math.inf
    if not math.isfinite(seconds) or seconds < 0:
        raise UnitError(f"time must be finite and non-negative, got {_shown(value)}")
    return seconds


def parse_size(value: object, *, allow_negative: bool = False) -> int:
    """Whole bytes from ``4096``, ``"64 KiB"``, ``"1.5 MB"``; below 2**63 (an MPI_Count)."""
    number, unit = _split(value, "size (e.g. '64 KiB')")
    if unit not in _SIZE:
        if unit in _BITS:
            raise UnitError(f"{shorten(unit)!r} in {_shown(value)} is bits: a size is in bytes "
                            "(B, KiB, MiB, kB, MB)")
        raise UnitError(f"unknown size unit {shorten(unit)!r} in {_shown(value)} (use B, KiB, "
                        "MiB, GiB, kB, MB)")
    if isinstance(number, int):
        nbytes = number * _SIZE[unit]
    else:
        exact = number * _SIZE[unit]
        if not math.isfinite(exact):
            raise UnitError(f"size {_shown(value)} is too large (an MPI_Count is below 2**63 "
                            "bytes)")
        if exact != int(exact):
            raise UnitError(f"size must be a whole number of bytes, got {_shown(value)}")
        nbytes = int(exact)
    if nbytes < 0 and not allow_negative:
        raise UnitError(f"size must be non-negative, got {_shown(value)}")
    if abs(nbytes) >= COUNT_LIMIT:
        raise UnitError(f"size {_shown(value)} is too large (an MPI_Count is below 2**63 bytes)")
    return nbytes


def parse_bandwidth(value: object) -> float:
    """Bytes per second from ``1e10``, ``"10 GB/s"``, ``"100 Gb/s"`` (bits), ``"8 GiB/s"``."""
    number, unit = _split(value, "bandwidth (e.g. '10 GB/s')")
    if unit in ("", "/s"):
        factor = 1.0
    elif unit.endswith("/s") and unit[:-2] in _SIZE:
        factor = float(_SIZE[unit[:-2]])
    elif unit.endswith("/s") and unit[:-2] in _BITS:
        factor = _BITS[unit[:-2]] / 8.0
    else:
        raise UnitError(f"unknown bandwidth unit {shorten(unit)!r} in {_shown(value)} (use "
                        "GB/s, MB/s, Gb/s)")
    try:
        bw = number * factor
    except OverflowError:
        bw = math.inf
    if not math.isfinite(bw) or bw <= 0:
        raise UnitError(f"bandwidth must be positive and finite, got {_shown(value)}")
    return float(bw)


def parse_quantity(text: str) -> tuple[str, float | int]:
    """A number with any unit: (kind, value) with kind ``time`` (seconds), ``size`` (bytes),
    ``bandwidth`` (bytes/s) or ``number`` (no unit; an int when written as one). UnitError
    for an unknown unit or a value out of bounds."""
    number, unit = _split(text, "number with a unit (e.g. 64 KiB, 5us, 10 GB/s)")
    kind = unit_kind(unit)
    if kind is None:
        if unit in _BITS:
            parse_size(text)  # says why
        raise UnitError(f"unknown unit {shorten(unit)!r} in {_shown(text)} (times: s, ms, us, "
                        "ns, min, h; sizes: B, KiB, MiB, kB, MB; bandwidths: GB/s, Gb/s)")
    if kind == "number":
        if isinstance(number, float) and not math.isfinite(number):
            raise UnitError(f"a number must be finite, got {_shown(text)}")
        return kind, number
    parse = {"time": parse_time, "size": parse_size, "bandwidth": parse_bandwidth}[kind]
    return kind, parse(text)


TIME_SCALES = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
"""Units times are shown in (reports, plot axes), largest first."""
SIZE_SCALES = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
"""Units sizes are shown in (reports, plot axes), largest first; bytes below."""


def format_time(seconds: float | None) -> str:
    """A readable simulated time: ``1.2 µs``, ``3.5 ms``, ``0 s``."""
    if seconds is None or seconds != seconds:
        return "-"
    if seconds == 0:
        return "0 s"
    for unit, scale in TIME_SCALES:
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-12:.4g} ps"


def format_size(nbytes: int | None) -> str:
    """A readable size: exact bytes below 1 KiB, else KiB/MiB/GiB with the bytes kept."""
    if nbytes is None:
        return "-"
    if abs(nbytes) < 1024:
        return f"{nbytes} B"
    for unit, scale in SIZE_SCALES:
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.4g} {unit} ({nbytes} B)"
    return f"{nbytes} B"
