"""Rank selectors: which ranks run a ``programs`` entry.

``ranks:`` of a programs entry is one of

- ``all``, ``even``, ``odd``;
- a rank number, ``3``, or a list of them, ``[0, 2]`` (items may be expressions: ``size - 1``);
- an inclusive range ``"A..B"`` whose ends are expressions: ``"1..size-1"``;
- an expression. Without ``rank`` in it, it names one rank (``"size - 1"``); with ``rank`` it
  is a condition tried for every rank (``"rank % 4 == 0"``, ``"rank > 0 and rank < size-1"``).

Names available: ``rank`` (conditions only), ``size``, params and the MPI constants.
Selectors are resolved when the scenario is loaded (and again after overrides change
``ranks`` or params), so a rank outside ``0..size-1`` is a load-time problem.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .expr import CONSTANTS, ExprError, parse_expr
from .values import Invalid, describe
from .yamlload import Ambiguous

__all__ = ["select"]

_RANGE = re.compile(r"^\s*(.+?)\s*\.\.\s*(.+?)\s*$")


def select(value: Any, size: int, params: dict[str, Any]) -> frozenset[int]:
    """The ranks ``value`` selects among ``size``; Invalid with the reason otherwise."""
    env = {**CONSTANTS, **params, "size": size}
    if isinstance(value, Ambiguous):
        raise Invalid(value.reason)
    if isinstance(value, bool) or value is None:
        raise Invalid(f"expected a rank selector (all, even, odd, N, [list], 'A..B' or an "
                      f"expression), got {describe(value)}")
    if isinstance(value, int | float):
        return frozenset([_rank(value, size, str(value))])
    if isinstance(value, list):
        return frozenset(_item(item, env, size) for item in value)
    if not isinstance(value, str):
        raise Invalid(f"expected a rank selector, got {describe(value)}")
    word = value.strip()
    if word == "all":
        return frozenset(range(size))
    if word in ("even", "odd"):
        return frozenset(range(0 if word == "even" else 1, size, 2))
    match = _RANGE.match(word)
    if match:
        lo = _rank(_value(match.group(1), env), size, match.group(1))
        hi = _rank(_value(match.group(2), env), size, match.group(2))
        if lo > hi:
            raise Invalid(f"the range {word!r} is empty ({lo} > {hi})")
        return frozenset(range(lo, hi + 1))
    return _expression(word, env, size)


def _item(item: Any, env: dict[str, Any], size: int) -> int:
    if isinstance(item, str):
        return _rank(_value(item, env), size, item)
    if isinstance(item, Ambiguous):
        raise Invalid(item.reason)
    if isinstance(item, bool) or not isinstance(item, int | float):
        raise Invalid(f"a list of ranks holds rank numbers, not {describe(item)}")
    return _rank(item, size, str(item))


def _expression(text: str, env: dict[str, Any], size: int) -> frozenset[int]:
    try:
        expr = parse_expr(text)
    except ExprError as e:
        raise Invalid(f"{e} (a selector is all, even, odd, N, [list], 'A..B' or an "
                      "expression)") from None
    _check_names(expr.names, env, allow_rank=True)
    try:
        if "rank" not in expr.names:
            return frozenset([_rank(expr.evaluate(env), size, text)])
        return frozenset(r for r in range(size) if expr.evaluate({**env, "rank": r}))
    except ExprError as e:
        raise Invalid(str(e)) from None


def _value(text: str, env: dict[str, Any]) -> Any:
    try:
        expr = parse_expr(text)
        _check_names(expr.names, env, allow_rank=False)
        return expr.evaluate(env)
    except ExprError as e:
        raise Invalid(str(e)) from None


def _check_names(names: frozenset[str], env: dict[str, Any], allow_rank: bool) -> None:
    for name in sorted(names):
        if name == "rank" and allow_rank:
            continue
        if name not in env:
            hint = " (rank is only allowed in a condition)" if name == "rank" else ""
            raise Invalid(f"undefined name {name!r}{hint}")


def _rank(value: Any, size: int, text: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and not (math.isfinite(value) and value.is_integer())):
        raise Invalid(f"{text!r} is not a rank number ({describe(value)})")
    rank = int(value)
    if not 0 <= rank < size:
        raise Invalid(f"rank {rank} is not in 0..{size - 1} (ranks: {size})")
    return rank
