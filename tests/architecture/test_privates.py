"""The floors meet through ports, not privates: no module outside ``mpisim/handle/`` reads or
writes an underscore attribute of a rank's handle (``mpi._where``, ``self.mpi._enter``,
``ctx.mpi._tp``, ``h._life``...). The chapters below the handle reach a rank through its
typed port (:class:`mpisim.engine.port.RankPort`), the run through its run state
(:class:`mpisim.handle.run.RunState`), the front ends and the run's reports through the
functions of :mod:`mpisim.handle.access`. An import contract cannot see a call made through
an untyped handle; this ``ast`` pass can.

The handle is recognised by its names: ``mpi``, ``handle`` and ``h`` (a loop over the run's
handles), or any ``.mpi`` attribute. The allow-list names what still reaches in, by module
and attribute, each with its reason; it only shrinks (an entry no longer used fails too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import mpisim

PACKAGE = Path(mpisim.__file__).resolve().parent
HANDLE_NAMES = frozenset({"mpi", "handle", "h"})

ALLOWED: dict[str, set[str]] = {}
"""Module (relative to the package) -> the handle's underscore attributes it may still use."""

NOT_A_HANDLE: dict[str, set[str]] = {
    "mpi4py/MPI/errhandler.py": {"_name"},  # ``h`` is an MPI.Errhandler there
}
"""Names that read as a handle but are not one."""


def _is_handle(node: ast.expr) -> bool:
    if isinstance(node, ast.Subscript):  # handles[r], self.handles[r]
        named = node.value
        return (isinstance(named, ast.Name) and named.id == "handles") or (
            isinstance(named, ast.Attribute) and named.attr == "handles")
    if isinstance(node, ast.Name):
        return node.id in HANDLE_NAMES
    return isinstance(node, ast.Attribute) and node.attr == "mpi"


def _privates() -> dict[str, set[str]]:
    """Module -> the handle's underscore attributes it reads or writes."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("handle/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__") and _is_handle(node.value) \
                    and node.attr not in NOT_A_HANDLE.get(rel, ()):
                found.setdefault(rel, set()).add(node.attr)
    return found


def test_no_module_outside_the_handle_reaches_its_private_attributes():
    found = _privates()
    new = {m: sorted(a - ALLOWED.get(m, set())) for m, a in found.items()
           if a - ALLOWED.get(m, set())}
    assert not new, (f"the handle's private attributes used outside mpisim/handle/: {new}; "
                     "reach the rank through its port (mpisim.engine.port) or the run state")


def test_the_allow_list_only_shrinks():
    """An entry whose module no longer uses an attribute (or no longer exists) must go."""
    found = _privates()
    stale = {m: sorted(a - found.get(m, set())) for m, a in ALLOWED.items()
             if a - found.get(m, set())}
    assert not stale, f"no longer used: take them off ALLOWED in {__file__}: {stale}"


def test_the_pass_sees_each_form_of_reaching_in():
    """The forms the pass must catch (a pass that catches nothing cannot fail)."""
    forms = ["mpi._where = 1", "self.mpi._enter('x')", "ctx.mpi._tp", "h._life", "x = handle._call",
             "self.handles[r]._finalize()"]
    for form in forms:
        tree = ast.parse(form)
        assert any(isinstance(n, ast.Attribute) and n.attr.startswith("_") and _is_handle(n.value)
                   for n in ast.walk(tree)), form
    tree = ast.parse("port.where = 1; mpi.rank; mpi.__class__; window._x")
    assert not any(isinstance(n, ast.Attribute) and n.attr.startswith("_")
                   and not n.attr.startswith("__") and _is_handle(n.value)
                   for n in ast.walk(tree))
