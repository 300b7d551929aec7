"""Recordings of spawning C programs replayed with their children (MPI 4.1 §11.8.2, §11.8.3).

tests/data/replay_c/spawn_pair.c (two processes spawn two children of the same program, which
exchange messages with their parents over the intercommunicator and among themselves on
their own MPI_COMM_WORLD; with ``deadlock``, each child first waits for a message its parent
never sends), spawn_multiple.c (two commands of 1 and 2 processes in one spawned world),
spawn_nested.c (children that spawn children), spawn_fail.c (a spawn with maxprocs -1:
MPICH 5.0.2 fails it with MPI_ERR_ARG at the root, the other parent waits in it) and
spawn_buffer.c (a child's MPI_Isend buffer written before its wait, with ``touch``) were
recorded under MPICH 5.0.2 in the text format into tests/data/replay/spawn-pair.trace,
spawn-pair-deadlock.trace, spawn-multiple.trace, spawn-nested.trace, spawn-fail.trace,
spawn-buffer-touch.trace and spawn-buffer-ok.trace
(``#exe``, ``#host`` and ``#pid`` made neutral; the children's logs after their parents',
as ``mpisim record`` joins them). The stored recordings are replayed without
any MPI; the real_mpi tests record the programs afresh (skipped without MPICH's mpicc).
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario

STORED = DATA / "replay"
SOURCES = DATA / "replay_c"


def _convert(source: Path, tmp_path: Path) -> Path:
    """The text recording ``source`` in the compact format (``mpisim record --convert``)."""
    out = tmp_path / f"{source.stem}.compact.trace"
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--convert", str(source),
                          "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return out


def _stored(name: str, fmt: str, tmp_path: Path) -> Path:
    path = STORED / f"{name}.trace"
    return _convert(path, tmp_path) if fmt == "compact" else path


@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_11_8_2_the_children_are_read_with_their_spawn(fmt, tmp_path):
    """§11.8.2: a recording holds the processes mpiexec started and, apart, each spawn's
    children by their rank in their own MPI_COMM_WORLD; the parents' MPI_Comm_spawn names
    the spawn, the children's headers say which spawn, parents' world and how many
    parents; MPI_Comm_get_parent gives the children the intercommunicator's id."""
    trace = read_trace(_stored("spawn-pair", fmt, tmp_path), sources=False)
    assert trace.size == 2 and list(trace.spawns) == ["0.1"]
    children = trace.spawns["0.1"]
    assert [(c.rank, c.size) for c in children] == [(0, 2), (1, 2)]
    for child in children:
        assert child.spawn == "0.1"
        assert child.header["parent-world"] == "0" and child.header["parents"] == "2"
        parent = next(c for c in child.calls if c.name == "Comm_get_parent")
        assert parent.out["new"] == 2
    spawns = [next(c for c in log.calls if c.name == "Comm_spawn") for log in trace.ranks]
    assert spawns[0].args["np"] == [2] and spawns[0].args["root"] == 0  # the root's
    assert "np" not in spawns[1].args                                  # (not significant)
    assert {c.out["spawn"] for c in spawns} == {"0.1"}
    assert [(c.out["size"], c.out["rsize"]) for c in spawns] == [(2, 2), (2, 2)]
    assert [log.calls[1].out["new"] for log in trace.ranks] == [-1, -1]  # no parent
    assert trace.outcome() == "completed" and len(trace.processes) == 4


@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_11_8_2_a_spawn_replays_its_children_and_agrees(fmt, tmp_path):
    """§11.8.2: the parents' replay reaches MPI_Comm_spawn, the simulated spawn starts the
    two children, each replaying its log: their messages with the parents over the
    intercommunicator, their Sendrecv and Allreduce on their own MPI_COMM_WORLD, both
    sides' MPI_Comm_disconnect (§11.10.4). It completes as recorded."""
    sc = replay_scenario(_stored("spawn-pair", fmt, tmp_path))
    assert "4 processes (2 of them spawned)" in sc.recording()
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert len(result.ranks) == 4
    assert [r.spawned["world_rank"] for r in result.ranks[2:]] == [0, 1]
    assert all(r.spawned["by"] == [0, 1] for r in result.ranks[2:])
    report = result.report()
    assert "2 ranks and 2 spawned" in report
    assert not result.warnings, result.warnings  # no divergence from the recording
    assert sc.compare(result) == "agrees with the recording: both completed"


