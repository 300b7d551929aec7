"""What to check in a YAML file the parser refused: PyYAML's messages ("while parsing a
block collection expected <block end>, but found '<block mapping start>'") as the slip a
person makes (an indentation that does not fit its block, a tab, a missing ':', an
unclosed quote or bracket), at the line to look at. Scenario files and profile files both
read through it; it takes the parser's error as it is (no YAML import here)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["syntax_problem"]


def syntax_problem(e: Any, lines: int) -> tuple[int, str]:
    """(line, what to check) for PyYAML's ``MarkedYAMLError`` ``e`` in a text of ``lines``
    lines: the line to look at (where the unclosed quote or bracket, or the line without
    ``key: value``, is) and the slip in words; the parser's own words for a slip not
    foreseen here."""
    context, problem = e.context or "", e.problem or ""
    at = e.problem_mark or e.context_mark
    line = min(at.line + 1, max(lines, 1)) if at is not None else 0  # (not past the end)
    opened = min(e.context_mark.line + 1, line) if e.context_mark is not None else line
    for test, use_context, explain in _SLIPS:
        found = test(context, problem)
        if found is not None:
            return opened if use_context else line, explain(found, opened)
    return line, " ".join(filter(None, [context, problem])) or "a syntax error"


def _has(context: str, problem: str) -> Any:
    """A test of :data:`_SLIPS`: the match of ``problem`` (and ``context``) patterns."""
    def test(ctx: str, prob: str) -> Any:
        if context and context not in ctx:
            return None
        return re.search(problem, prob)
    return test


_SLIPS: list[tuple[Any, bool, Any]] = [
    # (test, report at the line where the construct opened, the explanation)
    (_has("", r"found character '\\t'"), False,
     lambda m, at: "a tab character: YAML indents with spaces only (replace the tab with "
                   "spaces)"),
    (_has("", r"found character '(.)' that cannot start any token"), False,
     lambda m, at: f"a value cannot start with {m.group(1)!r}: quote it ('...')"),
    (_has("", r"^expected <block end>, but found"), False,
     lambda m, at: f"this line's indentation does not fit its block (which starts at line "
                   f"{at}): check that it starts in the same column as the block's other "
                   "keys or '- ' items, indented with spaces"),
    (_has("", r"^mapping values are not allowed here"), False,
     lambda m, at: "a ':' where no key can start: check this line's indentation (a key "
                   "indented further than the one above it), or quote a value that "
                   "contains ': '"),
    (_has("simple key", r"could not find expected ':'"), True,
     lambda m, at: "a line that is not 'key: value': check for a missing ':' or a missing "
                   "space after it"),
    (_has("quoted scalar", r"end of stream"), True,
     lambda m, at: "a quoted value that is never closed: check for its closing quote"),
    (_has("flow sequence", r"expected ',' or '\]'"), True,
     lambda m, at: "a '[' that is not closed: check its ']' and the commas between items"),
    (_has("flow mapping", r"expected ',' or '\}'"), True,
     lambda m, at: "a '{' that is not closed: check its '}' and the commas between items"),
    (_has("flow", r"<stream end>"), True,
     lambda m, at: "a '[' or '{' that is not closed: check its closing bracket"),
    (_has("flow node", r"expected the node content"), False,
     lambda m, at: "a value missing inside [...] or {...}: check for a doubled or trailing "
                   "comma"),
    (_has("single document", r"another document"), False,
     lambda m, at: "a second document ('---'): a file holds one"),
    (_has("double-quoted", r"unknown escape character '(.)'"), False,
     lambda m, at: f"'\\{m.group(1)}' is no escape in a double-quoted value: use single "
                   "quotes, or write '\\\\'"),
]
