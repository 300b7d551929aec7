"""Every conversion of a user argument the stand-in makes, against mpi4py 4.1.2's: a script
refused by the real mpi4py is refused the same way, one accepted is accepted with the same
result.

tests/data/mpi4py/conversions.py tries each argument (the collectives' roots, ops, counts
and displacements; Comm.Split's color and key; Create_group's tag; a Group's ranks; window
sizes, disp_unit, target ranks and specs, lock types; file modes, offsets, views, seeks and
sizes; Info keys, values and items; a Status's fields; request lists; the datatype
constructors' counts, blocklengths, displacements, sizes and orders; Spawn's maxprocs and
args) with each kind of value: int, float, bool, numpy int and float scalars, None, str,
list, tuple, range, numpy array, and for arrays lists of floats, bools, numpy scalars, str
and None. conversions.txt holds what mpi4py 4.1.2 printed on MPICH 5.0.2 (re-observed by
``python -m bench.mpi4py_conversions``). The stand-in must give the same outcome: the same
value, or the same exception type and message; an MPI error is compared as an
``MPI.Exception`` (its error class and text are the library's).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers import real_mpi
from helpers.paths import DATA, ROOT

SCRIPT = DATA / "mpi4py" / "conversions.py"
STORED = DATA / "mpi4py" / "conversions.txt"


def _table(text: str) -> dict[str, str]:
    """``ARGUMENT | KIND`` -> outcome, an MPI error as its exception type only."""
    rows = [line.split(": ", 1) for line in text.splitlines() if " | " in line]
    return {case: re.sub(r"^MPI\.Exception .*", "MPI.Exception", outcome)
            for case, outcome in rows}


def test_the_stored_table_covers_every_kind_of_value_of_every_argument():
    table = _table(STORED.read_text())
    sites = {case.split(" | ")[0] for case in table}
    assert len(sites) >= 80 and len(table) >= 950
    kinds = {case.split(" | ")[1] for case in table}
    assert {"int", "float", "bool", "numpy int", "numpy float", "None", "str", "list",
            "tuple", "range", "numpy array"} <= kinds
    for area in ("Comm.Gatherv", "Comm.Split", "Comm.Create_group", "Group.Incl", "Win.Put",
                 "Win.Allocate", "File.Open", "File.Seek", "Info.Set", "Status.Set_source",
                 "Request.Waitall", "Datatype.Create_struct", "Comm.Spawn", "Group.Range_incl",
                 "Win.Accumulate", "File.Set_view", "Info.Get"):
        assert any(site.startswith(area) for site in sites), area


def test_the_stand_in_converts_every_argument_as_mpi4py_4_1_2(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "1", str(SCRIPT)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    got, expected = _table(run.stdout), _table(STORED.read_text())
    assert list(got) == list(expected)
    differ = [f"{case}: mpi4py {expected[case]!r}, stand-in {got[case]!r}"
              for case in expected if got[case] != expected[case]]
    assert differ == []
    assert "leak" not in run.stderr  # the script frees what it makes, as the real run does


@pytest.mark.real_mpi
def test_the_stored_table_is_what_the_real_mpi4py_prints():
    found = real_mpi.oracle()
    if found is None:
        pytest.skip("no real mpi4py and MPI library here (pip install mpi4py mpich)")
    python, _mpiexec, family = found
    if family != "mpich":
        pytest.skip("the table was observed with MPICH 5.0.2")
    run = subprocess.run([python, "-m", "bench.mpi4py_conversions", "--check"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT,
                         env=real_mpi.ENV)
    assert run.returncode == 0, run.stdout + run.stderr