@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_11_8_2_a_deadlock_across_the_intercommunicator_names_the_childrens_calls(fmt,
                                                                                 tmp_path):
    """§11.8.2: each child waits for a message its parent never sends, each parent for the
    child's answer. The replay is a DEADLOCK naming the children's MPI_Recv at their
    recorded call and line, and agrees with the stopped recording call by call."""
    sc = replay_scenario(_stored("spawn-pair-deadlock", fmt, tmp_path))
    assert "a deadlock: every unfinished process was waiting inside MPI" in sc.recording()
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    blocked = {b.rank: (b.call, b.where) for b in result.deadlock.blocked}
    assert set(blocked) == {0, 1, 2, 3}
    assert blocked[2][0] == "MPI_Recv" and str(blocked[2][1]).startswith("call 3")
    assert "rank 2 (spawned: rank 0 of its world): MPI_Recv" in result.report()
    verdict = sc.compare(result)
    assert verdict.startswith("agrees with the recording: the same calls are blocked")
    assert "rank 2 (spawn 0.1, rank 0) in MPI_Recv at call 3" in verdict


def test_11_10_1_a_profile_that_limits_spawns_to_the_universe_says_how_to_widen_it():
    """§11.10.1: replayed under Open MPI's profile, whose spawns stop at MPI_UNIVERSE_SIZE
    (the 2 processes started), the spawn fails with MPI_ERR_SPAWN; the verdict names the
    universe that holds every recorded process, and with it the replay agrees."""
    sc = replay_scenario(STORED / "spawn-pair.trace", overrides={"mpi.profile": "openmpi-5.0"})
    result = sc.run()
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_SPAWN"
    verdict = sc.compare(result)
    assert verdict.startswith("DIFFERS") and "--set mpi.universe=4" in verdict
    wider = sc.with_overrides({"mpi.universe": 4})
    assert wider.compare(wider.run()) == "agrees with the recording: both completed"


@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_11_8_3_spawn_multiple_replays_each_command_with_its_appnum(fmt, tmp_path):
    """§11.8.3: MPI_Comm_spawn_multiple of two commands (1 and 2 processes) makes one
    world of 3; each child's header gives its MPI_APPNUM (0, 1, 1), the root's call its
    commands and maxprocs. The replay starts the three children in that order and agrees:
    each parent receives its child's sum."""
    path = _stored("spawn-multiple", fmt, tmp_path)
    trace = read_trace(path, sources=False)
    children = trace.spawns["0.1"]
    assert [c.header["appnum"] for c in children] == ["0", "1", "1"]
    root = next(c for c in trace.ranks[0].calls if c.name == "Comm_spawn_multiple")
    assert root.args["np"] == [1, 2] and root.out["rsize"] == 3
    assert root.args["cmds"] == "./spawn_multiple,./spawn_multiple"
    sc = replay_scenario(path)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert [r.spawned["appnum"] for r in result.ranks[2:]] == [0, 1, 1]
    assert sc.compare(result) == "agrees with the recording: both completed"


def test_11_8_2_spawns_within_spawns_replay_with_their_own_ids():
    """§11.8.2: spawn_nested.c: each of the two processes spawns a child from
    MPI_COMM_SELF, which spawns a grandchild. The spawns are named by their root (0.1,
    1.1) and a spawned root's by its world (0.1-0.1); a grandchild's header names its
    parents' world. The replay starts all four, the two spawns at once included, and
    agrees, each process compared with its own log."""
    trace = read_trace(STORED / "spawn-nested.trace", sources=False)
    assert list(trace.spawns) == ["0.1", "0.1-0.1", "1.1", "1.1-0.1"]
    assert trace.spawns["1.1-0.1"][0].header["parent-world"] == "1.1"
    sc = replay_scenario(STORED / "spawn-nested.trace")
    assert "6 processes (4 of them spawned)" in sc.recording()
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sorted(sc._last.spawned.values()) == [("0.1", 0), ("0.1-0.1", 0), ("1.1", 0),
                                                 ("1.1-0.1", 0)]
    assert sc.compare(result) == "agrees with the recording: both completed"


