"""Clear the outputs of notebooks before committing them (the rule: notebooks are committed
without outputs; tests/notebooks/test_notebooks.py runs each one and fails on stored outputs).

    python notebooks/clear_outputs.py [NOTEBOOK.ipynb ...]   # default: every notebook here
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat


def clear(path: Path) -> bool:
    """Remove outputs and execution counts; True if the file changed."""
    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
            cell.outputs, cell.execution_count, changed = [], None, True
    if changed:
        nbformat.write(nb, path)
    return changed


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted(Path(__file__).parent.glob("*.ipynb"))
    for path in paths:
        print(f"{path}: {'cleared' if clear(path) else 'no outputs'}")
