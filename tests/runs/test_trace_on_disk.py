"""A trace written to disk as the run goes (``trace="disk"``, ``trace_dir=``): the same arrays,
byte for byte, as the trace kept in memory; read back with ``Trace.open``; never half-written."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest
from helpers.paths import ROOT, SCENARIOS

import mpisim as ms
from mpisim.cli.main import main
from mpisim.engine import spill
from mpisim.engine import trace as trace_module
from mpisim.engine.spill import TraceStoreError
from mpisim.engine.trace import Trace
from mpisim.runs import simulation

FIELDS = ("buffer", "entries", "messages", "calls", "named_buffers", "named_entries", "rma",
          "epochs")
REPLAYS = ROOT / "tests" / "data" / "replay"


def assert_same_trace(kept: Trace, written: Trace) -> None:
    for name in FIELDS:
        a, b = getattr(kept, name), getattr(written, name)
        assert a.dtype == b.dtype, name
        assert len(a) == len(b), name
        assert a.tobytes() == b.tobytes(), name


def one_sided(mpi):
    """MPI 4.1 §12.5.1: a fence epoch with a put and a get to rank 1."""
    win = yield mpi.win_allocate(64, disp_unit=8)
    yield mpi.win_fence(win=win)
    if mpi.rank != 1:
        yield mpi.put(np.ones(2), target=1, target_disp=2 * mpi.rank, win=win)
    yield mpi.win_fence(win=win)
    yield mpi.win_free(win)


def collective(mpi):
    """MPI 4.1 §6.9.6: allreduce, then a barrier, three times."""
    for _ in range(3):
        yield mpi.allreduce(np.arange(4.0) + mpi.rank, op=ms.SUM)
        yield mpi.barrier()


def late_receives(mpi, n=600):
    """Rank 0 posts ``n`` sends at once; rank 1 computes, then receives them: every
    message's match and delivery are written into rows posted long before."""
    if mpi.rank == 0:
        reqs = []
        for i in range(n):
            reqs.append((yield mpi.isend(count=8, datatype=ms.INT, dest=1, tag=i)))
        yield mpi.waitall(reqs)
    else:
        yield mpi.compute("1ms")
        for i in range(n):
            yield mpi.recv(count=8, datatype=ms.INT, source=0, tag=i)


def bsend_backlog(mpi, n=300):
    """Rank 0 bsends into a large buffer while rank 1 is late: entries completed and freed
    long after their rows were written."""
    yield mpi.buffer_attach(size=n * (40 + ms.BSEND_OVERHEAD))
    if mpi.rank == 0:
        for i in range(n):
            yield mpi.bsend(count=10, datatype=ms.INT, dest=1, tag=i)
    else:
        yield mpi.compute("1ms")
        for i in range(n):
            yield mpi.recv(count=10, datatype=ms.INT, source=0, tag=i)
    yield mpi.buffer_detach()


SCENARIO_RUNS = {
    "bsend ring": lambda **kw: ms.load_scenario(SCENARIOS / "ring-bsend.yaml").run(**kw),
    "example 3.10": lambda **kw: ms.load_scenario(
        SCENARIOS / "example-3.10-bsend.yaml").run(**kw),
    "communicator buffer": lambda **kw: ms.load_scenario(
        SCENARIOS / "library-comm-buffer.yaml").run(**kw),
    "one-sided": lambda **kw: ms.run(one_sided, ranks=3, **kw),
    "collective": lambda **kw: ms.run(collective, ranks=4, **kw),
    "deadlock": lambda **kw: ms.load_scenario(SCENARIOS / "example-3.10-send.yaml").run(**kw),
    "replay of a bsend burst": lambda **kw: ms.replay(REPLAYS / "bsend-burst.trace", **kw),
    "replay of Example 3.10": lambda **kw: ms.replay(REPLAYS / "example-3.10-bsend.trace",
                                                     **kw),
    "replay with one-sided requests": lambda **kw: ms.replay(REPLAYS / "rma-requests.trace",
                                                             **kw),
}


