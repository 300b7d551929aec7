"""One-sided communication, groups, MPI_Comm_idup, sessions and the large-count bindings,
recorded and replayed: ``tests/data/replay_c/onesided.c`` recorded under MPICH 5.0.2 on 4
processes (``tests/data/replay/onesided.trace``; the real_mpi test records it afresh).

MPI 4.1 §12.5.1 (fence epochs), §12.5.2 (post/start/complete/wait between the groups each
names), §12.5.3 (lock/unlock, lock_all, flush), §12.3 (put, get, accumulate,
get_accumulate, fetch_and_op), §7.3 (groups are local: the recording gives each group's
members), §7.4.2 (a communicator of MPI_Comm_idup is usable once its request completed),
§11.3 (a session's process set "mpi://WORLD" holds every process), §6 and §3 (an ``_c``
binding is its int form with an MPI_Count)."""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay, replay_scenario

RECORDING = DATA / "replay" / "onesided.trace"
ONCE = ["MPI_Get", "MPI_Accumulate", "MPI_Win_allocate", "MPI_Win_lock", "MPI_Win_flush",
        "MPI_Fetch_and_op", "MPI_Win_unlock", "MPI_Win_lock_all", "MPI_Get_accumulate",
        "MPI_Win_flush_all", "MPI_Win_unlock_all", "MPI_Comm_idup", "MPI_Session_init",
        "MPI_Bcast"]
COUNTS = {**dict.fromkeys(ONCE, 4), "MPI_Win_create": 8, "MPI_Win_fence": 12,
          "MPI_Win_free": 12, "MPI_Put": 10, "MPI_Win_post": 2, "MPI_Win_start": 2,
          "MPI_Win_wait": 2, "MPI_Win_complete": 2}
"""What the 4 processes call, all together: each of ONCE once; two windows created and
three freed, three fences, a put in each epoch but the odd ranks' exposure epoch; the odd
ranks post and wait, the even ones start, put and complete."""


def _replayed(path: Path) -> tuple[object, collections.Counter]:
    scenario = replay_scenario(path)
    result = scenario.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert scenario.compare(result) == "agrees with the recording: both completed"
    assert result.warnings == [], result.warnings
    return result, collections.Counter(result.trace.calls["call"].tolist())


def test_the_recorder_s_words_for_windows_groups_and_sessions_are_read():
    log = read_trace(RECORDING).ranks[0]
    by_name: dict[str, object] = {}
    for call in log.calls:  # each call's first
        by_name.setdefault(call.name, call)
    assert by_name["Win_create"].args == {"comm": 0, "size": 128, "du": 8}
    assert by_name["Win_create"].out == {"win": 1}
    put = by_name["Put"]  # rank 0 puts 4 doubles at its right neighbour's displacement 0
    assert (put.args["tgt"], put.args["n"], put.args["tdisp"], put.args["tn"]) == (1, 4, 0, 4)
    assert by_name["Accumulate"].args["op"] == "SUM"
    assert by_name["Win_lock"].args["lt"] == "X"
    assert by_name["Win_start"].args["grp"] == [1]  # rank 0's partner, rank ^ 1
    assert by_name["Group_excl"].out["wr"] == [1, 2, 3]
    assert by_name["Comm_idup"].out["new"] >= 2 and "r" in by_name["Comm_idup"].out
    assert by_name["Group_from_session_pset"].args["pset"] == "mpi://WORLD"
    assert by_name["Comm_create_from_group"].out["size"] == 4
    # MPI_Send_c and MPI_Bcast_c are logged as their int forms
    assert by_name["Send"].args["n"] == 64 and by_name["Bcast"].args["n"] == 64


def test_the_recording_replays_to_agreement_with_every_epoch_and_operation():
    _, calls = _replayed(RECORDING)
    assert {name: calls[name] for name in COUNTS} == COUNTS


def test_a_window_the_recorder_did_not_log_is_named(tmp_path):
    text = re.sub(r"^(Put .*) win=1 ", r"\1 win=9 ", RECORDING.read_text(), count=1,
                  flags=re.MULTILINE)
    assert " win=9 " in text
    damaged = tmp_path / "damaged.trace"
    damaged.write_text(text)
    result = replay(damaged)
    assert result.outcome is ms.Outcome.ERROR
    assert "window 9 was made by a call the recorder does not log" in result.error.message


@pytest.mark.real_mpi
def test_a_fresh_recording_with_mpich_replays_to_agreement(tmp_path):
    mpicc, mpiexec = oracle_mpich()
    app = tmp_path / "onesided"
    subprocess.run([str(mpicc), "-g", "-O1", "-o", str(app),
                    str(DATA / "replay_c" / "onesided.c")], check=True, timeout=120)
    trace = tmp_path / "onesided.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(trace), "--",
                          str(mpiexec), "-n", "4", str(app)], capture_output=True, text=True,
                         env=env, timeout=180, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    fresh, stored = read_trace(trace), read_trace(RECORDING)
    assert [[c.name for c in r.calls] for r in fresh.ranks] == \
        [[c.name for c in r.calls] for r in stored.ranks]
    _, calls = _replayed(trace)
    assert {name: calls[name] for name in COUNTS} == COUNTS


# -- the request-based operations (§12.3.5): tests/data/replay_c/rma_requests.c ----------------
REQUESTS = DATA / "replay" / "rma-requests.trace"
"""``rma_requests.c`` recorded under MPICH 5.0.2 on 2 processes."""


def test_the_request_based_operations_are_read_with_their_requests():
    calls = read_trace(REQUESTS).ranks[0].calls
    made = {c.name: c for c in calls if c.name in ("Rput", "Rget", "Raccumulate",
                                                   "Rget_accumulate")}
    assert [made[n].out["r"] for n in ("Rput", "Rget", "Raccumulate", "Rget_accumulate")] == \
        [1, 2, 3, 4]
    assert made["Raccumulate"].args["op"] == "SUM" and made["Raccumulate"].args["tdisp"] == 8
    assert (made["Rget_accumulate"].args["rn"], made["Rget_accumulate"].args["op"]) == \
        (1, "NO_OP")
    # MPICH gives requests that completed at once one built-in handle: the recorder still
    # names each by its own id, oldest first
    waits = [c.args["r"] for c in calls if c.name in ("Wait", "Waitall")]
    assert waits == [[1, 2], [3], [4]]


def test_the_request_based_operations_replay_to_agreement():
    _, calls = _replayed(REQUESTS)
    assert {n: calls[f"MPI_{n}"] for n in ("Rput", "Rget", "Raccumulate", "Rget_accumulate",
                                           "Wait", "Waitall")} == \
        {"Rput": 2, "Rget": 2, "Raccumulate": 2, "Rget_accumulate": 2, "Wait": 4,
         "Waitall": 2}


@pytest.mark.real_mpi
def test_a_fresh_recording_of_the_request_forms_with_mpich_replays_to_agreement(tmp_path):
    mpicc, mpiexec = oracle_mpich()
    app = tmp_path / "rma_requests"
    subprocess.run([str(mpicc), "-g", "-O1", "-o", str(app),
                    str(DATA / "replay_c" / "rma_requests.c")], check=True, timeout=120)
    trace = tmp_path / "rma_requests.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(trace), "--",
                          str(mpiexec), "-n", "2", str(app)], capture_output=True, text=True,
                         env=env, timeout=180, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert [[(c.name, c.args.get("r")) for c in r.calls] for r in read_trace(trace).ranks] == \
        [[(c.name, c.args.get("r")) for c in r.calls] for r in read_trace(REQUESTS).ranks]
    _replayed(trace)
