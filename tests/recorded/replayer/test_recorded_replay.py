"""Replaying recordings (mpisim.recorded): stored MPICH 5.0.2 recordings and small hand-written
logs. The real-library comparisons are in test_recorded_real.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import paths

import mpisim as ms
from mpisim.recorded import replay, replay_scenario

DATA = paths.DATA / "replay"
KILLED = DATA / "example-3.10-send-killed.trace"


def _mpisim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpisim", *args], capture_output=True,
                          text=True, timeout=120)


def test_killed_deadlock_replays_to_the_same_blocked_calls_under_mpich():
    """Example 3.10, MPI_Send of 40000 B: above MPICH's eager limit both sends wait for a
    receive (3.4: standard mode may block until matched); the recording was killed there."""
    sc = replay_scenario(KILLED).with_overrides({"mpi.profile": "mpich"})
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert sorted((b.rank, b.call, b.where.split(",")[0]) for b in result.deadlock.blocked) == \
        [(0, "MPI_Send", "call 2"), (1, "MPI_Send", "call 2")]
    assert sc.compare(result).startswith("agrees with the recording")


def test_under_standard_eager_limit_the_killed_run_goes_past_and_says_so():
    """Under the standard profile (eager limit 64 KiB) the sends complete: the replay says
    that the recording has nothing after the calls it was killed in, and that it differs.
    The killed processes never reached MPI_Finalize: past their last calls they keep
    running, and the replay stops there (TIMEOUT), never finalizing them."""
    sc = replay_scenario(KILLED).with_overrides({"mpi.profile": "standard"})
    result = sc.run()
    assert result.outcome is ms.Outcome.TIMEOUT
    assert "stopped where the recording was" in result.timeout_reason
    notes = [w for w in result.warnings if w.startswith("replay diverged")]
    assert len(notes) == 2 and all("killed by signal 15" in n for n in notes)
    assert sc.compare(result).startswith("DIFFERS")


def test_recorded_attach_size_and_min_buffer():
    """Example 3.10 with MPI_Bsend: the program attaches pack_size + MPI_BSEND_OVERHEAD
    (8096 B for 2000 floats); min-buffer replaces the recorded size and finds the same
    answer under the standard's model (3.6.1: entry = pack_size + overhead)."""
    sc = replay_scenario(DATA / "example-3.10-bsend.trace").with_overrides(
        {"mpi.profile": "standard"})
    assert sc.run().outcome is ms.Outcome.COMPLETED
    found = ms.min_buffer(sc)
    assert found.min_buffer == 8096
    assert "call 2" in found.report()


def test_overflow_recorded_with_errors_return_replays_as_the_same_count():
    """MPI_ERRORS_RETURN burst: 3 bsends of 20000 B fit a buffer of 3 entries, the 4th
    is MPI_ERR_BUFFER in MPICH; the replay under the mpich profile gives the same count and
    goes on after the error as the program did."""
    result = replay(DATA / "bsend-burst.trace", mpi={"profile": "mpich"})
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.ranks[0].buffer.bsends == 3 and result.ranks[0].buffer.overflows == 1
    assert not [w for w in result.warnings if w.startswith("replay diverged")]


def test_compute_scale_sets_the_time_between_calls():
    """The measured time outside MPI becomes compute; 0 drops it, 2 doubles it."""
    times = {s: replay(DATA / "bsend-ring.trace", compute_scale=s).sim_time
             for s in (0, 1, 2)}
    assert times[0] < times[1] < times[2]
    assert times[0] < 20e-6 < times[1]  # the ring computes ~20 us between its bsends


# -- wildcards, divergences ----------------------------------------------------------------
def _log(rank: int, size: int, body: str) -> str:
    return (f"#mpisim-trace 1\n#rank {rank} {size}\n#library test\n"
            f"Init g=0 thread=0\n= 0 d=0\nT 1 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n"
            f"{body}Finalize g=0\n= 0 d=0\n")


FAN_IN = (
    # rank 0 sent at once in the recording; in the replay it computes 1 ms first
    _log(0, 3, "Send g=1000000 dest=2 tag=0 comm=0 n=10 T=1\n= 0 d=100\n")
    + _log(1, 3, "Send g=0 dest=2 tag=0 comm=0 n=10 T=1\n= 0 d=100\n")
    + _log(2, 3, "Recv g=0 src=A tag=0 comm=0 n=10 T=1\n= 0 d=100 st=0:0:80\n"
                 "Recv g=0 src=A tag=0 comm=0 n=10 T=1\n= 0 d=100 st=1:0:80\n"))