@pytest.mark.parametrize("name", list(SCENARIO_RUNS))
def test_a_trace_on_disk_has_the_arrays_of_the_trace_in_memory(name):
    run = SCENARIO_RUNS[name]
    kept, written = run(), run(trace="disk")
    assert kept.to_json() == written.to_json()
    assert written.trace.directory is not None and kept.trace.directory is None
    assert_same_trace(kept.trace, written.trace)
    assert any(len(getattr(kept.trace, f)) for f in FIELDS)


@pytest.mark.parametrize("name", ["bsend ring", "collective", "replay of a bsend burst",
                                  "deadlock"])
def test_arrays_written_in_blocks_join_at_their_edges(name, monkeypatch):
    """On disk the arrays are written a block of rows at a time: blocks of 5 rows, so a
    rank's last call (its end: when its program finished) falls at a block's edge too."""
    kept = SCENARIO_RUNS[name]()
    monkeypatch.setattr(trace_module, "_CHUNK", 5)
    assert_same_trace(kept.trace, SCENARIO_RUNS[name](trace="disk").trace)


@pytest.mark.parametrize("program", [late_receives, bsend_backlog])
def test_rows_written_into_after_their_pages_went_to_disk_are_kept(program, monkeypatch):
    """A window of one page: a message matched, a buffer entry completed and freed long
    after its row left memory still has its times."""
    monkeypatch.setattr(spill, "WINDOW", 4096)
    kept = ms.run(program, ranks=2)
    written = ms.run(program, ranks=2, trace="disk")
    assert_same_trace(kept.trace, written.trace)
    assert not np.isnan(written.trace.messages["recv_done"]).any()


def test_a_named_directory_is_kept_and_opens_again(tmp_path):
    where = tmp_path / "trace"
    result = ms.replay(REPLAYS / "bsend-burst.trace", trace_dir=where)
    kept = ms.replay(REPLAYS / "bsend-burst.trace")
    # not read in this process: the directory holds the recorded rows, readable
    index = json.loads((where / "index.json").read_text())
    assert index["state"] == "recorded" and index["complete"]
    assert_same_trace(kept.trace, Trace.open(where))  # built now, into the directory
    assert json.loads((where / "index.json").read_text())["state"] == "built"
    assert not list(where.glob("raw-*"))
    again = Trace.open(where)
    assert_same_trace(kept.trace, again)
    assert not again.calls.flags.writeable  # mapped read-only from its file
    assert_same_trace(kept.trace, result.trace)
    del result, again
    gc.collect()
    assert (where / "calls.npy").exists()


def test_a_second_run_into_the_same_directory_replaces_the_first(tmp_path):
    ms.run(collective, ranks=4, trace_dir=tmp_path)
    second = ms.run(one_sided, ranks=3, trace_dir=tmp_path)
    assert_same_trace(second.trace, Trace.open(tmp_path))
    assert len(Trace.open(tmp_path).rma) == 2


def test_a_temporary_directory_goes_with_its_result():
    result = ms.run(collective, ranks=4, trace="disk")
    where = result.trace.directory
    assert where is not None and (where / "index.json").exists()
    assert len(result.trace.calls)  # built: mapped from the directory's files
    del result
    gc.collect()
    assert not where.exists()


def test_a_temporary_directory_never_read_goes_too():
    result = ms.run(collective, ranks=4, trace="disk")
    where = result.trace.directory
    del result
    gc.collect()
    assert not where.exists()


def test_on_disk_the_whole_run_is_recorded(monkeypatch):
    """In memory the trace stops after TRACE_EVENTS events (bounded memory); on disk it
    holds the whole run."""
    monkeypatch.setattr(simulation, "TRACE_EVENTS", 50)
    kept = ms.run(late_receives, ranks=2, params={"n": 100})
    written = ms.run(late_receives, ranks=2, params={"n": 100}, trace="disk")
    assert any("first 50 events" in w for w in kept.warnings)
    assert not any("first 50 events" in w for w in written.warnings)
    assert len(written.trace.calls) == 202 > len(kept.trace.calls)  # (+ waitall, compute)


def test_an_interrupted_run_leaves_a_readable_trace_of_what_ran(tmp_path):
    def interrupted(mpi):
        for _ in range(5):
            yield mpi.barrier()
        if mpi.rank == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ms.run(interrupted, ranks=2, trace_dir=tmp_path)
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["state"] == "recorded" and not index["complete"]
    calls = Trace.open(tmp_path).calls
    assert list(calls["call"]).count("MPI_Barrier") == 10
    assert json.loads((tmp_path / "index.json").read_text())["state"] == "recorded"