def test_5_1_9_a_leak_in_a_spawned_process_is_a_finding_of_that_process(tmp_path):
    """§5.1.9 in a child (§11.8.2): spawn-pair.trace with a derived type child 0 commits
    and never frees, before its MPI_Finalize: the replay still agrees, and the leak is a
    finding of child 0's process (rank 2 in the replay), at its call."""
    parts = (STORED / "spawn-pair.trace").read_text().split("#mpisim-trace 1\n")
    child = parts[3]
    at = child.rfind("\n", 0, child.index("Finalize g=")) + 1
    parts[3] = (child[:at] + "T 9 size=8 extent=8 lb=0 kind=contiguous\n"
                "Type_commit g=10 T=9\n= 0 d=10\n" + child[at:])
    path = tmp_path / "leak.trace"
    path.write_text("#mpisim-trace 1\n".join(parts))
    sc = replay_scenario(path)
    result = sc.run()
    leaks = [f for f in result.findings if f.rule == "leak-datatype"]
    assert [(f.calls[0].rank, f.calls[0].call) for f in leaks] == [(2, "MPI_Type_commit")]
    assert sc.compare(result) == "agrees with the recording: both completed"


def test_11_8_2_a_spawn_that_failed_replays_with_the_same_error():
    """§11.8.2: maxprocs -1 at the root: MPICH 5.0.2 returned MPI_ERR_ARG there at once
    (MPI_ERRORS_RETURN; the program went on to a barrier) while the other parent waited in
    the spawn. The simulated spawn fails the same way: the root's MPI_ERR_ARG is an
    invalid-argument finding, and the two processes deadlock where the recorded ones
    were stopped."""
    sc = replay_scenario(STORED / "spawn-fail.trace")
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert {b.rank: b.call for b in result.deadlock.blocked} == {0: "MPI_Barrier",
                                                                 1: "MPI_Comm_spawn"}
    found = [f for f in result.findings if f.rule == "invalid-argument"]
    assert len(found) == 1 and "MPI_ERR_ARG" in found[0].message
    assert "maxprocs" in found[0].message and found[0].calls[0].rank == 0
    assert sc.compare(result).startswith("agrees with the recording")


def test_11_8_2_a_spawned_world_with_a_missing_log_is_refused_naming_it(tmp_path):
    """A recording directory whose spawn lacks one child's log: one line naming the spawn
    and the missing rank, not a replay that stops half-way."""
    logs = tmp_path / "run"
    logs.mkdir()
    text = (STORED / "spawn-pair.trace").read_text()
    parts = text.split("#mpisim-trace 1\n")[1:]
    for i, part in enumerate(parts[:3]):  # the two parents and child 0 only
        name = f"rank.{i}.log" if i < 2 else "spawn.0.1.rank.0.log"
        (logs / name).write_text("#mpisim-trace 1\n" + part)
    with pytest.raises(ValueError, match=r"no log of rank 1 of spawn 0\.1 \(of 2\)"):
        read_trace(logs, sources=False)


def test_a_directory_of_parents_and_children_reads_as_the_joined_file(tmp_path):
    """The rank.N.log and spawn.ID.rank.N.log files of a recording directory read as the
    file mpisim record joins them into (the parents, then each spawn's children)."""
    logs = tmp_path / "run"
    logs.mkdir()
    parts = (STORED / "spawn-pair.trace").read_text().split("#mpisim-trace 1\n")[1:]
    names = ["rank.0.log", "rank.1.log", "spawn.0.1.rank.0.log", "spawn.0.1.rank.1.log"]
    for name, part in zip(names, parts, strict=True):
        (logs / name).write_text("#mpisim-trace 1\n" + part)
    trace = read_trace(logs, sources=False)
    assert [log.spawn for log in trace.processes] == [None, None, "0.1", "0.1"]
    assert replay_scenario(logs).run().outcome is ms.Outcome.COMPLETED


def test_11_8_2_a_spawn_whose_children_left_no_log_stops_saying_why(tmp_path):
    """The parents' logs without their children's (children the recorder never reached):
    the replay stops at the spawn's root with one line naming the spawn."""
    logs = tmp_path / "run"
    logs.mkdir()
    parts = (STORED / "spawn-pair.trace").read_text().split("#mpisim-trace 1\n")[1:]
    for i in (0, 1):
        (logs / f"rank.{i}.log").write_text("#mpisim-trace 1\n" + parts[i])
    result = replay_scenario(logs).run()
    assert result.outcome is ms.Outcome.ERROR
    assert "holds no log of the processes this MPI_Comm_spawn started (spawn 0.1" in \
        str(result.error)


