"""Unit strings for times, sizes and bandwidths.

``"1us"``, ``"2.5 ms"``, ``"64 KiB"``, ``"10 GB/s"``. Binary prefixes (KiB, MiB, GiB, TiB)
are powers of 1024, decimal ones (kB/KB, MB, GB, TB) powers of 1000, as in IEC 80000-13.
Sizes must come out as whole bytes; bandwidth is bytes per second (``Gb/s`` with a lower-case
``b`` is bits). Plain numbers pass through (seconds, bytes, bytes/s). Kept small and
hand-written on purpose: the grammar is tiny and the errors must name what was wrong.
"""

from __future__ import annotations

import math
import re

__all__ = ["UnitError", "format_size", "format_time", "parse_bandwidth", "parse_size", "parse_time"]


class UnitError(ValueError):
    """A value that is not a valid time, size or bandwidth."""


_NUMBER = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
_PATTERN = re.compile(rf"^\s*{_NUMBER}\s*([A-Za-zµ/]*)\s*$")

# Sub-second units divide (5 / 1e6 is exactly the double nearest 5e-6; 5 * 1e-6 is not).
_TIME_DIV = {"ms": 1e3, "us": 1e6, "µs": 1e6, "ns": 1e9, "ps": 1e12}
_TIME_MUL = {"": 1.0, "s": 1.0, "sec": 1.0, "min": 60.0}
_SIZE = {"": 1, "b": 1, "B": 1, "byte": 1, "bytes": 1,
         "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
         "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}


def _split(value: object, what: str) -> tuple[float, str]:
    if isinstance(value, bool):
        raise UnitError(f"expected a {what}, got {value!r}")
    if isinstance(value, int | float):
        return float(value), ""
    if not isinstance(value, str):
        raise UnitError(f"expected a {what}, got {type(value).__name__} {value!r}")
    m = _PATTERN.match(value)
    if not m:
        raise UnitError(f"cannot read {value!r} as a {what}")
    return float(m.group(1)), m.group(2)


def parse_time(value: object) -> float:
    """Seconds from ``1.5e-6``, ``"1us"``, ``"2 ms"``; negative or non-finite times are refused."""
    number, unit = _split(value, "time (e.g. '1us')")
    if unit in _TIME_DIV:
        seconds = number / _TIME_DIV[unit]
    elif unit in _TIME_MUL:
        seconds = number * _TIME_MUL[unit]
    else:
        raise UnitError(f"unknown time unit {unit!r} in {value!r} (use s, ms, us, ns)")
    if not math.isfinite(seconds) or seconds < 0:
        raise UnitError(f"time must be finite and non-negative, got {value!r}")
    return seconds


def parse_size(value: object, *, allow_negative: bool = False) -> int:
    """Whole bytes from ``4096``, ``"64 KiB"``, ``"1.5 MB"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        number, unit = value, ""
    else:
        number, unit = _split(value, "size (e.g. '64 KiB')")
    if unit not in _SIZE:
        raise UnitError(f"unknown size unit {unit!r} in {value!r} (use B, KiB, MiB, GiB, kB, MB)")
    if isinstance(number, int):
        nbytes = number * _SIZE[unit]
    else:
        if not math.isfinite(number):
            raise UnitError(f"size must be finite, got {value!r}")
        exact = number * _SIZE[unit]
        if exact != int(exact):
            raise UnitError(f"size must be a whole number of bytes, got {value!r}")
        nbytes = int(exact)
    if nbytes < 0 and not allow_negative:
        raise UnitError(f"size must be non-negative, got {value!r}")
    return nbytes


def parse_bandwidth(value: object) -> float:
    """Bytes per second from ``1e10``, ``"10 GB/s"``, ``"100 Gb/s"`` (bits), ``"8 GiB/s"``."""
    number, unit = _split(value, "bandwidth (e.g. '10 GB/s')")
    if unit in ("", "B/s"):
        factor = 1.0
    elif unit.endswith("/s") and unit[:-2] in _SIZE:
        factor = float(_SIZE[unit[:-2]])
    elif unit.endswith("b/s") and (unit[:-3] + "B") in _SIZE:
        factor = _SIZE[unit[:-3] + "B"] / 8.0
    else:
        raise UnitError(f"unknown bandwidth unit {unit!r} in {value!r} (use GB/s, MB/s, Gb/s)")
    bw = number * factor
    if not math.isfinite(bw) or bw <= 0:
        raise UnitError(f"bandwidth must be positive and finite, got {value!r}")
    return bw


def format_time(seconds: float | None) -> str:
    """A readable simulated time: ``1.2 µs``, ``3.5 ms``, ``0 s``."""
    if seconds is None or seconds != seconds:
        return "-"
    if seconds == 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-12:.4g} ps"


def format_size(nbytes: int | None) -> str:
    """A readable size: exact bytes below 1 KiB, else KiB/MiB/GiB with the bytes kept."""
    if nbytes is None:
        return "-"
    if abs(nbytes) < 1024:
        return f"{nbytes} B"
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.4g} {unit} ({nbytes} B)"
    return f"{nbytes} B"
