"""Reading one typed value from a scenario file: whole numbers, sizes, times, choices.

Each reader returns the value or raises :class:`Invalid` with a reason a user can act on
(``cannot read 'fast' as a time``; ``true is a boolean, not a number``). Shared rules:

- booleans are never numbers (YAML's ``true`` is not 1);
- an :class:`~mpisim.scenario.yamlload.Ambiguous` scalar (``on``, ``010``, ``1:30``) is refused
  with the reason it is ambiguous;
- a float with an integral value (``1e3``, ``4096.0``) is accepted where a whole number is
  expected; a quoted number (``"4096"``) is read as the number;
- sizes, times and bandwidths accept unit strings (``64 KiB``, ``5us``, ``10 GB/s``) as in
  :mod:`mpisim.units`.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..units import UnitError, parse_bandwidth, parse_size, parse_time
from .yamlload import Ambiguous

__all__ = ["INT_LIMIT", "Invalid", "convert", "describe", "hint", "is_unit_literal",
           "read_bandwidth", "read_bool", "read_choice", "read_int", "read_size", "read_text",
           "read_time"]

INT_LIMIT = 2**63
"""Whole numbers in scenarios stay below this magnitude (MPI counts are at most 64-bit)."""

_NUMBER = re.compile(r"^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$")
_UNIT_LITERAL = re.compile(r"^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*[A-Za-zµ/]*\s*$")


class Invalid(ValueError):
    """A value of the wrong kind; the message says what was expected and what was found."""


def describe(value: Any) -> str:
    """A short phrase naming a YAML value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, Ambiguous):
        return repr(value.text)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def is_unit_literal(text: str) -> bool:
    """True for ``"64 KiB"``, ``"5us"``, ``"1e3"``: a number with an optional unit word."""
    return bool(_UNIT_LITERAL.match(text))


def _refuse_special(value: Any, expected: str) -> None:
    if isinstance(value, Ambiguous):
        raise Invalid(value.reason)
    if isinstance(value, bool):
        raise Invalid(f"expected {expected}, got {describe(value)}")


def read_int(value: Any, *, minimum: int | None = None, maximum: int | None = None,
             what: str = "a whole number") -> int:
    """A whole number (``4096``, ``1e3``, ``"4096"``), optionally bounded."""
    _refuse_special(value, what)
    number: Any = value
    if isinstance(value, str) and _NUMBER.match(value):
        number = float(value) if re.search(r"[.eE]", value) else int(value)
    if isinstance(number, float):
        if not math.isfinite(number) or number != int(number):
            raise Invalid(f"expected {what}, got {describe(value)}")
        number = int(number)
    if not isinstance(number, int):
        raise Invalid(f"expected {what}, got {describe(value)}")
    return _bounded(number, minimum, maximum)


def _bounded(number: int, minimum: int | None, maximum: int | None) -> int:
    if abs(number) >= INT_LIMIT:
        raise Invalid(f"{number} is out of range")
    if minimum is not None and number < minimum:
        raise Invalid(f"must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise Invalid(f"must be at most {maximum}, got {number}")
    return number


def _units(parser: Callable[[Any], Any], value: Any, expected: str) -> Any:
    _refuse_special(value, expected)
    if not isinstance(value, int | float | str):
        raise Invalid(f"expected {expected}, got {describe(value)}")
    try:
        return parser(value)
    except UnitError as e:
        raise Invalid(str(e)) from None


def read_size(value: Any) -> int:
    """Bytes from ``4096``, ``"64 KiB"``, ``1e3``."""
    size = _units(parse_size, value, "a size (e.g. 64 KiB)")
    return _bounded(size, 0, None)


def read_time(value: Any) -> float:
    """Seconds from ``1e-6``, ``"1us"``."""
    return _units(parse_time, value, "a time (e.g. 1us)")


def read_bandwidth(value: Any) -> float:
    """Bytes per second from ``1e10``, ``"10 GB/s"``."""
    return _units(parse_bandwidth, value, "a bandwidth (e.g. 10 GB/s)")


def read_bool(value: Any) -> bool:
    """``true`` or ``false`` only."""
    if isinstance(value, Ambiguous):
        raise Invalid(value.reason)
    if not isinstance(value, bool):
        raise Invalid(f"expected true or false, got {describe(value)}")
    return value


def read_text(value: Any) -> str:
    """A string (quote it in YAML when it looks like a number or a YAML 1.1 boolean)."""
    if isinstance(value, Ambiguous):
        raise Invalid(value.reason)
    if not isinstance(value, str):
        raise Invalid(f"expected text, got {describe(value)}")
    return value


def read_choice(value: Any, choices: Sequence[str]) -> str:
    """One of ``choices``."""
    text = read_text(value)
    if text not in choices:
        raise Invalid(f"{text!r} is not one of {', '.join(choices)}")
    return text


def convert(kind: str, value: Any) -> Any:
    """A value as an argument of ``kind`` needs it: ``int``, ``size``, ``time`` or ``any``."""
    if kind == "int":
        if type(value) is int and -INT_LIMIT < value < INT_LIMIT:
            return value
        return read_int(value)
    if kind == "size":
        return read_size(value)
    if kind == "time":
        return read_time(value)
    return value


def hint(word: str, choices: Any) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or nothing."""
    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
