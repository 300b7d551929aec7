"""Recordings of the communicator chapters (MPI 4.1 §7, §8): the makers carry their own
arguments and are replayed as the calls they were, not as splits, so the replayed
communicators have their topology, remote group and node split, and the neighbourhood
collectives and intercommunicator calls that follow replay on them.

comm-chapters.trace is tests/data/replay_c/comm_chapters.c recorded with MPICH 5.0.2 on 4
processes (``mpisim record -- mpiexec -n 4 ./comm_chapters``); the real_mpi test records it
again with the MPICH in this venv."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers.mpi_tools import oracle_mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.replayer.program import ReplayProgram

TRACE = DATA / "replay" / "comm-chapters.trace"


def test_the_makers_arguments_are_read_from_the_recording():
    calls = {c.name: c for c in read_trace(TRACE, sources=False).ranks[2].calls}
    assert calls["Cart_create"].args == {"comm": 0, "dims": [2, 2], "periods": [1, 1],
                                         "reorder": 1}
    assert calls["Cart_sub"].args["remain"] == [0, 1]
    assert calls["Dist_graph_create_adjacent"].args["ins"] == [1]
    assert calls["Comm_create_group"].args["grp"] == [0, 2]
    assert calls["Comm_split_type"].args["type"] == "S"
    assert calls["Intercomm_create"].args == {"comm": 7, "ll": 0, "peer": 0, "rl": 0,
                                              "tag": 5}
    assert calls["Intercomm_create"].out["rsize"] == 2
    assert calls["Neighbor_alltoall"].args == {"comm": 2, "n": 1, "T": 1}


def test_the_recording_replays_as_the_calls_it_made_and_agrees_with_mpich():
    program = ReplayProgram(TRACE)
    result = ms.run(program, ranks=4, mpi={"profile": "mpich"})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert all(not notes for notes in program.divergences.values()), program.divergences
    sc = replay_scenario(TRACE).with_overrides({"mpi.profile": "mpich"})
    assert sc.compare(sc.run()).startswith("agrees")


def test_a_node_layout_other_than_the_recordings_is_a_divergence_note():
    """MPICH ran the 4 processes on one node; with 2 ranks per node the replay's
    MPI_Comm_split_type makes communicators of 2, and says so."""
    program = ReplayProgram(TRACE)
    result = ms.run(program, ranks=4, network={"ranks_per_node": 2})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    notes = [n for notes in program.divergences.values() for n in notes]
    assert len(notes) == 4 and all("MPI_Comm_split_type" in n and "size 2" in n
                                   for n in notes)


@pytest.mark.real_mpi
def test_a_fresh_recording_with_mpich_replays_to_what_the_program_printed(tmp_path):
    mpicc, mpiexec = oracle_mpich()
    app = tmp_path / "comm_chapters"
    subprocess.run([str(mpicc), "-g", "-O1", "-o", str(app),
                    str(DATA / "replay_c" / "comm_chapters.c")], check=True, timeout=120)
    trace = tmp_path / "cc.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(trace), "--",
                          str(mpiexec), "-n", "4", str(app)], capture_output=True, text=True,
                         env=env, timeout=180, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # what MPICH computed (3.5, 8.6, 7.6): rank 0 of the 2x2 periodic grid gets rank 2's
    # +1 block from its -1 neighbour in dimension 0, the upper half's sum over the lower...
    assert "rank 0: grid 2x2 shifts 2 2 1 1 alltoall 21 20 13 12 allgather 2 2 1 1" in run.stdout
    assert "rank 3: row sum 5 ring from 2 evens 0 node 4 inter got 1 sum 1 merged 3" in run.stdout
    program = ReplayProgram(trace)
    result = ms.run(program, ranks=4, mpi={"profile": "mpich"})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert all(not notes for notes in program.divergences.values()), program.divergences
