"""The topology calls' arguments, converted as mpi4py 4.1.2 converts them: an integer array
(dims, periods, a graph's index and edges, coords, remain_dims, weights) item by item
through ``operator.index``, so a float, a str or a numpy bool is a TypeError; a C int
(nnodes, a rank, a shift's direction and displacement) through ``__int__``, so a float is
truncated and a str refused.

``tests/data/mpi4py/topology_conversions.py`` prints one line per case; the stored lines
beside it are what mpi4py 4.1.2 printed on MPICH 5.0.2. The stand-in must print the same,
and a real library, where there is one, must still agree with the stored table.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import real_mpi
from helpers.paths import DATA

SCRIPT = DATA / "mpi4py" / "topology_conversions.py"
STORED = DATA / "mpi4py" / "topology_conversions.txt"


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if ": " in line]


def test_the_stand_in_converts_topology_arguments_as_mpi4py_4_1_2():
    run = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "1", str(SCRIPT)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert _lines(run.stdout) == _lines(STORED.read_text())


@pytest.mark.real_mpi
def test_the_stored_table_is_what_the_real_mpi4py_prints():
    found = real_mpi.oracle()
    if found is None:
        pytest.skip("no real mpi4py and MPI library here (pip install mpi4py mpich)")
    python, _mpiexec, family = found
    if family != "mpich":
        pytest.skip("the table was observed with MPICH 5.0.2")
    run = subprocess.run([python, str(SCRIPT)], capture_output=True, text=True, timeout=120,
                         env=real_mpi.ENV)
    assert _lines(run.stdout) == _lines(STORED.read_text())
