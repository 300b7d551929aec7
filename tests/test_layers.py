"""Architecture: dependencies point downward (the layers contract in pyproject.toml),
checked by import-linter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
