"""The compact recording format (mpisim.recorded.read.compact, written by
mpisim.recorded.record.compact and by the recorder): every stored text recording converted
to it reads back as the same calls and replays byte-identically; damaged ones read up to the
damage, naming the process and the call, or are refused in one line."""

from __future__ import annotations

import dataclasses
import io
import zlib
from pathlib import Path

import numpy as np
import pytest
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.read import compact as fmt
from mpisim.recorded.read.columns import read_logs
from mpisim.recorded.read.records import TraceError
from mpisim.recorded.read.trace import is_trace
from mpisim.recorded.record import compact as writer
from mpisim.recorded.record.compact import convert

RECORDINGS = sorted(DATA.glob("**/*.trace"))
REPLAYED = [DATA / "replay" / name for name in (
    "example-3.10-bsend.trace", "bsend-ring-killed.trace", "cart-halo.trace",
    "comm-chapters.trace", "endless-stopped.trace")] + [DATA / "deadlock" / "finalize_recv.trace"]


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _compact(path: Path, tmp_path: Path) -> Path:
    out = tmp_path / f"{path.stem}.ctrace"
    convert(path, out)
    return out


def _same_logs(a: list, b: list) -> None:
    for x, y in zip(a, b, strict=True):
        for key in ("rank", "size", "header", "types", "sites", "comms", "ended", "last",
                    "broken"):
            assert getattr(x, key) == getattr(y, key), key
        assert len(x.calls) == len(y.calls)
        for i in range(len(x.calls)):
            got, want = y.calls[i], x.calls[i]
            assert dataclasses.replace(got, line=0) == dataclasses.replace(want, line=0), i


@pytest.mark.parametrize("path", RECORDINGS, ids=_name)
def test_a_converted_recording_reads_as_the_same_calls(path, tmp_path):
    out = _compact(path, tmp_path)
    assert is_trace(out)
    _same_logs(read_trace(path, sources=False).ranks, read_trace(out, sources=False).ranks)


def _replayed(path: Path) -> tuple[str, dict[str, np.ndarray]]:
    result = replay_scenario(path).run()
    text = result.to_json().replace(str(path), "RECORDING")
    arrays = {f.name: getattr(result.trace, f.name) for f in dataclasses.fields(result.trace)
              if isinstance(getattr(result.trace, f.name), np.ndarray)}
    return text, arrays


def _replay_cases() -> list:
    """Every stored recording: a few in the inner loop, all of them among the slow tests."""
    return [pytest.param(path, marks=() if path in REPLAYED else pytest.mark.slow)
            for path in RECORDINGS]


@pytest.mark.parametrize("path", _replay_cases(), ids=_name)
def test_a_converted_recording_replays_byte_identically(path, tmp_path):
    text, arrays = _replayed(path)
    got_text, got_arrays = _replayed(_compact(path, tmp_path))
    assert got_text == text
    assert arrays.keys() == got_arrays.keys()
    for key, value in arrays.items():
        assert got_arrays[key].tobytes() == value.tobytes(), key


