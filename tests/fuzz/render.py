"""Values written as YAML text, whatever their size (Python refuses str() of integers beyond
4300 digits: the fuzz tests lift that limit while they write a file, never while mpisim
reads one)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any


def yaml_text(value: Any) -> str:
    """``value`` as a YAML flow scalar, sequence or mapping."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            return int.__repr__(value)  # (a subclass may show itself otherwise)
        finally:
            sys.set_int_max_str_digits(old)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(yaml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {yaml_text(v)}"
                               for k, v in value.items()) + "}"
    raise TypeError(type(value).__name__)
