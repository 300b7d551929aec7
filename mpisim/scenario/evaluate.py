"""How a scenario expression is evaluated: its parsed tree (:mod:`.expr`) made into closures
of the environment, each step checked.

An expression is parsed once, when the file is loaded, into a tree of tuples (which pickle);
the first evaluation turns the tree into nested closures (``closure``), each taking the
environment (``rank``, ``size``, the params, loop and status variables) and computing its
part with the bounds :mod:`.expr` states: arithmetic on numbers only, whole numbers below
2**256 in magnitude (``**`` checked before it computes), finite results. A failure raises
:class:`ExprError` (or :class:`Unset` for a name with no value yet), which
:meth:`.expr.Expr.evaluate` completes with the expression's text.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

__all__ = ["OPS", "ExprError", "Unset", "closure", "power"]

INT_BITS = 256
_BIG = 1 << INT_BITS

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge}
"""The binary and comparison operators, by their symbol in a parsed tree."""


class ExprError(ValueError):
    """An expression that cannot be read or evaluated; the message quotes it."""


class Unset(Exception):
    """A name with no value in the environment (a status variable not yet set)."""


def _number(value: Any, op: str) -> Any:
    if isinstance(value, int | float):
        return value
    raise ExprError(f"{op} needs numbers, got {value!r}")


def _checked(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > INT_BITS:
        raise ExprError("a whole number beyond 2**256")
    if isinstance(value, float) and not math.isfinite(value):
        raise ExprError("the result is not a finite number")
    return value


def power(base: Any, exp: Any) -> Any:
    if isinstance(base, int) and isinstance(exp, int) and exp > 0 and abs(base) > 1 \
            and (abs(base).bit_length() - 1) * exp > INT_BITS:
        raise ExprError("a whole number beyond 2**256")
    if isinstance(exp, float) or isinstance(base, float):
        try:
            result = math.pow(base, exp)
        except ValueError:
            raise ExprError("the result is not a real number") from None
    else:
        result = base ** exp
    if isinstance(result, complex):
        raise ExprError("the result is not a real number")
    return result


_FUNCS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs}


def closure(tree: tuple) -> Any:
    """A function env -> value computing ``tree`` with the checks above."""
    kind = tree[0]
    if kind == "c":
        value = tree[1]
        return lambda env: value
    if kind == "n":
        return _name(tree[1])
    if kind == "b":
        return _binary(tree[1], closure(tree[2]), closure(tree[3]))
    if kind == "u":
        return _unary(tree[1], closure(tree[2]))
    if kind in ("and", "or"):
        return _boolean(kind, [closure(t) for t in tree[1]])
    if kind == "cmp":
        return _compare(closure(tree[1]), [(OPS[op], closure(t)) for op, t in tree[2]])
    if kind == "if":
        test, body, orelse = closure(tree[1]), closure(tree[2]), closure(tree[3])
        return lambda env: body(env) if test(env) else orelse(env)
    return _function(tree[1], [closure(t) for t in tree[2]])


def _name(name: str) -> Any:
    def get(env: dict[str, Any]) -> Any:
        try:
            return env[name]
        except KeyError:
            raise Unset(name) from None
    return get


def _binary(op: str, left: Any, right: Any) -> Any:
    fn = OPS[op]
    if op == "**":
        return lambda env: _checked(power(_number(left(env), op), _number(right(env), op)))

    def binary(env: dict[str, Any]) -> Any:
        a, b = left(env), right(env)
        if type(a) is int and type(b) is int:
            result = fn(a, b)
            if -_BIG < result < _BIG:
                return result
        return _checked(fn(_number(a, op), _number(b, op)))
    return binary


def _unary(op: str, operand: Any) -> Any:
    if op == "not":
        return lambda env: not operand(env)
    if op == "-":
        return lambda env: -_number(operand(env), op)
    return lambda env: +_number(operand(env), op)


def _boolean(kind: str, items: list[Any]) -> Any:
    def all_of(env: dict[str, Any]) -> Any:
        value: Any = True
        for item in items:
            value = item(env)
            if not value:
                return value
        return value

    def any_of(env: dict[str, Any]) -> Any:
        value: Any = False
        for item in items:
            value = item(env)
            if value:
                return value
        return value
    return all_of if kind == "and" else any_of


def _compare(first: Any, pairs: list[tuple[Any, Any]]) -> Any:
    def compare(env: dict[str, Any]) -> bool:
        left = first(env)
        for fn, right_fn in pairs:
            right = right_fn(env)
            if not fn(left, right):
                return False
            left = right
        return True
    return compare


def _function(name: str, args: list[Any]) -> Any:
    fn = _FUNCS[name]
    label = f"{name}()"
    return lambda env: fn(*[_number(a(env), label) for a in args])
