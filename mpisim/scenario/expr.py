"""Expressions in scenario files, evaluated through an ``ast`` allow-list (never ``eval``).

Allowed: integer and float literals, numbers with a unit read by :mod:`mpisim.values.units` as
everywhere else (``5us``, ``2.5 ms`` and ``1min`` are seconds, ``64 KiB`` and ``16 B`` bytes,
``10 GB/s`` bytes per second, so ``(size - rank) * 5us`` works), text literals (for comparing
text params), the names in scope, ``+ - * / // % **``, unary ``- + not``, comparisons
(``== != < <= > >=``, chained), ``and``/``or``, the conditional expression
``a if cond else b``, and calls of ``min``, ``max`` and ``abs``. Everything else
(attributes, indexing, other calls, lambdas, comprehensions, bit operators, ``in``/``is``)
is refused when the file is loaded.

Names in scope: ``rank``, ``size``, ``BSEND_OVERHEAD``, the constants ``ANY_SOURCE``,
``ANY_TAG``, ``PROC_NULL``, ``UNDEFINED``, ``TAG_UB``, the scenario's params, loop variables
and status variables. Which of these are in scope where is decided by the caller
(:mod:`mpisim.scenario.ops`); this module reports the names an expression uses.

Bounds, so that a scenario cannot make evaluation hang or exhaust memory: an expression is at
most 500 characters; whole numbers stay below 2**256 in magnitude (``**`` checks before it
computes); arithmetic applies to numbers only (``'a' * 10**9`` is refused). Evaluation
errors (division by zero, comparing text with numbers) raise :class:`ExprError` with the
expression's text; callers add the location.

Parsed expressions are trees of tuples, so they pickle (scenarios travel to worker
processes).
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from ..mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB, UNDEFINED
from ..values.units import QUANTITY, UnitError, parse_quantity
from .evaluate import ExprError, Unset, closure

__all__ = ["CONSTANTS", "FUNCTIONS", "RESERVED", "Expr", "ExprError", "constant", "parse_expr"]

CONSTANTS: dict[str, int] = {"ANY_SOURCE": ANY_SOURCE, "ANY_TAG": ANY_TAG,
                             "PROC_NULL": PROC_NULL, "UNDEFINED": UNDEFINED, "TAG_UB": TAG_UB}
FUNCTIONS = ("min", "max", "abs")
RESERVED = frozenset({"rank", "size", "BSEND_OVERHEAD", *CONSTANTS, *FUNCTIONS,
                      "True", "False", "None"})
"""Names a param, loop variable or status variable may not take."""

MAX_LENGTH = 500


_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">="}
"""The operators allowed, by their symbol (what each computes: :data:`.evaluate.OPS`)."""
_REFUSED = {ast.Attribute: "attribute access", ast.Subscript: "indexing",
            ast.Lambda: "lambda", ast.ListComp: "comprehensions",
            ast.GeneratorExp: "comprehensions", ast.DictComp: "comprehensions",
            ast.SetComp: "comprehensions", ast.List: "lists", ast.Tuple: "tuples",
            ast.Dict: "mappings", ast.Set: "sets", ast.NamedExpr: "assignment (:=)",
            ast.Starred: "starred arguments", ast.JoinedStr: "f-strings",
            ast.Slice: "slices"}


class Expr:
    """A parsed expression: ``source`` (its text), ``names`` (the names it uses).

    ``tree`` (tuples) is what pickles; the first evaluation turns it into nested closures,
    kept per process, so evaluating costs a few Python calls and no tree walk."""

    __slots__ = ("fn", "names", "source", "tree")

    def __init__(self, source: str, tree: tuple, names: frozenset[str]) -> None:
        self.source = source
        self.tree = tree
        self.names = names
        self.fn: Any = None

    def __getstate__(self) -> tuple:
        return (self.source, self.tree, self.names)

    def __setstate__(self, state: tuple) -> None:
        self.source, self.tree, self.names = state
        self.fn = None

    def __repr__(self) -> str:
        return f"Expr({self.source!r})"

    @property
    def is_constant(self) -> bool:
        return self.tree[0] == "c"

    def evaluate(self, env: dict[str, Any]) -> Any:
        """The value with ``env`` giving the names; ExprError on failure."""
        fn = self.fn
        if fn is None:
            fn = self.fn = closure(self.tree)
        try:
            return fn(env)
        except Unset as e:
            where = "" if self.source == e.args[0] else f" in {self.source!r}"
            raise ExprError(f"name {e.args[0]!r} has no value yet{where}") from None
        except ExprError as e:
            raise ExprError(f"{e} in {self.source!r}") from None
        except ZeroDivisionError:
            raise ExprError(f"division by zero in {self.source!r}") from None
        except OverflowError:
            raise ExprError(f"number too large in {self.source!r}") from None
        except TypeError as e:
            raise ExprError(f"{e} in {self.source!r}") from None


def constant(value: Any, source: str | None = None) -> Expr:
    """An expression that is just ``value``."""
    return Expr(repr(value) if source is None else source, ("c", value), frozenset())


def _units(match: re.Match[str]) -> str:
    """A number with a unit (``QUANTITY``) replaced by its value, read as everywhere else."""
    try:
        return repr(parse_quantity(match.group(0))[1])
    except UnitError as e:
        raise ExprError(str(e)) from None


def parse_expr(text: str) -> Expr:
    """Parse ``text`` against the allow-list; ExprError naming what is not allowed."""
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression longer than {MAX_LENGTH} characters")
    try:
        node = ast.parse(QUANTITY.sub(_units, text.strip()), mode="eval").body
    except SyntaxError as e:
        raise ExprError(f"cannot read {text!r} as an expression ({e.msg})") from None
    except (ValueError, RecursionError, MemoryError):
        raise ExprError(f"cannot read {text!r} as an expression") from None
    names: set[str] = set()
    try:
        tree = _convert(node, names)
    except RecursionError:
        raise ExprError(f"expression {text!r} is nested too deeply") from None
    except ExprError as e:
        raise ExprError(f"{e} in {text!r}") from None
    return Expr(text.strip(), tree, frozenset(names))


def _constant(node: ast.Constant) -> tuple:
    """A literal: a finite number within 64 bits, text, True or False."""
    value = node.value
    if isinstance(value, bool | str) or (isinstance(value, float) and math.isfinite(value)):
        return ("c", value)
    if isinstance(value, int):
        if value.bit_length() > 63:
            raise ExprError(f"the number {value} is out of range")
        return ("c", value)
    raise ExprError(f"{value!r} is not allowed (numbers, text, True, False only)")


def _comparison(node: ast.Compare, names: set[str]) -> tuple:
    """A chain of comparisons (``a < b <= c``), each operator one the language allows."""
    pairs = []
    for op, right in zip(node.ops, node.comparators, strict=True):
        cmp = _COMPARE.get(type(op))
        if cmp is None:
            raise ExprError(f"the comparison {_symbol(op)} is not allowed")
        pairs.append((cmp, _convert(right, names)))
    return ("cmp", _convert(node.left, names), tuple(pairs))


def _convert(node: ast.AST, names: set[str]) -> tuple:
    if isinstance(node, ast.Constant):
        return _constant(node)
    if isinstance(node, ast.Name):
        names.add(node.id)
        return ("n", node.id)
    if isinstance(node, ast.BinOp):
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ExprError(f"the operator {_symbol(node.op)} is not allowed")
        return ("b", op, _convert(node.left, names), _convert(node.right, names))
    if isinstance(node, ast.UnaryOp):
        kind = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not"}.get(type(node.op))
        if kind is None:
            raise ExprError("the operator ~ is not allowed")
        return ("u", kind, _convert(node.operand, names))
    if isinstance(node, ast.BoolOp):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        return (kind, tuple(_convert(v, names) for v in node.values))
    if isinstance(node, ast.Compare):
        return _comparison(node, names)
    if isinstance(node, ast.IfExp):
        return ("if", _convert(node.test, names), _convert(node.body, names),
                _convert(node.orelse, names))
    if isinstance(node, ast.Call):
        return _call(node, names)
    what = _REFUSED.get(type(node), type(node).__name__)
    raise ExprError(f"{what} not allowed")


def _call(node: ast.Call, names: set[str]) -> tuple:
    func = node.func.id if isinstance(node.func, ast.Name) else None
    if func not in FUNCTIONS:
        shown = f"{func}()" if func else "a computed function"
        raise ExprError(f"calling {shown} is not allowed (only min, max, abs)")
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        raise ExprError(f"{func}() takes plain arguments only")
    if func == "abs" and len(node.args) != 1:
        raise ExprError("abs() takes exactly one argument")
    if func != "abs" and len(node.args) < 2:
        raise ExprError(f"{func}() takes at least two arguments")
    return ("f", func, tuple(_convert(a, names) for a in node.args))


def _symbol(op: ast.AST) -> str:
    return {ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
            ast.BitXor: "^", ast.MatMult: "@", ast.In: "in", ast.NotIn: "not in",
            ast.Is: "is", ast.IsNot: "is not"}.get(type(op), type(op).__name__)
