"""A replay at scale: its memory does not grow with the calls it has replayed, and its event
bound grows with the recording (synthetic recordings, mpisim.recorded.record.synthetic)."""

from __future__ import annotations

import tracemalloc

import pytest

import mpisim as ms
from mpisim.recorded import replay_scenario
from mpisim.recorded.record import synthetic as syn
from mpisim.recorded.replayer import program
from mpisim.runs import simulation


def _replay_peak(path, **kwargs) -> int:
    """tracemalloc's peak over a replay of ``path`` (read, and replayed once, beforehand:
    the replay alone, with what a first run imports and caches already there)."""
    program.load(str(path))
    ms.replay(path, trace=False, **kwargs)
    tracemalloc.start()
    try:
        result = ms.replay(path, trace=False, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return peak


@pytest.fixture(autouse=True)
def _window(monkeypatch):
    """The replay's window of calls made Python's at a time (4,096 a rank) made 128, so
    that short recordings are many windows long."""
    monkeypatch.setattr(program, "_STRIDE", 128)


def test_nonblocking_replay_memory_does_not_grow_with_the_calls(tmp_path):
    """3.7.3: a request a wait completed is MPI_REQUEST_NULL, never named again: the replay
    forgets it, and keeps no op made for one call only (each MPI_Irecv's result names a new
    request). Its memory grew by about 1,700 bytes a call."""
    _grows_less_than(32, tmp_path, "halo3d", 100, 400)  # 1,400 and 5,600 calls a rank


def _grows_less_than(per_call: int, tmp_path, shape: str, short: int, long: int) -> None:
    """The replay's peak memory grows by less than ``per_call`` bytes a call (the
    recording's own columns hold 32) from ``short`` to ``long`` steps of 2 processes."""
    peaks, calls = [], []
    for steps in (short, long):
        path = tmp_path / f"{shape}-{steps}.trace"
        calls.append(syn.write(path, shape, 2, steps))
        peaks.append(_replay_peak(path))
    growth = (peaks[1] - peaks[0]) / (calls[1] - calls[0])
    assert growth < per_call, f"{growth:.0f} B a call: {peaks}"


def test_persistent_requests_are_kept_across_waits(tmp_path):
    """3.9: a persistent request waited on is inactive, not freed: started again later."""
    from helpers import paths

    result = ms.replay(paths.DATA / "replay" / "nested-persistent.trace")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_a_complete_recording_never_reaches_a_default_event_bound(tmp_path, monkeypatch):
    """The default guard (here made 500 events) is for programs that may not end; a replay
    bounds its events by its recording's length instead, so it ends where the recording
    does. A bound given is kept."""
    path = tmp_path / "halo.trace"
    calls = syn.write(path, "halo3d", 4, 40)  # 2,248 calls: about 7,000 events
    monkeypatch.setattr(simulation, "DEFAULT_MAX_EVENTS", 500)
    sc = replay_scenario(path)
    assert sc.run_kwargs()["max_events"] == 500 + 16 * calls
    result = ms.replay(path, trace=False)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    bounded = ms.replay(path, trace=False, max_events=500)
    assert bounded.outcome is ms.Outcome.TIMEOUT
    assert "500 events" in bounded.timeout_reason


@pytest.mark.parametrize("shape", ["master-worker", "pingpong"])
def test_blocking_replay_memory_does_not_grow_with_the_calls(tmp_path, shape):
    _grows_less_than(32, tmp_path, shape, 500, 2000)  # 1,000 and 4,000 calls a rank


def test_a_loop_of_new_requests_is_read_as_a_few_shapes(tmp_path):
    """Each MPI_Irecv names a new request (the recorder numbers them as made): the reader
    keeps the ids relative to each call's first, so the loop's calls share their shapes
    (a few dozen, whatever the length), and gives each call back its recorded ids, as the
    line-by-line reader does."""
    from mpisim.recorded import read_trace
    from mpisim.recorded.read.lines import parse_log

    counts = []
    for steps in (30, 120):
        path = tmp_path / f"halo-{steps}.trace"
        syn.write(path, "halo3d", 2, steps)
        log = read_trace(path).ranks[1]
        counts.append((len(log.calls.shapes), len(log.calls.results)))
    assert counts[0] == counts[1] and counts[1][0] + counts[1][1] < 40
    lines = path.read_text().split("\n")
    second = lines.index("#rank 1 2") - 1
    by_line = parse_log(str(path), lines, second, len(lines) - 1)
    assert list(by_line.calls) == list(log.calls)
    waitall = log.calls[-3]
    assert waitall.name == "Waitall" and waitall.args["r"] == list(range(12 * 119 + 1,
                                                                         12 * 120 + 1))
    assert log.calls[1].out["r"] == 1 and log.calls.request_id(12) == 12


def test_a_rank_of_many_processes_takes_a_shorter_stride(monkeypatch):
    """A replay makes at most about 2^19 calls Python's at a time, all ranks together (a
    1,024-process replay held 4,096 calls a rank, 370 MB of them), never under 256 a rank."""
    monkeypatch.setattr(program, "_STRIDE", 4096)
    assert program.stride(2) == program.stride(8) == program._STRIDE
    assert program.stride(1024) * 1024 <= program._STRIDES
    assert program.stride(10**6) == 256


@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_the_stride_changes_nothing_of_a_replay(tmp_path, monkeypatch, fmt):
    """The calls a rank reads at a time are a window of its recording, not a part of it:
    a 64-process halo exchange of 7 steps replays to the same result JSON at strides of
    4,096 (one for all its calls), 128 and 7 calls, across their ends (blocks and strides)."""
    path = tmp_path / f"halo.{fmt}.trace"
    syn.write(path, "halo3d", 64, 7, fmt=fmt)
    results = []
    for size in (4096, 128, 7):
        monkeypatch.setattr(program, "_STRIDE", size)
        monkeypatch.setattr(program, "_STRIDES", size * 64)
        assert program.stride(64) == size
        program._TRACES.clear()
        results.append(ms.replay(path).to_json())
    assert results[0] == results[1] == results[2]
