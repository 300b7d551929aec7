"""The fast reader (mpisim.recorded.read.columns) reads what the line reader
(mpisim.recorded.read.lines) reads, call for call, on every stored recording, whatever the
block size; a log not as the recorder writes it goes to the line reader; calls are made when
asked for."""

from __future__ import annotations

import io
from itertools import pairwise

import pytest
from helpers.paths import DATA

from mpisim.recorded import read_trace
from mpisim.recorded.read import columns
from mpisim.recorded.read.lines import MAGIC, parse_log

STORED = sorted((DATA / "replay").glob("*.trace"))
FIELDS = ("number", "name", "gap", "args", "line", "site", "returned", "error", "duration",
          "out")


def _by_line(path):
    """Every log of ``path`` read by the line reader alone."""
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    lines = lines[:-1]  # the text after the last newline: empty, or a cut line
    starts = [i for i, text in enumerate(lines) if text.startswith(MAGIC)] + [len(lines)]
    return [parse_log(str(path), lines, a, b) for a, b in pairwise(starts)]


def _calls(log):
    return [tuple(getattr(c, f) for f in FIELDS) for c in log.calls]


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.name)
def test_the_fast_reader_reads_what_the_line_reader_reads(path):
    fast = columns.read_logs(str(path), io.BytesIO(path.read_bytes()))
    slow = _by_line(path)
    assert [(x.rank, x.ended, x.last, x.header) for x in fast] == \
        [(x.rank, x.ended, x.last, x.header) for x in slow]
    assert [_calls(x) for x in fast] == [_calls(x) for x in slow]


@pytest.mark.parametrize("block", [64, 997, 4096])
def test_any_block_size_reads_the_same(monkeypatch, block):
    path = DATA / "replay" / "comm-chapters.trace"
    whole = [_calls(x) for x in columns.read_logs(str(path), io.BytesIO(path.read_bytes()))]
    monkeypatch.setattr(columns, "BLOCK", block)
    assert [_calls(x) for x in columns.read_logs(str(path), io.BytesIO(path.read_bytes()))] \
        == whole


def test_a_log_in_another_notation_is_read_line_by_line(tmp_path):
    # the line reader's grammar: fields in any order, numbers as int(text, 0) reads them
    text = ("#mpisim-trace 1\n#rank 0 1\nInit g=0 thread=0\n= 0 d=0\n"
            "T 1 size=4 extent=4 lb=0 kind=named name=MPI_INT\n"
            "Send dest=N g=0x10 tag=0 comm=0 n=1 T=1\n= 0 d=7\n")
    path = tmp_path / "other.trace"
    path.write_text(text)
    send = read_trace(path).ranks[0].calls[1]
    assert (send.name, send.gap, send.duration) == ("Send", 0x10 * 1e-9, 7 * 1e-9)


def test_calls_are_made_when_asked_and_each_is_its_own():
    log = read_trace(DATA / "replay" / "bsend-ring.trace").ranks[1]
    first, again = log.calls[2], log.calls[2]
    assert first == again and first is not again
    first.args["dest"] = 99  # a call's arguments are its own to change
    assert log.calls[2].args["dest"] != 99
    assert [c.number for c in log.calls[-3:]] == [len(log.calls) - 2, len(log.calls) - 1,
                                                 len(log.calls)]
