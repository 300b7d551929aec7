"""Reading the values of a varied key: lists, ranges, unit strings.

``parse_values`` turns the text after ``--vary KEY=`` into the list a sweep runs over:

- a comma-separated list: ``"1,2,4"``, ``"circular,first-fit"``, ``"1us,5us"``;
- an arithmetic range, inclusive: ``"0..100:10"`` -> 0, 10, ..., 100; ``"0..64KiB:16KiB"``;
  ``"1..4"`` (whole numbers, step 1);
- a geometric range, inclusive: ``"1KiB..64KiB:x2"`` -> 1024, 2048, ..., 65536;
- items of a list may themselves be ranges: ``"0,1KiB..4KiB:x2"``.

Each item is read as the most specific thing it can be, so that the table's column holds
numbers a plot can use: an integer (``"4096"``, ``"1e3"``), a float (``"2.5"``), a size with a
unit in whole bytes (``"64 KiB"`` -> 65536), a time with a unit in seconds (``"5us"`` ->
5e-06), a bandwidth in bytes per second (``"10 GB/s"`` -> 1e10), ``true``/``false``, or else
the text itself (``"first-fit"``). Numbers with units are read by :mod:`mpisim.values.units`, as in
a scenario file, ``--set`` and expressions, so ``KiB`` is 1024 and ``kB`` 1000.
A range whose ends are whole bytes stays whole bytes (a fractional factor
rounds each value to the nearest byte, repeats dropped); other ranges are floats kept to 12
significant digits, so ``0..1:0.1`` gives 0.3, not 0.30000000000000004. A range never yields
more than ``MAX_VALUES`` values: a typo such as ``0..1e9:1`` is an error, not a billion runs.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..values.units import UnitError, is_quantity, parse_quantity

__all__ = ["MAX_VALUES", "parse_value", "parse_values"]

MAX_VALUES = 100_000
"""The most values one ``--vary`` may expand to."""

_INT = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")
_RANGE = re.compile(r"^(?P<start>.+?)\.\.(?P<end>[^:]+)(?::(?P<step>.+))?$")
_EPS = 1e-9


def parse_value(text: str) -> Any:
    """One value: int, float, size (bytes), time (seconds), bandwidth (B/s), bool or text;
    a number with a unit read by :func:`mpisim.values.units.parse_quantity`, as everywhere."""
    item = text.strip()
    if not item:
        raise ValueError("empty value")
    if _INT.match(item):
        return int(item)
    if _FLOAT.match(item):
        number = float(item)
        if "." not in item and number.is_integer() and math.isfinite(number):
            return int(number)  # "1e3": a whole number written with an exponent
        return number
    if is_quantity(item):
        try:
            return parse_quantity(item)[1]
        except UnitError as e:
            raise ValueError(str(e)) from None
    if item.lower() in ("true", "false"):
        return item.lower() == "true"
    return item


def parse_values(text: str) -> list[Any]:
    """The values of ``text``: a comma-separated list whose items may be ranges.

    Parameters
    ----------
    text
        What ``--vary KEY=`` takes: ``"1,2,4"``, ``"0..100:25"`` (an arithmetic range,
        inclusive), ``"1KiB..64KiB:x2"`` (a geometric one), items with units (sizes in
        bytes, times in seconds, bandwidths in bytes per second), ``true``/``false``, or
        words (``"circular,first-fit"``). At most 100,000 values.

    Returns
    -------
    list
        The values, read as int, float, bool or str (``"64 KiB"`` is 65536).

    Raises
    ------
    ValueError
        Text that is not a list of values, or a range of more than 100,000.

    Examples
    --------

    >>> parse_values("1KiB..8KiB:x2")
    [1024, 2048, 4096, 8192]
    >>> parse_values("0..100:25")
    [0, 25, 50, 75, 100]
    >>> parse_values("circular,first-fit")
    ['circular', 'first-fit']
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text such as '1,2,4' or '1KiB..64KiB:x2', got {text!r}")
    items = [part.strip() for part in text.split(",")]
    if not any(items):
        raise ValueError("no values given (expected e.g. '1,2,4' or '1KiB..64KiB:x2')")
    values: list[Any] = []
    for item in items:
        if not item:
            raise ValueError(f"empty item in {text!r}")
        m = _RANGE.match(item)
        if m is None and ".." in item:
            raise ValueError(f"range {item!r}: expected 'a..b:STEP' or 'a..b:xFACTOR'")
        values.extend(_range(item, m) if m else [parse_value(item)])
        if len(values) > MAX_VALUES:
            raise ValueError(f"{text!r} expands to more than {MAX_VALUES} values")
    return values


def _range(item: str, m: re.Match[str]) -> list[Any]:
    start, end = _number(m.group("start"), item), _number(m.group("end"), item)
    whole = isinstance(start, int) and isinstance(end, int)
    step = m.group("step") or ("1" if whole else None)
    if step is None:
        raise ValueError(f"range {item!r} needs a step: 'a..b:STEP' or 'a..b:xFACTOR'")
    if end < start:
        raise ValueError(f"range {item!r} runs backwards (end below start)")
    step = step.strip()
    if step[:1] in ("x", "*"):
        values = _geometric(item, start, end, _number(step[1:], item))
    else:
        inc = _number(step, item)
        whole = whole and isinstance(inc, int)
        values = _arithmetic(item, start, end, inc)
    return _whole(values) if whole else [_tidy(v) for v in values]


def _tidy(value: float) -> float:
    """A float kept to 12 significant digits (the noise of unit and step arithmetic gone)."""
    return float(f"{value:.12g}")


def _number(text: str, item: str) -> int | float:
    value = parse_value(text)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"range {item!r}: {text.strip()!r} is not a number, size or time")
    return value


def _arithmetic(item: str, start: float, end: float, step: float) -> list[Any]:
    if step <= 0:
        raise ValueError(f"range {item!r}: the step must be positive")
    slack = 1e-6 + 1e-12 * max(abs(start), abs(end)) / step  # inclusive end despite rounding
    count = math.floor((end - start) / step + slack) + 1
    if count > MAX_VALUES:
        raise ValueError(f"range {item!r} has {count} values, more than {MAX_VALUES}")
    return [start + i * step for i in range(count)]


def _geometric(item: str, start: float, end: float, factor: float) -> list[Any]:
    if factor <= 1:
        raise ValueError(f"range {item!r}: the factor must be above 1 (e.g. x2)")
    if start <= 0:
        raise ValueError(f"range {item!r}: a geometric range must start above 0")
    values: list[Any] = []
    i = 0
    while True:
        value = start * factor ** i
        if value > end * (1 + _EPS):
            return values
        values.append(value)
        i += 1
        if len(values) > MAX_VALUES:
            raise ValueError(f"range {item!r} has more than {MAX_VALUES} values")


def _whole(values: list[Any]) -> list[int]:
    """Whole numbers for ranges of whole numbers (bytes stay bytes); repeats dropped."""
    out: list[int] = []
    for v in values:
        n = int(v) if isinstance(v, int) else round(v)
        if not out or out[-1] != n:
            out.append(n)
    return out
