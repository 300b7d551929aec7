"""A compact recording read as it is replayed (mpisim.recorded.read.stream): the same calls as
a whole read, in memory that does not grow with the recording's length (issue 41)."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.read import compact as fmt
from mpisim.recorded.read.stream import StreamedCalls, read_streamed
from mpisim.recorded.record import compact as writer
from mpisim.recorded.record import synthetic as syn


def _pingpong_lines(round_trips: int, error_at: int = -1) -> list[str]:
    lines = ["#mpisim-trace 1", "#rank 0 2", "#library MPICH Version: 5.0.2",
             "Init g=0 thread=0", "= 0 d=0", "T 1 size=8 extent=8 lb=0 kind=named "
             "name=MPI_DOUBLE", "@ 1 ./pp 0x1200", "@ 2 ./pp 0x1240"]
    rng = np.random.default_rng(3)
    for i in range(round_trips):
        failed = "MPI_ERR_TAG" if i == error_at else "0"
        lines += [f"Send g={rng.integers(50, 900)} @=1 dest=1 tag=0 n=1 T=1 comm=0",
                  f"= {failed} d={rng.integers(300, 2000)}",
                  f"Irecv g={rng.integers(50, 900)} @=2 src=1 tag=0 n=1 T=1 comm=0",
                  f"= 0 d={rng.integers(90, 500)} r={100 + i}",
                  f"Wait g={rng.integers(5, 90)} r={100 + i}",
                  f"= 0 d={rng.integers(900, 5000)} st=1:0:8"]
    lines += ["Finalize g=10", "= 0 d=20", "# exit g=5"]
    return lines


def _write(lines: list[str], block: int, monkeypatch, path: Path) -> bytes:
    monkeypatch.setattr(writer, "BLOCK_CALLS", block)
    out = io.BytesIO()
    w = writer.TextToCompact(out)
    for line in lines:
        w.line(line)
    w.close()
    path.write_bytes(out.getvalue())
    return out.getvalue()


def test_a_streamed_log_is_the_whole_log_call_by_call(monkeypatch, tmp_path):
    path = tmp_path / "pp.trace"
    data = _write(_pingpong_lines(700, error_at=333), 64, monkeypatch, path)
    (whole,) = fmt.read_compact(str(path), data)
    (log,) = read_streamed(str(path))
    calls, want = log.calls, whole.calls
    assert isinstance(calls, StreamedCalls) and len(calls) == len(want) == 2102
    assert list(calls) == list(want)  # every call, read a block at a time
    assert calls[1500] == want[1500] and calls[-1] == want[-1] and calls[3] == want[3]
    assert calls.errors().tolist() == want.errors().tolist() == [1 + 3 * 333]
    for got, expected in zip(calls.used(), want.used(), strict=True):
        assert got.tolist() == expected.tolist()
    assert calls.longest("g") == want.longest("g")
    assert calls.longest("in") == want.longest("in")
    assert calls.total_time() == pytest.approx(want.total_time(), rel=1e-12)
    assert [calls.request_id(i) for i in (2, 1502)] == [want.request_id(i) for i in (2, 1502)]
    for name in ("shape", "result", "gap", "duration", "line"):
        assert getattr(calls, name).tobytes() == getattr(want, name).tobytes(), name
    for key in ("rank", "size", "header", "types", "sites", "ended", "last", "broken"):
        assert getattr(log, key) == getattr(whole, key), key


def test_a_streamed_read_holds_no_column_of_the_calls(monkeypatch, tmp_path):
    """Issue 41: a replay's memory is not the recording's length: reading keeps the string
    table and sums, not the calls (a whole read keeps about 40 bytes a call)."""
    path = tmp_path / "pp.trace"
    data = _write(_pingpong_lines(40000), 4096, monkeypatch, path)
    tracemalloc.start()
    try:
        (log,) = read_streamed(str(path))
        streamed = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fmt.read_compact(str(path), data)
        whole = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(log.calls) == 120002
    assert whole > 120002 * 32
    assert streamed < whole / 4


def test_a_replay_takes_its_calls_a_block_at_a_time_and_replays_as_a_whole_read(
        monkeypatch, tmp_path):
    """The replay of a streamed recording is the replay of the same calls read whole (the
    text recording they were written from), and holds at most two blocks of a rank."""
    monkeypatch.setattr(writer, "BLOCK_CALLS", 256)
    (tmp_path / "text").mkdir()
    (tmp_path / "compact").mkdir()
    text, compact = tmp_path / "text" / "halo.trace", tmp_path / "compact" / "halo.trace"
    syn.write(text, "halo3d", 8, 40, fmt="text")
    syn.write(compact, "halo3d", 8, 40, fmt="compact")
    runs = []
    for path in (text, compact):
        scenario = replay_scenario(path)
        result = scenario.run()
        assert result.outcome is ms.Outcome.COMPLETED
        runs.append(result.to_json().replace(str(path), "RECORDING"))
    assert runs[0] == runs[1]
    logs = read_trace(compact, sources=False).ranks
    calls = logs[0].calls
    assert isinstance(calls, StreamedCalls) and len(calls._blocks) > 2
    for _ in calls.strides():
        pass
    assert len(calls._cache) <= 2


def test_a_replay_scenario_reaches_a_what_if_worker_as_its_path(tmp_path):
    """Issue 41: --min-buffer, --check, --vary and --profiles send each worker the
    recording's path, never its calls; the worker reads the recording itself."""
    import pickle

    path = tmp_path / "halo.trace"
    syn.write(path, "halo3d", 8, 200, fmt="compact")
    scenario = replay_scenario(path)
    pickled = pickle.dumps(scenario)
    assert len(pickled) < 4096 < path.stat().st_size
    again = pickle.loads(pickled)
    assert again.trace.size == 8 and again.event_bound() == scenario.event_bound()
    assert again.run().to_json() == scenario.run().to_json()


def _file_pages() -> int:
    """This process's resident pages of mapped files (bytes; Linux's RssFile)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no RssFile line")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists() or
                    not hasattr(__import__("mmap"), "MADV_DONTNEED"),
                    reason="needs Linux's /proc and madvise(MADV_DONTNEED)")
def test_reading_through_a_recording_gives_its_pages_back_as_it_goes(monkeypatch, tmp_path):
    """The scan maps the file and gives each block's pages back once read, and those the
    kernel mapped again behind it (fault-around): the file's resident pages do not grow
    with the blocks read (they grew by about 30 KB a block, 800 KB over these 28)."""
    from mpisim.recorded.read import stream

    monkeypatch.setattr(writer, "BLOCK_CALLS", 1 << 17)  # blocks of about 340 KB
    path = tmp_path / "pp.trace"
    syn.write(path, "pingpong", 2, 2_000_000, fmt="compact")  # 31 blocks a process
    block, seen = stream._Scan._block, []

    def watched(self, pos):
        end = block(self, pos)
        seen.append(_file_pages())
        return end
    monkeypatch.setattr(stream._Scan, "_block", watched)
    read_streamed(str(path))
    assert len(seen) == 62
    first = seen[2:30]  # (the first process's blocks, after the first two)
    assert max(first) - first[0] < 300 * 1024, [s // 1024 for s in seen]
