"""Scenario expressions: the ast allow-list, bounds, and evaluation."""

import contextlib
import operator
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpisim.scenario.expr import CONSTANTS, ExprError, parse_expr


def ev(text, **env):
    return parse_expr(text).evaluate(env)


@pytest.mark.parametrize("text, value", [
    ("1 - rank", 0), ("(rank + 1) % size", 2), ("count // 3", 3), ("count / 4", 2.5),
    ("2 ** 10", 1024), ("-count", -10), ("not rank", False), ("rank < 2 <= size", True),
    ("rank == 1 and size > 3", True), ("rank == 0 or 7", 7), ("3 if rank else 4", 3),
    ("min(count, 4, 6)", 4), ("max(1, rank)", 1), ("abs(1 - count)", 9),
    ("mode == 'fast'", True), ("1.5e3", 1500.0),
])
def test_allowed_expressions(text, value):
    assert ev(text, rank=1, size=4, count=10, mode="fast") == value


def test_names_are_reported():
    assert parse_expr("min(a, b) + rank * ANY_SOURCE").names == {"a", "b", "rank",
                                                                  "ANY_SOURCE"}


@pytest.mark.parametrize("text, what", [
    ("x.y", "attribute access"), ("x[0]", "indexing"), ("open('f')", "calling open()"),
    ("__import__('os')", "calling __import__()"), ("(lambda: 1)()", "a computed function"),
    ("lambda: 1", "lambda"), ("[i for i in x]", "comprehensions"), ("(1, 2)", "tuples"),
    ("1 << 3", "operator <<"), ("1 & 3", "operator &"), ("~1", "operator ~"),
    ("1 in x", "comparison in"), ("x is None", "comparison is"), ("None", "not allowed"),
    ("(y := 1)", "assignment"), ("f'{x}'", "f-strings"), ("min(*x)", "plain arguments"),
    ("max(key=1)", "plain arguments"), ("min(1)", "at least two"), ("abs(1, 2)", "one"),
    ("2 ** 64 ** 2", "2**256"), ("99999999999999999999999", "out of range"),
])
def test_refused_expressions_name_what_is_not_allowed(text, what):
    with pytest.raises(ExprError, match=r"not allowed|argument|2\*\*256|out of range") as e:
        parse_expr(text).evaluate({"x": [1]})
    assert what in str(e.value)


def test_syntax_error_is_an_expr_error():
    with pytest.raises(ExprError, match="cannot read '1 \\+' as an expression"):
        parse_expr("1 +")


def test_too_long_expression_is_refused():
    with pytest.raises(ExprError, match="longer than"):
        parse_expr("1" + " + 1" * 200)


@pytest.mark.parametrize("text, problem", [
    ("1 // 0", "division by zero"), ("1 % zero", "division by zero"),
    ("0 ** -1", "division by zero"), ("'a' * 3", "needs numbers"), ("'a' < 1", "'<'"),
    ("9 ** 9 ** 9", "beyond 2\\*\\*256"), ("10.0 ** 400", "too large|not a finite"),
    ("(-8) ** 0.5", "not a real number"), ("min('a', 1)", "needs numbers"),
    ("missing + 1", "has no value yet"),
])
def test_evaluation_errors_quote_the_expression(text, problem):
    with pytest.raises(ExprError, match=problem) as e:
        ev(text, zero=0)
    assert repr(parse_expr(text).source) in str(e.value)


def test_constants_are_mpi_values():
    import mpisim as ms

    assert CONSTANTS["ANY_SOURCE"] == ms.ANY_SOURCE and CONSTANTS["PROC_NULL"] == ms.PROC_NULL
    assert CONSTANTS["ANY_TAG"] == ms.ANY_TAG


def test_parsed_expressions_pickle():
    e = parse_expr("max(rank, 2) * size")
    again = pickle.loads(pickle.dumps(e))
    assert again.evaluate({"rank": 3, "size": 2}) == 6 and again.names == e.names


_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul}


@st.composite
def _trees(draw, depth=0):
    if depth > 3 or draw(st.booleans()):
        return draw(st.integers(-50, 50))
    return (draw(st.sampled_from(sorted(_OPS))), draw(_trees(depth + 1)),
            draw(_trees(depth + 1)))


def _render(tree):
    if isinstance(tree, int):
        return f"({tree})"
    return f"({_render(tree[1])} {tree[0]} {_render(tree[2])})"


def _value(tree):
    if isinstance(tree, int):
        return tree
    return _OPS[tree[0]](_value(tree[1]), _value(tree[2]))


@settings(max_examples=80, deadline=None)
@given(_trees())
def test_integer_arithmetic_agrees_with_the_rules_of_arithmetic(tree):
    assert parse_expr(_render(tree)).evaluate({}) == _value(tree)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_or_raises_expr_error(text):
    try:
        e = parse_expr(text)
    except ExprError:
        return
    with contextlib.suppress(ExprError):
        e.evaluate({n: 1 for n in e.names})


@pytest.mark.parametrize("text, value", [
    ("(size - rank) * 5us", pytest.approx(15e-6)), ("4 * 64 KiB + 2B", 262146),
    ("2.5 ms", pytest.approx(2.5e-3)), ("1e3", 1000.0), ("r2s + 1", 2), ("0b101", 5),
])
def test_numbers_may_carry_units(text, value):
    """A number followed by a unit is its value in seconds or bytes; names stay names."""
    assert ev(text, size=4, rank=1, r2s=1) == value
    assert parse_expr(text).source == text