def test_any_source_kept_as_written_reports_the_different_match(tmp_path):
    """3.5/3.8: a wildcard receive matches whichever message comes first; the replay keeps
    the wildcard, and says that the first receive now matched source 1, not 0."""
    path = tmp_path / "fan.trace"
    path.write_text(FAN_IN)
    result = replay(path)
    notes = [w for w in result.warnings if w.startswith("replay diverged")]
    assert result.outcome is ms.Outcome.COMPLETED
    assert any("rank 2 call 2" in n and "matched source 1" in n and "recording matched "
               "source 0" in n for n in notes)


def test_as_matched_pins_the_wildcards(tmp_path):
    path = tmp_path / "fan.trace"
    path.write_text(FAN_IN)
    result = replay(path, as_matched=True)
    assert result.outcome is ms.Outcome.COMPLETED
    assert not [w for w in result.warnings if w.startswith("replay diverged")]


def test_successful_iprobe_that_finds_nothing_is_a_divergence(tmp_path):
    """An MPI_Iprobe that found the message in the recording but finds none in the replay
    (the sender computes first): reported, then the replay probes until it comes."""
    path = tmp_path / "probe.trace"
    path.write_text(
        _log(0, 2, "Send g=5000000 dest=1 tag=3 comm=0 n=1 T=1\n= 0 d=10\n")
        + _log(1, 2, "Iprobe g=0 src=0 tag=3 comm=0\n= 0 d=10 flag=1 st=0:3:8\n"
                     "Recv g=0 src=0 tag=3 comm=0 n=1 T=1\n= 0 d=10 st=0:3:8\n"))
    result = replay(path)
    notes = [w for w in result.warnings if w.startswith("replay diverged")]
    assert result.outcome is ms.Outcome.COMPLETED
    assert any("call 2" in n and "finds none" in n for n in notes)


def test_requests_tests_and_waits(tmp_path):
    """Isend/Irecv named by request ids; failed MPI_Test polls; a successful one a wait
    (the program went on because it succeeded)."""
    path = tmp_path / "req.trace"
    path.write_text(
        _log(0, 2, "Isend g=0 dest=1 tag=0 comm=0 n=100000 T=1\n= 0 d=1 r=1\n"
                   "Test g=0 r=1\n= 0 d=1 flag=0\nTest g=0 r=1\n= 0 d=1 flag=1 st=-\n")
        + _log(1, 2, "Irecv g=200000 src=0 tag=0 comm=0 n=100000 T=1\n= 0 d=1 r=1\n"
                     "Waitall g=0 r=1\n= 0 d=1 st=0:0:800000\n"))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.messages["received"] == 1
    assert not [w for w in result.warnings if w.startswith("replay diverged")]


def test_persistent_requests(tmp_path):
    """3.9 persistent requests: MPI_Send_init / MPI_Recv_init, started, waited and freed,
    replay as the same calls (one message, received once)."""
    path = tmp_path / "persistent.trace"
    life = "Start g=0 r=1\n= 0 d=1\nWait g=0 r=1\n= 0 d=1 st={}\nRequest_free g=0 r=1\n= 0 d=1\n"
    path.write_text(
        _log(0, 2, "Send_init g=0 dest=1 tag=3 comm=0 n=10 T=1\n= 0 d=1 r=1\n"
                   + life.format("-"))
        + _log(1, 2, "Recv_init g=0 src=0 tag=3 comm=0 n=10 T=1\n= 0 d=1 r=1\n"
                     + life.format("0:3:80")))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.messages["sent"] == result.messages["received"] == 1
    assert not [w for w in result.warnings if w.startswith("replay diverged")]


