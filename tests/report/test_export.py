"""Exports: result.json, the CSV tables, the Chrome trace, a run's output directory.

Synthetic traces are built with the recorder's own dtypes (``helpers.traces.TraceBuilder``,
also used by test_plots.py); real runs check the same properties on what the engine records.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.paths import SCENARIOS
from helpers.programs import buffered_exchange
from helpers.traces import NAN, TraceBuilder, exchange_result
from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms
from mpisim.engine.trace import BUFFER_DTYPE, MESSAGE_DTYPE
from mpisim.report import export
from mpisim.scenario import load


# -- JSON ---------------------------------------------------------------------------------
def test_write_json_is_result_to_json_with_newline(tmp_path: Path) -> None:
    result = exchange_result()
    path = export.write_json(result, tmp_path / "result.json")
    text = path.read_text(encoding="utf-8")
    assert text == result.to_json() + "\n"
    assert json.loads(text)["outcome"] == "deadlock"


# -- CSV ----------------------------------------------------------------------------------
def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    return rows[0], rows[1:]


def _same(cell: str, value: object) -> bool:
    if isinstance(value, float):
        return (cell == "" and math.isnan(value)) or (cell != "" and float(cell) == value)
    return cell == str(value)


times = st.floats(0, 1, allow_nan=False) | st.just(NAN)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 2**40),
                          st.sampled_from(["standard", "buffered", "synchronous", "ready"]),
                          times, times, times), max_size=20))
def test_messages_csv_round_trips_every_row(tmp_path_factory, rows) -> None:
    """One line per trace.messages row, header = field names, NaN written empty."""
    b = TraceBuilder(4)
    for i, (src, dst, nbytes, mode, post, match, done) in enumerate(rows):
        b.message(i, src, dst, 0.0 if math.isnan(post) else post, done, nbytes=nbytes,
                  mode=mode, match=match)
    result = b.result()
    path = export.write_messages_csv(result, tmp_path_factory.mktemp("csv") / "m.csv")
    header, lines = _read_csv(path)
    assert header == list(MESSAGE_DTYPE.names)
    assert len(lines) == len(result.trace.messages)
    for line, row in zip(lines, result.trace.messages.tolist(), strict=True):
        assert all(_same(c, v) for c, v in zip(line, row, strict=True)), (line, row)


def test_buffer_csv_has_one_line_per_buffer_row(tmp_path: Path) -> None:
    result = exchange_result()
    header, lines = _read_csv(export.write_buffer_csv(result, tmp_path / "buffer.csv"))
    assert header == list(BUFFER_DTYPE.names)
    assert [tuple(ln) for ln in lines] == [tuple(str(v) for v in row)
                                           for row in result.trace.buffer.tolist()]


def test_empty_trace_gives_header_only(tmp_path: Path) -> None:
    result = TraceBuilder(1).result()
    assert _read_csv(export.write_messages_csv(result, tmp_path / "m.csv")) == (
        list(MESSAGE_DTYPE.names), [])


def test_npz_holds_the_four_trace_arrays_exactly(tmp_path: Path) -> None:
    result = exchange_result()
    with np.load(export.write_npz(result, tmp_path / "trace.npz")) as npz:
        assert sorted(npz.files) == ["buffer", "calls", "entries", "messages"]
        for name in npz.files:
            want = getattr(result.trace, name)
            assert npz[name].dtype == want.dtype
            assert npz[name].tobytes() == want.tobytes()  # NaN included, bit for bit


# -- Chrome trace -------------------------------------------------------------------------
def _check_format(doc: dict) -> list[dict]:
    """The Trace Event Format's required fields, and JSON without NaN."""
    json.dumps(doc, allow_nan=False)
    assert doc["displayTimeUnit"] == "ns"
    events = doc["traceEvents"]
    for ev in events:
        assert {"name", "ph", "ts", "pid", "tid"} <= ev.keys(), ev
        assert isinstance(ev["ts"], int | float) and ev["ts"] >= 0
        if ev["ph"] == "X":
            assert ev["dur"] >= 0
        if ev["ph"] in ("s", "f"):
            assert ev["bp"] == "e" and "id" in ev
    return events


