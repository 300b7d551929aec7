"""Dynamic processes in the stand-in (MPI 4.1 §11.8-§11.10), against MPICH 5.0.2.

``tests/data/mpi4py/spawn_parent.py`` spawns three processes of ``spawn_child.py`` with
``MPI.COMM_SELF.Spawn(sys.executable, ...)``, talks to them over the intercommunicator,
meets one again through a published port (Open_port, Publish_name, Accept / Lookup_name,
Connect) and disconnects. The stored lines beside it are what mpi4py 4.1.2 printed on MPICH
5.0.2 under ``mpiexec -n 1``, sorted (the four processes print at once); the stand-in, run
under the mpich-5.0 profile, must print the same.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import real_mpi
from helpers.paths import DATA

SCRIPT = DATA / "mpi4py" / "spawn_parent.py"
STORED = DATA / "mpi4py" / "spawn_parent.txt"


def _lines(text: str) -> list[str]:
    return sorted(line for line in text.splitlines() if line.strip())


def test_11_8_the_stand_in_spawns_connects_and_disconnects_as_mpich_5_0_2():
    run = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "1", "--profile",
                          "mpich-5.0", str(SCRIPT)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert _lines(run.stdout) == _lines(STORED.read_text())
    assert "COMPLETED at t = 90.02 ms (1 rank and 3 spawned," in run.stderr  # 0.09 s spawn


def test_11_8_the_json_lists_the_spawned_processes():
    run = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "1", "--json",
                          str(SCRIPT)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    ranks = json.loads(run.stdout[run.stdout.index("{"):])["ranks"]
    assert [r.get("spawned", {}).get("world_rank") for r in ranks] == [None, 0, 1, 2]
    assert ranks[3]["spawned"]["program"] == "spawn_child"
    assert all(r["finished"] for r in ranks)


def test_11_10_1_a_spawn_beyond_the_universe_fails_under_open_mpi_as_mpiexec_usize():
    run = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "1", "-usize", "2",
                          "--profile", "openmpi-4.1", str(SCRIPT)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode != 0
    assert "parent: UNIVERSE_SIZE: 2" in run.stdout
    assert "MPI_ERR_SPAWN: MPI_Comm_spawn: 3 processes asked for, 1 of the universe's 2 " \
           "free" in run.stderr


@pytest.mark.real_mpi
def test_the_stored_lines_are_what_the_real_mpi4py_prints():
    found = real_mpi.oracle()
    if found is None:
        pytest.skip("no real mpi4py and MPI library here (pip install mpi4py mpich)")
    python, mpiexec, family = found
    if family != "mpich":
        pytest.skip("the lines were observed with MPICH 5.0.2")
    run = subprocess.run([mpiexec, "-n", "1", python, str(SCRIPT)], capture_output=True,
                         text=True, timeout=120, env=real_mpi.ENV)
    # the processes print at once: compare their words, not how the lines interleaved
    assert sorted("".join(run.stdout.split())) == sorted("".join(STORED.read_text().split()))
