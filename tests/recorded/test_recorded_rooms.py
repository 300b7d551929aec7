"""The recorded front end's rooms (mpisim/recorded/: record, read, replayer, toyaml over
calls.py and library.py) meet through public names: no module imports another's
underscore name (the YAML writer once took the replayer's private datatype table), and the
tests keep the package's rooms. The order of the rooms is the import contract's
(pyproject.toml, checked by tests/architecture/test_layers.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import mpisim.recorded

PACKAGE = Path(mpisim.recorded.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent

ALLOWED: dict[str, set[str]] = {
    # The streaming reader decodes the compact format's columns as its whole-file reader
    # does, and makes request ids absolute as the records do: to be given public names.
    "read/stream.py": {"_column", "_Stream"},
}
"""Module -> the private names of other modules it still imports (the list only shrinks)."""


def _private_imports() -> dict[str, set[str]]:
    """Module -> the underscore names it imports from the package's own modules."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            ours = node.level > 0 or (node.module or "").startswith("mpisim")
            for alias in node.names if ours else ():
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.setdefault(path.relative_to(PACKAGE).as_posix(), set()).add(alias.name)
    return found


def test_no_module_imports_another_modules_private_name():
    found = _private_imports()
    new = {m: names - ALLOWED.get(m, set()) for m, names in found.items()}
    assert {m: n for m, n in new.items() if n} == {}, "give the name a public spelling, or " \
        "move it to the floor both stand on (calls.py)"


def test_the_allow_list_names_only_private_imports_still_made():
    """An entry no longer used leaves the list, so the list cannot keep a place open."""
    found = _private_imports()
    stale = {m: names - found.get(m, set()) for m, names in ALLOWED.items()}
    assert {m: n for m, n in stale.items() if n} == {}


def test_the_tests_keep_the_packages_rooms():
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert rooms == {"read", "record", "replayer", "toyaml"}
    assert folders == rooms