def test_a_run_that_goes_on_keeps_its_directory_readable(tmp_path, monkeypatch):
    """Looked at midway (its trace built from the streams as they are), the run goes on
    writing them (a window of one page: they grow past it after the look)."""
    monkeypatch.setattr(spill, "WINDOW", 4096)
    sim = ms.Simulation(late_receives, ranks=2, trace_dir=tmp_path)
    early = sim.run(until="10us")
    assert early.outcome is ms.Outcome.TIMEOUT
    assert len(Trace.open(tmp_path).messages) == len(early.trace.messages) == 600
    assert np.isnan(early.trace.messages["match"]).all()
    assert len(list(tmp_path.glob("raw-*.npy"))) == 4  # (read back, not built there)
    done = sim.run()
    assert done.outcome is ms.Outcome.COMPLETED
    assert_same_trace(ms.run(late_receives, ranks=2).trace, done.trace)
    assert_same_trace(done.trace, Trace.open(tmp_path))


def test_a_directory_that_cannot_be_written_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match=f"trace directory {blocker / 'sub'}: cannot write"):
        ms.run(collective, ranks=2, trace_dir=blocker / "sub")


def test_a_directory_without_a_trace_is_named(tmp_path):
    with pytest.raises(TraceStoreError, match=f"trace directory {tmp_path}: no index.json"):
        Trace.open(tmp_path)
    with pytest.raises(TraceStoreError, match="no such directory"):
        Trace.open(tmp_path / "missing")
    (tmp_path / "index.json").write_text('{"format": "mpisim-trace", "version": 99}')
    with pytest.raises(TraceStoreError, match="version 99"):
        Trace.open(tmp_path)


def test_a_directory_missing_a_stream_is_named(tmp_path):
    ms.run(collective, ranks=4, trace_dir=tmp_path)
    (tmp_path / "raw-calls.npy").unlink()
    with pytest.raises(TraceStoreError, match=f"trace directory {tmp_path}: cannot read it "
                                              "back .*raw-calls.npy"):
        Trace.open(tmp_path)


@pytest.mark.parametrize(("trace", "trace_dir", "says"), [
    ("memory", None, "trace: expected True, False or 'disk'"),
    (False, "somewhere", "given with trace=False"),
])
def test_a_trace_setting_that_means_nothing_is_refused(trace, trace_dir, says):
    with pytest.raises(ValueError, match=says):
        ms.run(collective, ranks=2, trace=trace, trace_dir=trace_dir)


def test_the_cli_writes_the_trace_of_a_replay_where_it_is_told(tmp_path, capsys):
    where = tmp_path / "trace"
    code = main(["replay", str(REPLAYS / "bsend-burst.trace"), "--trace-dir", str(where),
                 "--out", str(tmp_path / "out"), "-q"])
    assert code == 0
    assert_same_trace(ms.replay(REPLAYS / "bsend-burst.trace").trace, ms.Trace.open(where))
    with_memory = tmp_path / "memory"
    assert main(["replay", str(REPLAYS / "bsend-burst.trace"), "--out", str(with_memory),
                 "-q"]) == 0
    for name in ("messages.csv", "buffer.csv", "result.json"):
        assert (tmp_path / "out" / name).read_bytes() == (with_memory / name).read_bytes()
    capsys.readouterr()


@pytest.mark.parametrize(("args", "says"), [
    (["run", str(SCENARIOS / "ring-bsend.yaml")], "trace directory {}: cannot write there"),
    (["replay", str(REPLAYS / "bsend-burst.trace"), "--check"], "not with --check"),
    (["run", str(SCENARIOS / "ring-bsend.yaml"), "--profiles", "standard,mpich"],
     "not with --profiles"),
])
def test_the_cli_refuses_a_trace_dir_it_cannot_use_in_one_line(args, says, tmp_path, capsys):
    blocked = tmp_path / "file" / "trace"
    (tmp_path / "file").write_text("")
    assert main([*args, "--trace-dir", str(blocked)]) == 2
    err = capsys.readouterr().err
    assert says.format(blocked) in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
