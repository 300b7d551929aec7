"""Architecture: dependencies point downward (the layers contract in pyproject.toml),
checked by import-linter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from helpers.paths import ROOT


def test_no_upward_imports_and_no_cycles_between_layers():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which(
        "lint-imports")
    assert exe, "import-linter is part of the test extras"
    out = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_engine_does_not_import_the_edge_or_plotting():
    """Nothing in the engine knows about the CLI, scenarios or plots (no matplotlib import)."""
    code = ("import sys, mpisim; mpisim.run(lambda mpi: iter(()), ranks=1); "
            "print(sorted(m for m in sys.modules if m.startswith(('matplotlib', 'mpisim.cli', "
            "'mpisim.scenario', 'mpisim.plot', 'yaml'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _import_graph():
    """mpisim's modules and their imports, read from the source: module-level, function-local
    and TYPE_CHECKING imports alike (a package's __init__ importing its own modules aside)."""
    import ast

    import networkx as nx

    package = ROOT / "mpisim"
    names = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = nx.DiGraph()
    for name, path in names.items():
        graph.add_node(name)
        is_package = path.name == "__init__.py"
        base = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                parts = base.split(".")[: len(base.split(".")) - max(node.level - 1, 0)]
                module = (".".join([*parts, node.module] if node.module else parts)
                          if node.level else node.module or "")
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in names else module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in names:
                    target = target.rpartition(".")[0]
                if target and target != name and not (is_package
                                                       and target.startswith(name + ".")):
                    graph.add_edge(name, target)
    return graph


def test_no_import_circle_between_modules():
    """Function-local imports count too: a circle hidden in a function is still a circle."""
    import networkx as nx

    assert list(nx.simple_cycles(_import_graph())) == []


def test_the_folders_stand_on_about_ten_floors_with_one_arrow_up():
    """The map of folders (each a room, imports as arrows) is a pyramid: its only arrow up
    is `python -m mpisim.mpi4py`, the CLI's entry point (the contract's ignored import)."""
    import networkx as nx

    rooms = nx.DiGraph()
    for a, b in _import_graph().edges:
        ra, rb = ".".join(a.split(".")[:2]), ".".join(b.split(".")[:2])
        if ra != rb and a != "mpisim.mpi4py.__main__":
            rooms.add_edge(ra, rb)
    assert list(nx.simple_cycles(rooms)) == []
    floors = nx.dag_longest_path_length(rooms) + 1
    assert 8 <= floors <= 10, floors  # (the issue-38 bound: at most ten)
