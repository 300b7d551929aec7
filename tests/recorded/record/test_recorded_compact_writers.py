"""Making compact recordings without a run: ``mpisim record --convert`` (a text recording
made compact, refused in one line when it cannot be), the synthetic generator's
``--format compact``, and ``mpisim record``'s merge of a process's stream cut by a kill."""

from __future__ import annotations

import pytest
from helpers.paths import DATA

from mpisim.cli import main
from mpisim.recorded import is_trace, read_trace
from mpisim.recorded.read.compact import MAGIC
from mpisim.recorded.record import synthetic
from mpisim.recorded.record.compact import convert, whole
from mpisim.recorded.record.recorder import merge_logs

TEXT = DATA / "replay" / "bsend-ring.trace"


def test_convert_writes_a_compact_recording_that_replays(tmp_path, capsys):
    out = tmp_path / "ring.trace"
    assert main(["record", "--convert", str(TEXT), "--out", str(out)]) == 0
    assert "calls, compact)" in capsys.readouterr().err
    assert out.read_bytes().startswith(MAGIC) and is_trace(out)
    assert main(["replay", str(out)]) == 0
    assert "agrees with the recording" in capsys.readouterr().out


@pytest.mark.parametrize("argv, said", [
    (["--convert", "T", "--", "mpiexec"], "give a recording or a command to run, not both"),
    (["--convert", "T", "--format", "text"], "writes the compact format"),
    (["--convert", "OUT"], "--out must name another file"),
])
def test_convert_refuses_what_it_cannot_do_in_one_line(tmp_path, capsys, argv, said):
    argv = [str(TEXT) if a == "T" else str(tmp_path / "out.trace") if a == "OUT" else a
            for a in argv]
    assert main(["record", *argv, "--out", str(tmp_path / "out.trace")]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_convert_of_a_compact_recording_or_a_bad_text_one_is_one_line(tmp_path, capsys):
    compact = tmp_path / "c.trace"
    convert(TEXT, compact)
    bad = tmp_path / "bad.trace"
    bad.write_text("#mpisim-trace 1\n#rank 0 1\nInit g=0 thread=0\n= 0 d=0\nSend dest=1\n")
    for source, said in ((compact, "already a compact recording"),
                         (bad, "bad.trace:5: Send: missing g=")):
        assert main(["record", "--convert", str(source), "--out",
                     str(tmp_path / "new.trace")]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1
    assert not (tmp_path / "new.trace").exists()


@pytest.mark.parametrize("shape, ranks", [("halo3d", 8), ("master-worker", 4),
                                          ("pingpong", 2)])
def test_synthetic_recordings_in_both_formats_hold_the_same_calls(tmp_path, shape, ranks):
    text, compact = tmp_path / "t.trace", tmp_path / "c.trace"
    assert synthetic.write(text, shape, ranks, 30) == \
        synthetic.write(compact, shape, ranks, 30, fmt="compact")
    assert compact.read_bytes().startswith(MAGIC)
    assert compact.stat().st_size * 5 < text.stat().st_size
    a, b = read_trace(text, sources=False), read_trace(compact, sources=False)
    for x, y in zip(a.ranks, b.ranks, strict=True):
        assert [c.name for c in x.calls] == [c.name for c in y.calls]
        assert [(c.args, c.out, c.gap) for c in x.calls] == [(c.args, c.out, c.gap)
                                                            for c in y.calls]


@pytest.mark.parametrize("shape, ranks", [("halo3d", 8), ("halo3d", 1),
                                          ("master-worker", 5), ("pingpong", 3)])
def test_synthetic_columns_are_byte_for_byte_the_text_converted(tmp_path, monkeypatch,
                                                                shape, ranks):
    """The generator writes a compact recording's steps as columns (keys and request bases
    derived from two steps' lines); it is the very file its text recording converts to, over
    several blocks and across block boundaries inside a step."""
    from mpisim.recorded.record import compact

    monkeypatch.setattr(compact, "BLOCK_CALLS", 97)
    text, direct, converted = (tmp_path / f"{n}.trace" for n in ("t", "d", "c"))
    synthetic.write(text, shape, ranks, 60)
    synthetic.write(direct, shape, ranks, 60, fmt="compact")
    compact.convert(text, converted)
    assert direct.read_bytes() == converted.read_bytes()


def test_merge_keeps_the_whole_blocks_of_a_stream_cut_by_a_kill(tmp_path, monkeypatch):
    from mpisim.recorded.record import compact

    monkeypatch.setattr(compact, "BLOCK_CALLS", 50)
    logs = tmp_path / "logs"
    synthetic.write(logs, "pingpong", 2, 200, fmt="compact")
    rank0 = logs / "rank.0.log"
    data = rank0.read_bytes()
    cut = len(data) - 300  # inside its last block
    rank0.write_bytes(data[:cut])
    assert whole(data[:cut]) < cut
    out = tmp_path / "merged.trace"
    assert merge_logs(logs, out) == 2
    trace = read_trace(out, sources=False)
    first, second = trace.ranks
    assert first.ended == "cut" and first.broken is None and len(first.calls) % 50 == 0
    assert second.ended == "finalized" and len(second.calls) == 402


def test_whole_is_nothing_without_a_whole_header_and_all_of_a_whole_stream(tmp_path):
    assert whole(b"#mpisim-compact 1\n#rank 0 2\n") == 0
    synthetic.write(tmp_path / "logs", "pingpong", 2, 10, fmt="compact")
    data = (tmp_path / "logs" / "rank.1.log").read_bytes()
    assert whole(data) == len(data)


def test_merge_makes_a_text_log_compact_beside_compact_ones(tmp_path):
    """A process on a host that was not given MPISIM_TRACE_FORMAT writes text: the merged
    recording is compact throughout, its calls those of the text log."""
    compact, text = tmp_path / "c", tmp_path / "t"
    synthetic.write(compact, "pingpong", 2, 20, fmt="compact")
    synthetic.write(text, "pingpong", 2, 20)
    (compact / "rank.1.log").write_bytes((text / "rank.1.log").read_bytes())
    out = tmp_path / "merged.trace"
    assert merge_logs(compact, out) == 2
    assert out.read_bytes().count(MAGIC) == 2
    merged, original = read_trace(out, sources=False), read_trace(text, sources=False)
    assert [c.args for c in merged.ranks[1].calls] == [c.args for c in original.ranks[1].calls]