def _check_flows(events: list[dict], messages: np.ndarray) -> None:
    """Every delivered message: one "s" on the sender at post, one "f" on the receiver at
    delivery (µs), same id; an undelivered one: an instant on the sender, no flow at all."""
    starts = {ev["id"]: ev for ev in events if ev["ph"] == "s"}
    ends = {ev["id"]: ev for ev in events if ev["ph"] == "f"}
    assert len(starts) == sum(ev["ph"] == "s" for ev in events)
    assert starts.keys() == ends.keys()
    lost = [ev for ev in events if ev["ph"] == "i" and "undelivered" in ev["cat"]]
    for m in messages:
        mid = int(m["id"])
        if math.isnan(m["recv_done"]):
            assert mid not in starts
            assert [ev["pid"] for ev in lost if ev["args"]["id"] == mid] == [int(m["src"])]
        else:
            s, f = starts[mid], ends[mid]
            assert (s["pid"], f["pid"]) == (int(m["src"]), int(m["dst"]))
            assert s["ts"] == pytest.approx(m["post"] * 1e6)
            assert f["ts"] == pytest.approx(m["recv_done"] * 1e6)
    assert len(starts) + len(lost) == len(messages)


def test_chrome_trace_has_required_fields_and_matching_flows() -> None:
    result = exchange_result()
    events = _check_format(export.chrome_trace(result))
    _check_flows(events, result.trace.messages)
    assert sum(ev["ph"] == "s" for ev in events) == 2


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2),
                          st.floats(0, 1e-3, allow_nan=False), times), max_size=25))
def test_chrome_trace_flows_pair_up_for_any_messages(rows) -> None:
    b = TraceBuilder(3)
    for i, (src, dst, post, done) in enumerate(rows):
        b.message(i, src, dst, post, done if math.isnan(done) else post + done)
    result = b.result()
    _check_flows(_check_format(export.chrome_trace(result)), result.trace.messages)


def test_chrome_trace_calls_are_slices_in_microseconds() -> None:
    result = exchange_result()
    events = export.chrome_trace(result)["traceEvents"]
    slices = [ev for ev in events if ev["ph"] == "X"]
    assert len(slices) == len(result.trace.calls)
    for ev, (rank, call, start, end) in zip(slices, result.trace.calls.tolist(), strict=True):
        assert (ev["name"], ev["pid"], ev["tid"]) == (call, rank, rank)
        assert ev["ts"] == pytest.approx(start * 1e6)
        stop = result.sim_time if math.isnan(end) else end
        assert ev["dur"] == pytest.approx((stop - start) * 1e6)
        assert ("blocked" in ev["cat"]) == math.isnan(end)


def test_chrome_trace_counters_follow_the_buffer_rows() -> None:
    result = exchange_result()
    events = export.chrome_trace(result)["traceEvents"]
    for name, field in (("buffer used", "used"), ("buffer live", "live"),
                        ("buffer capacity", "capacity")):
        got = [(ev["pid"], ev["ts"], ev["args"]["bytes"]) for ev in events
               if ev["ph"] == "C" and ev["name"] == name]
        want = [(int(r["rank"]), pytest.approx(r["time"] * 1e6), int(r[field]))
                for r in result.trace.buffer]
        assert got == want


def test_chrome_trace_marks_overflows() -> None:
    b = TraceBuilder(1).buffer(0, 0.0, "attach", 100, 0, 0, 0, 100)
    b.buffer(0, 2e-6, "overflow", 100, 0, 0, 0, 100, requested=196)
    over = [ev for ev in export.chrome_trace(b.result())["traceEvents"]
            if ev["name"] == "buffer overflow"]
    assert [(ev["ph"], ev["ts"], ev["args"]["requested"]) for ev in over] == [("i", 2.0, 196)]


def test_chrome_trace_names_a_process_per_rank() -> None:
    events = export.chrome_trace(TraceBuilder(3).result())["traceEvents"]
    names = {ev["pid"]: ev["args"]["name"] for ev in events if ev["name"] == "process_name"}
    assert names == {0: "rank 0", 1: "rank 1", 2: "rank 2"}


def test_write_chrome_trace_is_the_dict_as_json(tmp_path: Path) -> None:
    result = exchange_result()
    path = export.write_chrome_trace(result, tmp_path / "trace.json")
    assert json.loads(path.read_text()) == export.chrome_trace(result)


