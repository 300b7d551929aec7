"""Replay round 2: the recorded library's profile by default, the verdicts (stopped runs
told apart, unfinalized runs, library quirks, DIFFERS hints), the blocked call's real name,
matched probes, and --to-yaml's persistent requests and nested loops. Stored recordings were
made with MPICH 5.0.2 (`mpisim record`) from the programs in tests/data/replay_c/."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from helpers import paths

import mpisim as ms
from mpisim.recorded import replay_scenario
from mpisim.recorded.library import profile_for
from mpisim.recorded.replayer.verdict import stop_kind
from mpisim.recorded.toyaml.write import scenario_text

DATA = paths.DATA / "replay"


def _mpisim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpisim", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("library", "profile", "exact"), [
    ("MPICH Version:      5.0.2 MPICH Release date: ...", "mpich-5.0", True),
    ("MPICH Version: 4.2.1", "mpich-4.0", False),
    ("Open MPI v5.0.11, package: Open MPI", "openmpi-5.0", True),
    ("Open MPI v4.1.4, package: Debian", "openmpi-4.1", True),
    ("Open MPI v6.0.0, package", "openmpi-5.0", False),
    ("Intel(R) MPI Library 2021.6 for Linux", "standard", False),
    ("", "standard", False)])
def test_the_recorded_library_chooses_its_profile(library, profile, exact):
    chosen = profile_for(library)
    assert (chosen.profile, chosen.exact) == (profile, exact)
    assert chosen.reason


def test_a_replay_runs_under_the_recorded_librarys_profile_unless_told():
    """The recording names MPICH 5.0.2: its replay is MPICH's (eager limit 8 KiB: Example
    3.10's 40000-byte sends wait for their receives, 3.4), said as coming from the recording;
    ``mpi.profile`` given overrides it."""
    sc = replay_scenario(DATA / "example-3.10-send-killed.trace")
    result = sc.run()
    assert result.settings["mpi.profile"] == {"value": "mpich-5.0", "from": "recording"}
    assert result.outcome is ms.Outcome.DEADLOCK
    assert "replayed under profile mpich-5.0: the recording's library, MPICH 5.0.2" in \
        sc.recording()
    assert sc.compare(result).startswith("agrees with the recording: the same calls")
    standard = sc.with_overrides({"mpi.profile": "standard"})
    got = standard.run()
    assert got.settings["mpi.profile"]["value"] == "standard"
    assert got.settings["mpi.profile"]["from"] != "recording"
    verdict = standard.compare(got)
    assert verdict.startswith("DIFFERS") and "try: --set mpi.profile=mpich-5.0" in verdict
    assert "got past MPI_Send" in verdict


def test_q_keeps_the_verdict_and_the_report_names_the_profile_source():
    quiet = _mpisim("replay", str(DATA / "example-3.10-send.trace"), "-q")
    assert quiet.returncode == 0
    assert quiet.stdout.splitlines() == [  # (one line: the outcome with the verdict)
        "example-3.10-send: completed; agrees with the recording: both completed"]
    full = _mpisim("replay", str(DATA / "example-3.10-send.trace"))
    assert "profile mpich-5.0 (recording)" in full.stdout


def _log(rank: int, size: int, body: str, end: str = "Finalize g=0\n= 0 d=0\n") -> str:
    return (f"#mpisim-trace 1\n#rank {rank} {size}\n#library MPICH Version: 5.0.2\n"
            f"Init g=0 thread=0\n= 0 d=0\nT 1 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n"
            f"{body}{end}")


def test_a_blocked_wait_is_reported_as_mpi_wait(tmp_path):
    """MPI_Wait on a receive nobody sends (stopped by SIGTERM inside it): the replay's
    blocked call is MPI_Wait, as in the program, not the MPI_Waitall it is replayed with."""
    path = tmp_path / "wait.trace"
    body = "Irecv g=0 src=1 tag=5 comm=0 n=1 T=1\n= 0 d=10 r=1\nWait g=0 r=1\n"
    path.write_text(_log(0, 2, body, "# signal 15 in=2000000000\n")
                    + _log(1, 2, "Recv g=0 src=0 tag=5 comm=0 n=1 T=1\n",
                           "# signal 15 in=2000000000\n"))
    sc = replay_scenario(path)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert {b.rank: b.call for b in result.deadlock.blocked} == {0: "MPI_Wait", 1: "MPI_Recv"}
    assert stop_kind(sc.trace).startswith("a deadlock")
    assert sc.compare(result).startswith("agrees with the recording: the same calls")


def test_processes_that_exit_without_finalize_get_a_reason_and_a_verdict(tmp_path):
    """MPI 4.1 §11.2.2: every process must call MPI_Finalize before it exits. A recording
    whose processes returned from main without it is 'unfinalized' (not an error in a call),
    says so per process, and its replay agrees when it ran every recorded call."""
    path = tmp_path / "unfinalized.trace"
    path.write_text(_log(0, 2, "Send g=0 dest=1 tag=0 comm=0 n=1 T=1\n= 0 d=10\n",
                         "# exit g=1000\n")
                    + _log(1, 2, "Recv g=0 src=0 tag=0 comm=0 n=1 T=1\n= 0 d=10 st=0:0:8\n",
                           "# exit g=1000\n"))
    sc = replay_scenario(path)
    assert sc.trace.outcome() == "unfinalized"
    assert "exited without calling MPI_Finalize after call 2 (MPI_Send)" in sc.recording()
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees with the recording: every process ran all")


def test_mpich_source_of_a_persistent_receive_from_proc_null_is_a_quirk():
    """MPI 4.1 §3.10: a receive from MPI_PROC_NULL returns source MPI_PROC_NULL; MPICH 5.0.2
    gives MPI_ANY_SOURCE for a persistent one. A library quirk, named so, not a divergence."""
    sc = replay_scenario(DATA / "persistent-proc-null.trace")
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert not [w for w in result.warnings if w.startswith("replay diverged")]
    assert [w for w in result.warnings if w.startswith("library quirk (not a divergence)")]
    assert sc.compare(result) == "agrees with the recording: both completed"


@pytest.mark.parametrize(("name", "kind", "places"), [
    ("endless-stopped", "endless", ["rank 0 in MPI_Sendrecv call 150",
                                    "rank 1 computing after call 149"]),
    ("slow-stopped", "slow: rank 1", ["rank 0 in MPI_Sendrecv call 6",
                                      "rank 1 computing after call 4",
                                      "rank 2 in MPI_Sendrecv call 5"])])
def test_a_run_stopped_while_running_replays_to_the_same_point(name, kind, places):
    """endless.c stopped by --timeout: a rank stopped outside MPI keeps computing (it never
    reaches MPI_Finalize, so its neighbour's MPI_Sendrecv stays blocked) and the replay
    stops where the recording was; an endless run and a slow one are told apart."""
    sc = replay_scenario(DATA / f"{name}.trace")
    assert stop_kind(sc.trace).startswith(kind)
    for scale in (1.0, 0.0):
        run = sc.with_overrides({"compute_scale": scale})
        result = run.run()
        assert result.outcome is ms.Outcome.TIMEOUT
        assert "stopped where the recording was" in result.timeout_reason
        verdict = run.compare(result)
        assert verdict.startswith("agrees with the recording: stopped while running; the "
                                  "replay reached the same point")
        assert all(p in verdict for p in places)
        assert not result.unreceived  # no rank was replayed as if its program had ended


def test_a_stopped_run_that_the_replay_cannot_reach_names_where(tmp_path):
    """Both processes were computing when stopped; rank 1's second receive (tag 7) matched
    a message the replay has no send of (rank 0's log lost it), so the replay blocks there:
    the verdict names rank 1's call 3, where it did not reach the recording's point."""
    path = tmp_path / "lost.trace"
    path.write_text(
        _log(0, 2, "Send g=0 dest=1 tag=0 comm=0 n=1 T=1\n= 0 d=10\n", "# signal 15 g=5000\n")
        + _log(1, 2, "Recv g=0 src=0 tag=0 comm=0 n=1 T=1\n= 0 d=10 st=0:0:8\n"
                     "Recv g=0 src=0 tag=7 comm=0 n=1 T=1\n= 0 d=10 st=0:7:8\n",
               "# signal 15 g=5000\n"))
    sc = replay_scenario(path)
    result = sc.run()
    assert result.outcome is ms.Outcome.TIMEOUT
    verdict = sc.compare(result)
    assert verdict.startswith("DIFFERS from the recording: rank 1 was blocked in MPI_Recv at "
                              "call 3")
    assert "went on to call 3 (MPI_Recv) and was computing after it" in verdict


def test_matched_probes_are_replayed_and_wildcards_pinned_agree():
    """MPI 4.1 §3.8.2: MPI_Mprobe/MPI_Improbe take a message, MPI_Mrecv/MPI_Imrecv receive
    exactly it. Rank 0 sizes each receive by the probe's status: with ANY_SOURCE the replay
    may take another sender's message first (a divergence, then a truncation); pinned to
    what the recording matched it completes and agrees."""
    sc = replay_scenario(DATA / "matched-probes.trace")
    calls = [c.name for c in sc.trace.ranks[0].calls]
    assert {"Mprobe", "Improbe", "Mrecv", "Imrecv"} <= set(calls)
    pinned = sc.with_overrides({"as_matched": True})
    result = pinned.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.messages["received"] == 4
    assert pinned.compare(result) == "agrees with the recording: both completed"
    free = sc.run()
    if free.outcome is not ms.Outcome.COMPLETED:
        assert "--as-matched" in sc.compare(free)
    refused = _mpisim("replay", str(DATA / "matched-probes.trace"), "--to-yaml")
    assert refused.returncode == 2
    assert "MPI_Mprobe has no op in the scenario grammar" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_to_yaml_writes_persistent_requests_and_folds_nested_loops(tmp_path):
    """nested_persistent.c: 5 steps of (3 starts of a persistent send/receive pair, 4
    MPI_Sendrecv with tags 0..3, a barrier). MPI 4.1 §3.9: a started persistent request is
    as the nonblocking call; --to-yaml writes a loop of 5 holding a loop of 3 and a loop of 4
    (tag: j), and the scenario sends what the replay sends."""
    sc = replay_scenario(DATA / "nested-persistent.trace", overrides={"compute_scale": 0})
    text = scenario_text(sc)
    doc = yaml.safe_load(text)
    ops = doc["programs"][0]["ops"]
    assert len(ops) == 1 and ops[0]["loop"]["times"] == 5
    inner = ops[0]["loop"]["ops"]
    assert [op["loop"]["times"] for op in inner if "loop" in op] == [3, 4]
    assert inner[1]["loop"]["var"] == "j" and inner[1]["loop"]["ops"][0]["isend"]["tag"] == "j"
    assert inner[0]["loop"]["ops"][0]["isend"]["request"] == "r1"
    path = tmp_path / "nested.yaml"
    path.write_text(text)
    written = ms.scenario.load(str(path)).run()
    replayed = sc.run()
    assert written.outcome is replayed.outcome is ms.Outcome.COMPLETED
    assert written.messages == replayed.messages
