"""Copies tied to their originals: the per-message path keeps some functions' bodies inlined
for speed (docs/contributing/performance.md), each copy marked by a comment naming what it
copies, ``(NAME, inlined...)``. A rename or a deletion of the original would leave the copy
speaking of nothing: every such comment must name a function or method that exists in the
package (``Class.method`` one of that class). The differential tests beside the copies
(tests/engine/test_clock_inlined.py, tests/handle/test_p2p_inlined.py,
tests/mpi4py/MPI/test_mpi4py_inlined.py, tests/p2p/test_arrival_paths.py) check that each copy
still does what its original does."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

import mpisim

PACKAGE = Path(mpisim.__file__).resolve().parent
MARK = re.compile(r"\(([A-Za-z_][\w.]*)(?:\([^()]*\))?[^()]*?,\s*inlined\b")
"""``(NAME, inlined``, ``(NAME()'s common case, inlined``, ``(obj.method(x), inlined``."""


def _comments(path: Path) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT]


@cache
def _definitions() -> tuple[set[str], dict[str, set[str]]]:
    """Every function and method name of the package, and each class's methods."""
    functions: set[str] = set()
    classes: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.add(node.name)
            elif isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, set()).update(
                    n.name for n in node.body
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return functions, classes


@cache
def _marks() -> tuple[tuple[str, int, str, str], ...]:
    """(module, line, comment, NAME) of every comment that speaks of an inlined copy (a
    mark may run over the comments of up to three consecutive lines)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        comments = _comments(path)
        for i, (line, text) in enumerate(comments):
            if "inlined" not in text:
                continue
            block = [text]
            for before_line, before in reversed(comments[max(0, i - 2):i]):
                if before_line != line - len(block):
                    break
                block.insert(0, before)
            joined = " ".join(c.lstrip("# ") for c in block)
            tail = len(joined) - len(text.lstrip("# "))
            names = [m[1] for m in MARK.finditer(joined) if m.end() > tail]
            found.append((path.relative_to(PACKAGE).as_posix(), line, joined,
                          names[-1] if names else ""))
    return tuple(found)


def _exists(name: str, functions: set[str], classes: dict[str, set[str]]) -> bool:
    *owner, method = name.split(".")
    if owner and owner[-1] in classes:
        return method in classes[owner[-1]]
    return method in functions


def test_every_inlined_copy_names_its_original_in_the_one_form():
    """A comment about an inlined copy says which function it copies, as ``(NAME, inlined``."""
    unnamed = [f"{module}:{line}: {text}" for module, line, text, name in _marks() if not name]
    assert unnamed == []


def test_every_original_an_inlined_copy_names_still_exists():
    functions, classes = _definitions()
    marks = _marks()
    assert len(marks) >= 20  # the scan finds the copies (30 of them when this was written)
    orphans = [f"{module}:{line}: {name}" for module, line, _, name in marks
               if name and not _exists(name, functions, classes)]
    assert orphans == [], "an inlined copy names an original that no longer exists"


def test_the_scan_reads_each_form_of_the_mark():
    functions, classes = _definitions()
    assert [MARK.search(t)[1] for t in (
        "# (queue_last, inlined: once per event)", "# (done(), inlined)",
        "# (link's common case, inlined)", "# (req.on_known(_wake), inlined: ...)")] == [
        "queue_last", "done", "link", "req.on_known"]
    assert _exists("Clock.order", functions, classes)
    assert not _exists("Clock.no_such_method", functions, classes)
    assert not _exists("no_such_function", functions, classes)