def test_communicators_and_collectives(tmp_path):
    """Comm_dup and Comm_split by their recorded ids, collectives on them."""
    body = ("Comm_dup g=0 comm=0\n= 0 d=1 new=2\n"
            "Comm_split g=0 comm=0 color={c} key=0\n= 0 d=1 new=3 size=2 rank={r}\n"
            "Allreduce g=0 comm=3 n=4 T=1\n= 0 d=1\n"
            "Bcast g=0 comm=2 n=4 T=1 root=0\n= 0 d=1\n"
            "Alltoall g=0 comm=0 n=2 T=1\n= 0 d=1\nBarrier g=0 comm=2\n= 0 d=1\n"
            "Comm_free g=0 comm=2\n= 0 d=1\n")
    path = tmp_path / "coll.trace"
    path.write_text("".join(_log(r, 4, body.format(c=r % 2, r=r // 2)) for r in range(4)))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED
    assert not result.warnings


def test_a_split_that_leaves_a_process_out_replays(tmp_path):
    """6.4.2: MPI_UNDEFINED as color gives MPI_COMM_NULL (color U in the log); the others'
    communicator works without it."""
    body = {0: "Comm_split g=0 comm=0 color=5 key=0\n= 0 d=1 new=2 size=2 rank=0\n"
               "Barrier g=0 comm=2\n= 0 d=1\n",
            1: "Comm_split g=0 comm=0 color=U key=0\n= 0 d=1 new=-1\n",
            2: "Comm_split g=0 comm=0 color=5 key=0\n= 0 d=1 new=2 size=2 rank=1\n"
               "Barrier g=0 comm=2\n= 0 d=1\n"}
    path = tmp_path / "split.trace"
    path.write_text("".join(_log(r, 3, body[r]) for r in range(3)))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert not result.warnings


def test_topology_and_group_communicators_replay_from_the_recorded_splits(tmp_path):
    """A 4-rank halo exchange recorded under MPICH 5.0.2 (tests/data/replay_c/cart_halo.c) over
    MPI_Cart_create, MPI_Cart_sub, MPI_Comm_create (even ranks) and MPI_Comm_split_type: each
    communicator is made as the split its log gives; the replay completes as MPICH did, and
    so does the scenario written from it (the odd ranks' MPI_COMM_NULL as comm_null)."""
    from mpisim.recorded.toyaml.write import scenario_text
    from mpisim.scenario import load

    sc = replay_scenario(DATA / "cart-halo.trace").with_overrides({"mpi.profile": "mpich"})
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert sc.compare(result).startswith("agrees")
    assert [r.buffer.bsends for r in result.ranks] == [4] * 4
    assert not result.warnings
    text = scenario_text(sc)
    assert text.count("color: UNDEFINED, key: 0, as: comm_null") == 2
    for call in ("Cart_create", "Cart_sub", "Comm_create", "Comm_split_type"):
        assert text.count(f"MPI_{call}, as the split that makes its communicator") == 4
    path = tmp_path / "cart.yaml"
    path.write_text(text)
    written = load(str(path)).with_overrides({"mpi.profile": "mpich"}).run()
    assert written.outcome is ms.Outcome.COMPLETED
    assert written.messages["sent"] == result.messages["sent"]


def test_a_deadlock_on_a_cartesian_grid_replays_to_the_same_blocked_calls():
    """3.5: each rank MPI_Ssends to its right neighbour first; the 2x2 periodic grid pairs
    them in two cycles. The recording, stopped by --timeout, kept all four logs."""
    sc = replay_scenario(DATA / "cart-halo-ssend-killed.trace").with_overrides(
        {"mpi.profile": "mpich"})
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert sorted((b.rank, b.call, b.where.split(",")[0]) for b in result.deadlock.blocked) == \
        [(r, "MPI_Ssend", "call 3") for r in range(4)]
    assert sc.compare(result).startswith("agrees with the recording")


def test_unlogged_communicator_is_refused_plainly(tmp_path):
    path = tmp_path / "cart.trace"
    path.write_text(_log(0, 1, "C 2 size=1 rank=0 origin=unlogged\n"
                               "Barrier g=0 comm=2\n= 0 d=1\n"))
    result = replay(path)
    assert result.outcome is ms.Outcome.ERROR
    assert "not log" in result.error.message


def test_ranks_cannot_change_and_bad_params_are_one_line():
    sc = replay_scenario(KILLED)
    with pytest.raises(ValueError, match="cannot change their number"):
        sc.with_overrides({"ranks": 4})
    with pytest.raises(ValueError, match="compute_scale"):
        sc.with_overrides({"compute_scale": "-1"})


def test_sweep_in_worker_processes():
    """The replay pickles as its path: a sweep over profiles in a process pool (under the
    standard profile the killed sends complete and the processes stop past them)."""
    table = ms.sweep(replay_scenario(KILLED), {"mpi.profile": ["standard", "mpich"]}, jobs=2)
    assert [str(o) for o in table["outcome"]] == ["timeout", "deadlock"]


# -- command line ---------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_replay_run_check_min_buffer(tmp_path):
    out = _mpisim("replay", str(KILLED), "--set", "mpi.profile=mpich")
    assert out.returncode == 3, out.stderr
    assert "rank 0 was in MPI_Send at call 2" in out.stdout
    assert "agrees with the recording" in out.stdout
    assert "at call 2" in out.stdout
    # under the recording's library (MPICH 5.0.2: an 88-byte header per entry, 8000 B of
    # data) the replay needs 8088 B; the standard's model (96 + 8000) needs 8096 B
    out = _mpisim("replay", str(DATA / "example-3.10-bsend.trace"), "--min-buffer", "-q")
    assert out.returncode == 0 and out.stdout.strip() == "example-3.10-bsend: 8088 B"
    out = _mpisim("replay", str(DATA / "example-3.10-bsend.trace"), "--min-buffer", "-q",
                  "--set", "mpi.profile=standard")
    assert out.returncode == 0 and out.stdout.strip() == "example-3.10-bsend: 8096 B"
    out = _mpisim("check", str(DATA / "bsend-ring.trace"), "--buffered", "-q")
    assert out.returncode == 0 and out.stdout.strip() == "bsend-ring: safe"
    out = _mpisim("run", str(KILLED), "--json", "--set", "mpi.profile=mpich", "--out",
                  str(tmp_path / "o"), "--plot", "--trace", "chrome")
    assert out.returncode == 3 and json.loads(out.stdout)["outcome"] == "deadlock"
    assert {"result.json", "timeline.png", "trace.json"} <= {p.name for p in
                                                            (tmp_path / "o").iterdir()}
    out = _mpisim("replay", str(KILLED), "--set", "ranks=3")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    out = _mpisim("replay", str(KILLED), "--vary", "mpi.profile=standard,mpich,openmpi", "-q")
    assert out.returncode == 0


def test_cli_bad_recording_is_one_line(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text(HEAD_BAD)
    out = _mpisim("replay", str(bad))
    assert out.returncode == 2
    assert out.stderr.strip() == f"mpisim: {bad}:3: g: expected an integer, got 'x'"


HEAD_BAD = "#mpisim-trace 1\n#rank 0 1\nInit g=x\n"


# -- --to-yaml -------------------------------------------------------------------------------
def test_to_yaml_folds_loops_and_rank_relative_peers(tmp_path):
    """The ring's 4 bsends with tags 0..3 become one loop (tag: i), its ranks one entry with
    dest (rank + 1) % size; the file validates and runs to the replay's outcome."""
    from mpisim.recorded.toyaml.write import scenario_text
    from mpisim.scenario import load

    sc = replay_scenario(DATA / "bsend-ring.trace")
    text = scenario_text(sc)
    assert 'ranks: "0..3"' in text and "times: 4" in text
    assert 'bsend: {dest: "(rank + 1) % size", tag: i, count: 100, datatype: DOUBLE}' in text
    path = tmp_path / "ring.yaml"
    path.write_text(text)
    result = load(str(path)).run()
    replayed = sc.run()
    assert result.outcome is replayed.outcome is ms.Outcome.COMPLETED
    assert result.messages["sent"] == replayed.messages["sent"]
    assert [r.buffer.size for r in result.ranks] == [3584] * 4


def test_to_yaml_cli_and_recorded_errors(tmp_path):
    out_file = tmp_path / "burst.yaml"
    out = _mpisim("replay", str(DATA / "bsend-burst.trace"), "--to-yaml", str(out_file))
    assert out.returncode == 0, out.stderr
    text = out_file.read_text()
    assert "returned MPI_ERR_BUFFER in the recording" in text
    assert _mpisim("validate", str(out_file)).returncode == 0


def test_ms_replay_is_the_function_even_with_the_package_imported():
    """The sub-package is mpisim.recorded, so importing it never shadows ms.replay."""
    import mpisim.recorded

    assert ms.replay is mpisim.recorded.replay and callable(ms.replay)
    assert ms.replay(KILLED, mpi={"profile": "mpich"}).outcome is ms.Outcome.DEADLOCK
