"""MPI_Isendrecv and MPI_Isendrecv_replace recorded and replayed (MPI 4.1 §3.10: an irecv
and an isend under one request), and a recording that meets an MPI call the recorder does not
log says so when it is made, naming the call.

The real runs need MPICH's ``mpicc`` and ``mpiexec`` in this venv (the ``oracle`` extra) and
skip cleanly without them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.record.unlogged import LOCAL, _mpi_name

HERE = DATA / "replay_c"


def _record(tmp_path: Path, *command: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    return subprocess.run([sys.executable, "-m", "mpisim", "record", "--out",
                           str(tmp_path / "run.trace"), "--", *command], capture_output=True,
                          text=True, env=env, timeout=300, cwd=tmp_path)


def test_fortran_and_c_symbols_are_named_as_mpi_calls():
    assert _mpi_name("mpi_comm_dup_with_info_") == "MPI_Comm_dup_with_info"
    assert _mpi_name("MPI_Isendrecv") == "MPI_Isendrecv"
    assert _mpi_name("ompi_mpi_comm_world") is None


def test_local_calls_are_not_reported_but_logged_ones_of_their_families_are():
    assert LOCAL.match("MPI_Comm_rank") and LOCAL.match("MPI_Type_vector")
    assert not LOCAL.match("MPI_Type_commit") and not LOCAL.match("MPI_Comm_dup_with_info")
    assert not LOCAL.match("MPI_Isendrecv")


@pytest.mark.real_mpi
def test_isendrecv_is_recorded_and_replays_to_agreement(tmp_path):
    """§3.10: one request per MPI_Isendrecv, completed by MPI_Waitall and MPI_Wait; the
    replay makes it an irecv and an isend and completes as the recording did."""
    mpicc, mpiexec = mpich()
    app = tmp_path / "isendrecv"
    subprocess.run([mpicc, "-g", "-O1", "-o", str(app), str(HERE / "isendrecv.c")], check=True,
                   timeout=120)
    run = _record(tmp_path, mpiexec, "-n", "4", str(app))
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("ok") == 4
    assert "does not log" not in run.stderr
    trace = read_trace(tmp_path / "run.trace")
    names = [c.name for c in trace.ranks[0].calls]
    assert names.count("Isendrecv") == 1 and names.count("Isendrecv_replace") == 3
    sc = replay_scenario(tmp_path / "run.trace")
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")
    assert result.messages["sent"] == result.messages["received"] == 4 * (1 + 1 + 3)


@pytest.mark.real_mpi
def test_a_call_the_recorder_does_not_log_is_named_at_record_time(tmp_path):
    mpicc, mpiexec = mpich()
    src = tmp_path / "unlogged.c"
    src.write_text("#include <mpi.h>\n"
                   "int main(int argc, char **argv) {\n"
                   "    MPI_Comm dup;\n    int rank;\n"
                   "    MPI_Init(&argc, &argv);\n"
                   "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
                   "    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dup);\n"
                   "    MPI_Comm_free(&dup);\n"
                   "    MPI_Finalize();\n    return 0;\n}\n")
    app = tmp_path / "unlogged"
    subprocess.run([mpicc, "-o", str(app), str(src)], check=True, timeout=120)
    run = _record(tmp_path, mpiexec, "-n", "2", str(app))
    assert run.returncode == 0, run.stderr
    said = [line for line in run.stderr.splitlines() if "does not log" in line]
    assert len(said) == 1 and "MPI_Comm_dup_with_info" in said[0]
    assert "MPI_Comm_rank" not in said[0] and "MPI_Comm_free" not in said[0]