# -- atomic writes and write_run ----------------------------------------------------------
def _listing(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_atomic_write_keeps_the_old_file_when_the_writer_fails(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    target.write_text("old")

    def failing(f) -> None:
        f.write("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        export.atomic_write(target, failing)
    assert _listing(tmp_path) == {"x.txt": b"old"}


def test_atomic_write_binary_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "x.bin"
    target.write_text("old")
    assert export.atomic_write(target, lambda f: f.write(b"\x00new"), binary=True) == target
    assert _listing(tmp_path) == {"x.bin": b"\x00new"}


def test_write_run_writes_the_basic_files(tmp_path: Path) -> None:
    result = exchange_result()
    paths = export.write_run(result, tmp_path / "new" / "out")
    assert [p.name for p in paths] == ["result.json", "messages.csv", "buffer.csv"]
    assert sorted(os.listdir(tmp_path / "new" / "out")) == sorted(p.name for p in paths)
    assert paths[0].read_text() == result.to_json() + "\n"


def test_write_run_with_plots_and_chrome_trace(tmp_path: Path) -> None:
    paths = export.write_run(exchange_result(), tmp_path, plot=True, trace="chrome")
    names = [p.name for p in paths]
    assert names == ["result.json", "messages.csv", "buffer.csv", "occupancy.png",
                     "timeline.png", "trace.json"]
    for p in paths[3:5]:
        assert p.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert sorted(os.listdir(tmp_path)) == sorted(names)


def test_write_run_failure_leaves_no_new_file(tmp_path: Path, monkeypatch) -> None:
    """A plot that fails after the CSVs were staged: nothing new appears, old files stay."""
    (tmp_path / "result.json").write_text("previous run")
    import mpisim.plot
    def broken(result, **kwargs):
        raise RuntimeError("cannot draw")
    monkeypatch.setattr(mpisim.plot, "plot_timeline", broken)
    with pytest.raises(RuntimeError, match="cannot draw"):
        export.write_run(exchange_result(), tmp_path, plot=True)
    assert _listing(tmp_path) == {"result.json": b"previous run"}


def test_write_run_refuses_an_unknown_trace_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="trace: unknown trace format 'perfetto'"):
        export.write_run(exchange_result(), tmp_path / "out", trace="perfetto")
    assert not (tmp_path / "out").exists()


def test_write_run_into_a_file_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    with pytest.raises(NotADirectoryError) as info:
        export.write_run(exchange_result(), tmp_path / "f")
    assert info.value.filename == str(tmp_path / "f")
    assert "not a directory" in str(info.value) and "\n" not in str(info.value)


def test_write_error_names_the_target_not_the_temporary_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        export.write_json(exchange_result(), tmp_path / "missing" / "result.json")
    assert info.value.filename == str(tmp_path / "missing" / "result.json")
    assert info.value.strerror and ".tmp" not in str(info.value)


def test_export_does_not_import_matplotlib() -> None:
    """The CLI imports export for every run; matplotlib loads only for --plot."""
    code = "import sys, mpisim, mpisim.report.export; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# -- real runs ----------------------------------------------------------------------------
def unmatched_send(mpi):
    if mpi.rank == 0:
        yield mpi.send(count=10, dest=1, tag=1)
    yield mpi.recv(count=10, source=1 - mpi.rank, tag=2)


@pytest.mark.parametrize("program", [buffered_exchange, unmatched_send])
def test_chrome_trace_of_real_runs(program) -> None:
    result = ms.run(program, ranks=2)
    events = _check_format(export.chrome_trace(result))
    _check_flows(events, result.trace.messages)
    assert sum(ev["ph"] == "X" for ev in events) == len(result.trace.calls)


def test_write_run_of_a_real_run(tmp_path: Path) -> None:
    result = ms.run(buffered_exchange, ranks=2)
    paths = export.write_run(result, tmp_path, plot=True, trace="chrome")
    assert json.loads(paths[0].read_text())["outcome"] == "completed"
    _header, lines = _read_csv(tmp_path / "buffer.csv")
    assert len(lines) == len(result.trace.buffer) > 0


SHIPPED = sorted(SCENARIOS.glob("*.*"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_chrome_trace_and_tables_of_every_shipped_scenario(path, tmp_path: Path) -> None:
    result = load(path).run()
    paths = export.write_run(result, tmp_path, trace="chrome")
    doc = json.loads(paths[-1].read_text())
    _check_flows(_check_format(doc), result.trace.messages)
    counters = [ev for ev in doc["traceEvents"] if ev["ph"] == "C"]
    assert len(counters) == 3 * (len(result.trace.buffer) + len(result.trace.named_buffers))
    assert len(_read_csv(tmp_path / "messages.csv")[1]) == len(result.trace.messages)
    assert len(_read_csv(tmp_path / "buffer.csv")[1]) == len(result.trace.buffer)
