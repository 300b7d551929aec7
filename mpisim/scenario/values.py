"""Reading one typed value from a scenario file: whole numbers, sizes, times, choices.

The readers are :mod:`mpisim.values.readers`' (the same whoever gives a value: a scenario file,
``--set``, ``--vary`` or ``mpisim.run``); this module adds what only scenarios need:
:func:`is_unit_literal` (a param's text read as a number) and :func:`convert` (an op's
argument). A YAML 1.1 ambiguity (:class:`~mpisim.scenario.yamlload.Ambiguous`: ``on``,
``010``, ``1:30``) is a :class:`~mpisim.values.readers.Refused` value every reader refuses with its
reason.
"""

from __future__ import annotations

from typing import Any

from ..values.readers import (
    INT_LIMIT,
    Invalid,
    describe,
    hint,
    read_bandwidth,
    read_bool,
    read_choice,
    read_int,
    read_size,
    read_text,
    read_time,
)
from ..values.units import is_quantity

__all__ = ["INT_LIMIT", "Invalid", "convert", "describe", "hint", "is_unit_literal",
           "read_bandwidth", "read_bool", "read_choice", "read_int", "read_size", "read_text",
           "read_time"]

def is_unit_literal(text: str) -> bool:
    """True for ``"64 KiB"``, ``"5us"``, ``"1e3"``: a number with an optional unit word."""
    return is_quantity(text)


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