def test_mpisim_record_joins_the_childrens_logs_after_their_parents(tmp_path):
    """merge_logs (what mpisim record writes at the end) puts each spawn's logs after the
    parents', spawn by spawn and rank by rank, whatever the files' order on disk."""
    from mpisim.recorded.record.recorder import merge_logs
    logs = tmp_path / "run"
    logs.mkdir()
    parts = (STORED / "spawn-nested.trace").read_text().split("#mpisim-trace 1\n")[1:]
    for part in parts:
        header = dict(line[1:].split(" ", 1) for line in part.splitlines()
                      if line.startswith("#") and " " in line)
        rank = header["rank"].split()[0]
        spawn = header.get("spawn")
        name = f"spawn.{spawn}.rank.{rank}.log" if spawn else f"rank.{rank}.log"
        (logs / name).write_text("#mpisim-trace 1\n" + part)
    assert merge_logs(logs, tmp_path / "joined.trace") == 6
    trace = read_trace(tmp_path / "joined.trace", sources=False)
    assert [log.spawn for log in trace.processes] == [None, None, "0.1", "0.1-0.1", "1.1",
                                                      "1.1-0.1"]
    assert (tmp_path / "joined.trace").read_text() == (STORED / "spawn-nested.trace").read_text()


def _now(logs: Path, name: str, seq: int, inside: bool, call: str, size: int) -> None:
    """A process's ``NAME.now`` (as the recorder keeps it) and the head of its log."""
    (logs / f"{name}.now").write_bytes(
        struct.pack("=8sQQ40s", b"mpisim1\0", seq, int(inside), call.encode()))
    rank = name.rpartition(".")[2]
    (logs / f"{name}.log").write_text(f"#mpisim-trace 1\n#rank {rank} {size}\n"
                                      f"#pid {os.getpid()}\n")


def test_11_8_2_the_stall_watch_waits_for_working_children(tmp_path):
    """mpisim record's stall watch: the two parents wait in MPI_Recv for their children's
    answers while a child still computes (outside MPI): no stall. Once every child waits
    too, the run is stalled."""
    from mpisim.recorded.record.stall import StallWatch
    for rank in (0, 1):
        _now(tmp_path, f"rank.{rank}", 5, True, "Recv", 2)
    _now(tmp_path, "spawn.0.1.rank.0", 3, True, "Recv", 2)
    _now(tmp_path, "spawn.0.1.rank.1", 4, False, "Allreduce", 2)  # computing
    watch = StallWatch(str(tmp_path), 1.0)
    assert not watch.stalled(0.0)
    assert not watch.stalled(10.0)
    _now(tmp_path, "spawn.0.1.rank.1", 5, True, "Recv", 2)
    assert not watch.stalled(11.0)  # (first seen there)
    assert watch.stalled(12.0)
    assert watch.blocked_for("spawn.0.1.rank.1", 12.0) == 1.0
    assert watch.blocked_for(0, 12.0) == 12.0


def test_a_recording_made_before_children_were_recorded_still_stops_at_the_intercomm(
        tmp_path):
    """A recording whose parents show the spawn's intercommunicator only as a
    communicator made by an unlogged call (the recorder before it logged MPI_Comm_spawn)
    still reads, and its replay stops there saying why."""
    old = ("#mpisim-trace 1\n#rank {r} 2\n#pid 1\n#mpi 5.0\n#any-source -2\n#proc-null -1\n"
           "#library MPICH Version: 5.0.2\nInit g=0 thread=0\n= 0 d=0\n"
           "C 2 size=2 rank={r} origin=unlogged\nBarrier g=10 comm=2\n= 0 d=10\n"
           "Finalize g=10\n= 0 d=10\n")
    path = tmp_path / "old.trace"
    path.write_text(old.format(r=0) + old.format(r=1))
    assert read_trace(path, sources=False).spawns == {}
    result = replay_scenario(path).run()
    assert result.outcome is ms.Outcome.ERROR
    assert "made by a call the recorder does not log" in str(result.error)


def test_11_8_2_a_spawned_processs_buffers_are_judged_as_a_ranks(tmp_path):
    """§11.8.2, §3.7.2: the child's MPI_Isend buffer written before its MPI_Wait is
    buffer-modified, named by the child's number in the replay (1: after the one rank);
    written after the wait, nothing. In both formats."""
    for fmt in ("text", "compact"):
        touched = _stored("spawn-buffer-touch", fmt, tmp_path)
        result = ms.replay(touched)
        assert result.outcome is ms.Outcome.COMPLETED
        (found,) = result.findings
        assert found.rule == "buffer-modified"
        assert [(c.rank, c.call) for c in found.calls] == [(1, "MPI_Isend"), (1, "MPI_Wait")]
        assert ms.replay(_stored("spawn-buffer-ok", fmt, tmp_path)).findings == []


