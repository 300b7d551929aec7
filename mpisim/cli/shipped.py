"""The examples shipped inside the package: found, described in one line, looked up by name.

They live in ``mpisim/examples/`` (a clone's ``scenarios/`` links there): the scenarios
(``*.yaml`` and the Python scenario), the mpi4py scripts (``mpi4py/``) and Example 3.10 in C
(``c/``, for ``mpisim record``). ``mpisim examples`` (:mod:`.examples`) lists and copies them;
:func:`shipped` is how a command given a name that is not a file finds one. This module
imports nothing of the command line, which imports it.
"""

from __future__ import annotations

import ast
import difflib
import errno
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["EXAMPLES_DIR", "KINDS", "Example", "examples", "shipped"]

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
"""Where the shipped examples are (package data)."""

KINDS = {  # kind: (its files, the heading of its list)
    "scenario": ("*.yaml *.py", "scenarios: mpisim run NAME (also check, sweep, min-buffer)"),
    "mpi4py": ("mpi4py/*.py", "mpi4py scripts: mpisim mpi4py -n 2 NAME [args]"),
    "c": ("c/*.c", "C programs, to record: mpisim examples copy DIR, then "
                   "mpicc DIR/c/NAME and mpisim record"),
}


class Example(NamedTuple):
    """One shipped example: its kind (scenario, mpi4py, c), the name it runs by, its path
    below ``mpisim/examples``, what it shows (one line) and, for a scenario, how it ends
    (its ``expect:``: completed, deadlock, or the MPI error class)."""

    kind: str
    name: str
    relative: str
    summary: str
    ends: str = ""

    @property
    def path(self) -> Path:
        """The installed file."""
        return EXAMPLES_DIR / self.relative


def examples(kind: str | None = None) -> list[Example]:
    """The shipped examples (of one ``kind``), in the order ``mpisim examples`` lists them."""
    found = []
    for k, (patterns, _) in KINDS.items():
        if kind not in (None, k):
            continue
        for pattern in patterns.split():
            for path in sorted(EXAMPLES_DIR.glob(pattern)):
                relative = path.relative_to(EXAMPLES_DIR).as_posix()
                name = path.stem if path.suffix == ".yaml" else path.name
                found.append(Example(k, name, relative, *_summary(path)))
    return found


def shipped(given: str, kind: str) -> str:
    """``given`` itself when it is a file; otherwise the path of the shipped example of
    ``kind`` it names (``example-3.10-bsend``, ``example-3.10-bsend.yaml``, ``exchange.py``,
    ``mpi4py/exchange.py``), if any, else ``given`` (whose loading then says it is missing);
    FileNotFoundError, saying "did you mean", for a bare name close to an example's
    (``example-3.10-bsnd``)."""
    if os.path.exists(given) or not given:
        return given
    found = examples(kind)
    for example in found:
        if given in (example.name, example.relative, example.path.name, example.path.stem):
            return str(example.path)
    close = difflib.get_close_matches(given, [e.name for e in found], n=1, cutoff=0.85)
    if close and os.sep not in given:  # a slip in a shipped example's name
        raise FileNotFoundError(errno.ENOENT, "no such file, nor a shipped example; did "
                                f"you mean {close[0]}? (mpisim examples lists them)", given)
    return given


def _summary(path: Path) -> tuple[str, str]:
    """The first sentence of what the file says of itself (a scenario's ``description``, a
    Python file's docstring, a C file's first comment), and how a scenario ends."""
    text, header = path.read_text(encoding="utf-8"), dict[str, Any]()
    if path.suffix == ".yaml":
        import yaml

        header = yaml.safe_load(text) or {}
        text = str(header.get("description", ""))
    elif path.suffix == ".py":
        tree = ast.parse(text)
        header = _literal(tree, "SCENARIO")
        text = ast.get_docstring(tree) or ""
    else:
        found = re.match(r"\s*/\*(.*?)\*/", text, re.S)
        text = found.group(1).replace("*", " ") if found else ""
    expect = header.get("expect") or {} if isinstance(header, dict) else {}
    ends = str(expect.get("error_class") or expect.get("outcome") or "")
    return _first_sentence(" ".join(text.split())), ends


def _literal(tree: ast.Module, name: str) -> dict:
    """The value of ``name = {...}`` in a module, where it is a literal (else empty)."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return {}
            return value if isinstance(value, dict) else {}
    return {}


def _first_sentence(text: str, width: int = 72) -> str:
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text, maxsplit=1)[0].removesuffix(".")
    if len(sentence) > width:  # a long first sentence: up to its first clause
        sentence = re.split(r"[:;]\s", sentence, maxsplit=1)[0]
    return sentence
