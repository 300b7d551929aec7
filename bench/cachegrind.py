"""Instructions counted under cachegrind, for the benchmarks that measure a cost as the
difference of two runs of different lengths (``bench.instructions``, ``bench.percall``,
``bench.frontend``): an instruction count is the figure machine load does not change, where
wall-clock rates on a shared machine vary several-fold from run to run.

A counted run is made deterministic, so that the same code gives the same count to the
instruction: one BLAS thread, a fixed hash seed, no address randomisation where ``setarch
-R`` exists.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository: the folder a counted ``python -m bench.X`` runs in."""

REFS = re.compile(r"I\s+refs:\s+([\d,]+)")
"""cachegrind's summary line of the instructions executed (on its standard error)."""


def refused(prog: str, option: str, small: int, large: int) -> str | None:
    """Why two counted runs cannot be made, as one line (valgrind not installed, or
    ``option``'s SMALL not a positive number below its LARGE); None when they can.
    ``prog``: the command as the user typed it (``python -m bench.percall``)."""
    if shutil.which("valgrind") is None:
        return f"{prog}: valgrind is not installed (apt-get install valgrind)"
    if not 0 < small < large:
        return f"{option}: SMALL must be positive and below LARGE"
    return None


def counted(module: str, *args: str, what: str) -> tuple[int, str]:
    """The instructions executed by ``python -m module args`` (a benchmark's child run)
    under ``valgrind --tool=cachegrind --cache-sim=no``, deterministic as the module says,
    and what it printed; a failed run raises RuntimeError naming ``what`` with the end of
    its error output."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
           sys.executable, "-m", module, *args]
    if shutil.which("setarch"):
        cmd = ["setarch", "-R", *cmd]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    found = REFS.search(out.stderr)
    if out.returncode != 0 or found is None:
        raise RuntimeError(f"{what}: cachegrind run failed\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", "")), out.stdout