# -- recorded afresh on MPICH 5.0.2 ------------------------------------------------------------
def _record(tmp_path: Path, name: str, *extra: str, args: tuple[str, ...] = ()
            ) -> tuple[Path, subprocess.CompletedProcess]:
    mpicc, mpiexec = oracle_mpich()
    exe = tmp_path / name
    subprocess.run([mpicc, "-g", "-O1", "-o", str(exe), str(SOURCES / f"{name}.c")],
                   check=True, timeout=120)
    out = tmp_path / f"{name}.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(out), *extra,
                          "--", mpiexec, "-n", "2", str(exe), *args], capture_output=True,
                         text=True, env=env, timeout=300, cwd=tmp_path)
    return out, run


@pytest.mark.real_mpi
@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_11_8_2_spawn_pair_recorded_on_mpich_replays_as_recorded(fmt, tmp_path):
    """§11.8.2: spawn_pair.c recorded on MPICH 5.0.2: the children's logs are in the
    recording (mpisim record counts them), and the replay agrees with it."""
    out, run = _record(tmp_path, "spawn_pair", "--format", fmt)
    assert run.returncode == 0, run.stderr
    assert sorted(run.stdout.split("\n")) == ["", "parent 0 got 21", "parent 1 got 21"]
    assert "2 processes and 2 spawned" in run.stderr
    assert "does not log" not in run.stderr  # MPI_Comm_spawn and the rest are logged
    trace = read_trace(out, sources=False)
    assert list(trace.spawns) == ["0.1"] and trace.outcome() == "completed"
    sc = replay_scenario(out)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")


@pytest.mark.real_mpi
@pytest.mark.parametrize("touch", [True])  # (its twin: judged from its stored recording)
def test_11_8_2_a_spawned_processs_buffer_recorded_on_mpich_is_judged(touch, tmp_path):
    """§11.8.2, §3.7.2: spawn_buffer.c recorded afresh on one process: the child's log holds
    its buffers' hashes, and its buffer written before its wait is buffer-modified."""
    mpicc, mpiexec = oracle_mpich()
    exe = tmp_path / "spawn_buffer"
    subprocess.run([mpicc, "-g", "-O1", "-o", str(exe), str(SOURCES / "spawn_buffer.c")],
                   check=True, timeout=120)
    out = tmp_path / "run.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(out), "--",
                          mpiexec, "-n", "1", str(exe), *(["touch"] if touch else [])],
                         capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "1 process and 1 spawned" in run.stderr
    assert [f.rule for f in ms.replay(out).findings] == (["buffer-modified"] if touch else [])


@pytest.mark.real_mpi
@pytest.mark.slow
def test_11_8_3_spawn_multiple_recorded_on_mpich_replays_as_recorded(tmp_path):
    """§11.8.3: spawn_multiple.c recorded on MPICH 5.0.2 (compact): three children of two
    commands, and the replay agrees."""
    out, run = _record(tmp_path, "spawn_multiple")
    assert run.returncode == 0, run.stderr
    assert "2 processes and 3 spawned" in run.stderr
    assert sorted(run.stdout.split("\n")) == ["", "parent 0 got 2", "parent 1 got 2"]
    sc = replay_scenario(out)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert sc.compare(result).startswith("agrees")


@pytest.mark.real_mpi
@pytest.mark.slow
def test_11_8_2_a_deadlock_with_children_recorded_on_mpich_replays_as_deadlock(tmp_path):
    """§11.8.2: spawn_pair.c's deadlock stopped by mpisim record's stall watch: every
    blocked call is named, the children's by their spawn; the replay is a DEADLOCK that
    agrees with the recording."""
    out, run = _record(tmp_path, "spawn_pair", "--stall", "2", args=("deadlock",))
    assert run.returncode == 3, run.stderr
    assert "spawn 0.1 rank 0: blocked in MPI_Recv src=0 tag=3" in run.stderr
    assert "spawn 0.1 rank 1: blocked in MPI_Recv src=1 tag=3" in run.stderr
    sc = replay_scenario(out)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert sc.compare(result).startswith("agrees with the recording: the same calls are "
                                         "blocked")
