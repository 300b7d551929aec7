"""The scenario YAML reader: line numbers, duplicate keys, YAML 1.1 scalars, aliases."""

import pickle

import pytest

from mpisim.scenario.yamlload import Ambiguous, LList, LMap, line_of, read_scalar, read_yaml


def test_mappings_and_lists_know_their_lines():
    data, problems = read_yaml("a: 1\nb:\n  - x\n  - y\nc: {d: 2}\n")
    assert problems == []
    assert isinstance(data, LMap) and isinstance(data["b"], LList)
    assert [line_of(data, k) for k in ("a", "b", "c")] == [1, 2, 5]
    assert data["b"].lines == [3, 4]
    assert line_of(data["c"], "d") == 5


def test_duplicate_key_is_a_problem_naming_both_lines():
    data, problems = read_yaml("ranks: 2\nname: x\nranks: 4\n")
    assert data["ranks"] == 2, "the first value is kept, never silently overwritten"
    assert [(p.line, p.message) for p in problems] == [
        (3, "ranks: duplicate key (first given at line 1)")]


def test_duplicate_key_in_a_nested_mapping_is_found():
    _, problems = read_yaml("programs:\n  - ranks: 0\n    ops: []\n    ops: []\n")
    assert [p.line for p in problems] == [4]


@pytest.mark.parametrize("word", ["on", "off", "yes", "no", "On", "YES", "Off"])
def test_yaml11_boolean_words_are_ambiguous_not_booleans(word):
    data, _ = read_yaml(f"x: {word}\n")
    assert isinstance(data["x"], Ambiguous)
    assert "YAML 1.1" in data["x"].reason and "true or false" in data["x"].reason


def test_true_false_are_booleans_and_quoted_words_are_text():
    data, _ = read_yaml("a: true\nb: False\nc: 'on'\nd: \"no\"\n")
    assert data == {"a": True, "b": False, "c": "on", "d": "no"}


def test_leading_zero_is_ambiguous_octal():
    data, _ = read_yaml("x: 010\ny: 0\nz: 0o10\n")
    assert isinstance(data["x"], Ambiguous) and "octal" in data["x"].reason
    assert data["y"] == 0 and data["z"] == 8


def test_exponent_without_dot_is_a_number():
    """YAML 1.1 reads 1e3 as a string; scenarios read it as the number 1000."""
    data, _ = read_yaml("a: 1e3\nb: 2.5E-6\nc: .5\n")
    assert data == {"a": 1000.0, "b": 2.5e-6, "c": 0.5}


def test_base60_is_ambiguous():
    data, _ = read_yaml("x: 1:30\n")
    assert isinstance(data["x"], Ambiguous) and "base-60" in data["x"].reason


def test_unit_strings_and_dates_stay_text():
    data, _ = read_yaml("a: 64 KiB\nb: 5us\nc: 2024-01-01\nd: 0x1F\n")
    assert data == {"a": "64 KiB", "b": "5us", "c": "2024-01-01", "d": 31}


def test_alias_is_refused_with_its_line():
    data, problems = read_yaml("a: &x [1, 2]\nb: *x\n")
    assert data is None
    assert problems[0].line == 2 and "alias" in problems[0].message


def test_syntax_error_reports_a_line():
    _, problems = read_yaml("a: [1, 2\nb: 3\n")
    assert len(problems) == 1 and problems[0].line == 1  # where the '[' opens
    assert problems[0].message.startswith("invalid YAML: a '[' that is not closed")


@pytest.mark.parametrize(("text", "line", "check"), [
    ("name: a\nranks: 2\nprograms:\n  - ranks: all\n   ops: []\n", 5,
     "this line's indentation does not fit its block (which starts at line 4)"),
    ("ops:\n  - send: {dest: 1}\n  recv: {source: 0}\n", 3, "indentation does not fit"),
    ("name: a\n ranks: 2\n", 2, "a ':' where no key can start: check this line's "
                                 "indentation"),
    ("name: a\nranks: 2\nprograms:\n\t- ranks: all\n", 4, "a tab character: YAML indents "
                                                         "with spaces only"),
    ("name: a\nranks:2\nprograms: []\n", 2, "a line that is not 'key: value'"),
    ("name: 'abc\nranks: 2\n", 1, "a quoted value that is never closed"),
    ("network: {latency: 1us\nranks: 2\n", 1, "a '{' that is not closed"),
    ("ranks: [1, 2,, 3]\n", 1, "a doubled or trailing comma"),
    ("name: a\nranks: [\n", 2, "a '[' or '{' that is not closed"),
    ("name: a\nranks: [1, 2\n", 2, "a '[' that is not closed"),
    ("name: @a\n", 1, "a value cannot start with '@': quote it"),
    ("a: 1\n---\nb: 2\n", 2, "a second document ('---'): a file holds one"),
])
def test_a_syntax_slip_says_what_to_check_at_its_line(text, line, check):
    """An indentation slip, a tab, a missing ':' or an unclosed quote: one problem at the
    line to look at, saying what to check (not the parser's own words)."""
    _, problems = read_yaml(text)
    assert [p.line for p in problems] == [line]
    message = problems[0].message
    assert message.startswith("invalid YAML: ") and check in message, message
    assert "while parsing" not in message and "<block" not in message and "\n" not in message


def test_unhashable_key_is_a_problem():
    _, problems = read_yaml("? [1, 2]\n: x\n")
    assert "plain scalar" in problems[0].message


def test_python_tags_are_refused_by_the_safe_loader():
    _, problems = read_yaml("a: !!python/object/apply:os.system ['true']\n")
    assert problems and problems[0].message.startswith("invalid YAML")


def test_deep_nesting_is_a_problem_not_a_crash():
    _, problems = read_yaml("[" * 5000 + "]" * 5000)
    assert problems


def test_read_scalar_follows_the_same_rules():
    assert read_scalar("4096") == 4096
    assert read_scalar("64KiB") == "64KiB"
    assert read_scalar("1e3") == 1000.0
    assert read_scalar("") is None
    assert isinstance(read_scalar("on"), Ambiguous)
    with pytest.raises(ValueError, match="cannot read"):
        read_scalar("[1, 2")


def test_located_values_pickle():
    data, _ = read_yaml("a: on\nb: [1, {c: 2}]\n")
    again = pickle.loads(pickle.dumps(data))
    assert again == data and again.lines == data.lines and again["b"].lines == [2, 2]