# -- the format -----------------------------------------------------------------------------
def _pingpong(calls: int) -> list[str]:
    lines = ["#mpisim-trace 1", "#rank 0 2", "#library MPICH Version: 5.0.2",
             "Init g=0 thread=0", "= 0 d=0", "T 1 size=8 extent=8 lb=0 kind=named "
             "name=MPI_DOUBLE", "@ 1 ./pp 0x1200", "@ 2 ./pp 0x1240"]
    rng = np.random.default_rng(1)
    for i in range(calls // 2):
        lines += [f"Send g={rng.integers(50, 900)} @=1 dest=1 tag=0 n=1 T=1 comm=0",
                  f"= 0 d={rng.integers(300, 2000)}",
                  f"Recv g={rng.integers(50, 900)} @=2 src=1 tag=0 n=1 T=1 comm=0",
                  f"= 0 d={rng.integers(900, 5000)} st=1:0:8"]
        if i == 0:
            lines.append("Isend g=5 dest=1 tag=3 n=1 T=1 comm=0")  # two requests' keys
            lines.append("= 0 d=7 r=41")
    lines += ["Finalize g=10", "= 0 d=20", "# exit g=5"]
    return lines


def _written(lines: list[str], block: int, monkeypatch) -> bytes:
    monkeypatch.setattr(writer, "BLOCK_CALLS", block)
    out = io.BytesIO()
    w = writer.TextToCompact(out)
    for line in lines:
        w.line(line)
    w.close()
    return out.getvalue()


def _text_logs(lines: list[str], tmp_path: Path) -> list:
    path = tmp_path / "text.trace"
    path.write_text("\n".join(lines) + "\n")
    with open(path, "rb") as f:
        return read_logs(str(path), f)


def test_a_ping_pong_takes_a_few_bytes_a_call(monkeypatch, tmp_path):
    lines = _pingpong(20000)
    data = _written(lines, writer.BLOCK_CALLS, monkeypatch)
    text = len("\n".join(lines))
    calls = 20003  # Init, 10,000 round trips, one Isend, Finalize
    assert len(data) / calls < 8  # issue 41: at most about 8 bytes a call
    assert text / len(data) > 5
    (log,) = fmt.read_compact("pp", data)
    assert len(log.calls) == calls and log.ended == "finalized" and log.last == ("g", 5e-9)
    assert log.calls[calls - 2].name == "Recv" and log.calls[calls - 2].statuses[0].count == 8


def test_blocks_read_as_one_log_and_share_their_keys(monkeypatch, tmp_path):
    lines = _pingpong(1000)
    data = _written(lines, 64, monkeypatch)
    assert len(_frames(data)) == -(-1003 // 64)
    (log,) = fmt.read_compact("pp", data)
    _same_logs(_text_logs(lines, tmp_path), [log])
    assert len(log.calls.shapes) == 5  # Init, Send, Recv, Isend, Finalize


def test_request_ids_are_kept_relative_so_a_loop_shares_one_key(monkeypatch):
    lines = ["#mpisim-trace 1", "#rank 0 1", "Init g=0 thread=0", "= 0 d=0"]
    for r in range(1, 200):
        lines += ["Isend g=1 dest=0 tag=0 n=1 T=1 comm=0", f"= 0 d=1 r={r}",
                  f"Wait g=1 r={r}", "= 0 d=1 st=-"]
    data = _written(lines, writer.BLOCK_CALLS, monkeypatch)
    (log,) = fmt.read_compact("loop", data)
    assert len(log.calls.shapes) == 3
    assert log.calls[-2].out["r"] == 199 and log.calls[-1].args["r"] == [199]


# -- damage (issue 41: reported with the process and the call where it begins) ---------------
def _frames(data: bytes, kind: bytes = b"\xffB") -> list[int]:
    """Where the frames of ``kind`` start, walking the streams frame by frame."""
    found, pos = [], 0
    while pos < len(data):
        if data.startswith(fmt.MAGIC, pos):
            pos = data.index(b"\n\n", pos) + 2
        tag = data[pos:pos + 2]
        if tag == kind:
            found.append(pos)
        if tag == b"\xffB":
            pos += fmt.BLOCK.size + fmt.BLOCK.unpack_from(data, pos)[3]
        elif tag == b"\xffX":
            pos += fmt.INDEX.size + 16 * fmt.INDEX.unpack_from(data, pos)[3] + 4
        else:
            pos = data.index(b"\n", pos + 1) + 1
    return found


@pytest.fixture
def two_ranks(monkeypatch, tmp_path):
    """A 2-process recording of 64-call blocks, and its text."""
    lines = _pingpong(600)
    other = [line.replace("#rank 0 2", "#rank 1 2") for line in lines]
    data = _written(lines + other, 64, monkeypatch)
    return data, _text_logs(lines + other, tmp_path)


def _read(data: bytes, tmp_path: Path):
    path = tmp_path / "damaged.trace"
    path.write_bytes(data)
    return read_trace(path, sources=False)


def test_a_corrupted_block_is_read_up_to_it_naming_the_rank_and_call(two_ranks, tmp_path):
    data, text = two_ranks
    second = _frames(data)[1]
    frame = fmt.BLOCK.unpack_from(data, second)
    bad = bytearray(data)
    bad[second + fmt.BLOCK.size + 10] ^= 0xFF
    trace = _read(bytes(bad), tmp_path)
    first = frame[5]
    rank0 = trace.ranks[0]
    assert len(rank0.calls) == first == 64
    assert f"the recording is damaged from call {first + 1} of rank 0" in rank0.broken
    assert "checksum" in rank0.broken and rank0.ended == "cut"
    assert [c.name for c in rank0.calls] == [c.name for c in text[0].calls[:first]]
    assert len(trace.ranks[1].calls) == len(text[1].calls)  # the next stream is read


def test_a_cut_recording_reads_what_it_holds_at_any_length(two_ranks, tmp_path):
    data, _ = two_ranks
    half = len(data) // 2
    for cut in range(40, half, max(1, half // 60)):
        path = tmp_path / "cut.trace"
        path.write_bytes(data[:cut])
        try:
            trace = read_trace(path, sources=False)
        except TraceError as e:  # the header cut, or rank 1's log lost with it
            assert "\n" not in str(e) and str(path) in str(e)
            continue
        assert trace.ranks[0].ended == "cut"


def test_a_wrong_index_is_one_line(two_ranks, tmp_path):
    data, _ = two_ranks
    at = _frames(data, b"\xffX")[0]
    bad = bytearray(data)
    bad[at + fmt.INDEX.size] ^= 0x01  # the first block's offset
    with pytest.raises(TraceError, match=r"rank 0: its index does not name the blocks") as e:
        _read(bytes(bad), tmp_path)
    assert "\n" not in str(e.value)


def test_a_header_of_another_version_is_one_line(two_ranks, tmp_path):
    data, _ = two_ranks
    with pytest.raises(TraceError, match=r"version \['2'\] is not supported \(this mpisim "
                                         r"reads version 1\)"):
        _read(data.replace(b"#mpisim-compact 1", b"#mpisim-compact 2", 1), tmp_path)


def test_a_block_that_does_not_decompress_is_damage(two_ranks, tmp_path):
    data, _ = two_ranks
    first = _frames(data)[0]
    frame = list(fmt.BLOCK.unpack_from(data, first))
    body = b"not zlib at all"
    frame[3], frame[8] = len(body), zlib.crc32(body)
    end = first + fmt.BLOCK.size + fmt.BLOCK.unpack_from(data, first)[3]
    bad = data[:first] + fmt.BLOCK.pack(*frame) + body + data[end:]
    trace = _read(bad, tmp_path)
    assert "does not decompress" in trace.ranks[0].broken
    assert len(trace.ranks[0].calls) == 0 and len(trace.ranks[1].calls) > 0


def test_random_damage_never_raises_anything_but_a_trace_error(two_ranks, tmp_path):
    data, _ = two_ranks
    rng = np.random.default_rng(7)
    for _ in range(60):
        bad = bytearray(data)
        for at in rng.integers(0, len(data), size=3):
            bad[at] = int(rng.integers(0, 256))
        try:
            _read(bytes(bad), tmp_path)
        except TraceError as e:
            assert "\n" not in str(e)


def test_converting_a_damaged_text_recording_writes_nothing(tmp_path):
    src = tmp_path / "bad.trace"
    src.write_text("#mpisim-trace 1\n#rank 0 1\nInit g=0 thread=0\n= 0 d=0\nSend dest=1\n")
    out = tmp_path / "out.trace"
    with pytest.raises(TraceError, match="missing g="):
        convert(src, out)
    assert not out.exists() and list(tmp_path.iterdir()) == [src]


def test_the_compact_reader_keeps_the_rate_the_issue_asks(monkeypatch):
    """Issue 41: the read path at >= 5 x 10^6 calls/s a core (here: more than 10^6, for a
    shared machine's noise)."""
    import time

    data = _written(_pingpong(200000), writer.BLOCK_CALLS, monkeypatch)
    start = time.process_time()
    (log,) = fmt.read_compact("pp", data)
    rate = len(log.calls) / max(time.process_time() - start, 1e-9)
    assert rate > 1e6


def test_a_recording_damaged_from_its_first_call_replays_and_says_so(two_ranks, tmp_path):
    data, _ = two_ranks
    bad = bytearray(data)
    bad[_frames(data)[0] + fmt.BLOCK.size + 5] ^= 0xFF
    path = tmp_path / "damaged.trace"
    path.write_bytes(bytes(bad))
    scenario = replay_scenario(path)
    assert "stopped (the recording is damaged from call 1 of rank 0 (its block's checksum " \
        "does not match)" in scenario.recording()
    assert scenario.run().outcome is not ms.Outcome.ERROR  # replayed, never a traceback
