"""The recording reader (mpisim.recorded.read.trace) on stored recordings made with MPICH 5.0.2
and the recorder (tests/data/replay_c/*.c), and on broken logs. No MPI needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import paths
from hypothesis import given, settings
from hypothesis import strategies as st

import mpisim as ms
from mpisim.recorded import TraceError, is_trace, read_trace
from mpisim.recorded.record.recorder import merge_logs

DATA = paths.DATA / "replay"


def test_killed_deadlock_keeps_the_blocked_calls():
    """Example 3.10 with MPI_Send of 40000 B (rendezvous in MPICH): killed by SIGTERM after
    a timeout, each log still ends with the MPI_Send entered and never returned."""
    t = read_trace(DATA / "example-3.10-send-killed.trace")
    assert t.size == 2 and t.outcome() == "killed"
    assert "MPICH" in t.library and t.bsend_overhead == 96
    blocked = t.blocked()
    assert [(r, c.name, c.number) for r, c in blocked] == [(0, "Send", 2), (1, "Send", 2)]
    for rank, call in blocked:
        assert call.args["dest"] == 1 - rank and call.args["n"] == 10000
        assert t.ranks[rank].types[call.args["T"]].size == 4
        assert t.ranks[rank].types[call.args["T"]].name == "MPI_FLOAT"
        assert t.ranks[rank].ended == "signal 15"
        assert "SIGTERM" in t.ranks[rank].end_text()
        assert call.site is not None and call.site.offset > 0


def test_completed_ring_statuses_and_wildcards():
    """A bsend ring receiving with MPI_ANY_SOURCE: the wildcard is kept as written, the
    matched source is the status; the attach size is the recorded byte count."""
    t = read_trace(DATA / "bsend-ring.trace")
    assert t.size == 4 and t.outcome() == "completed"
    for log in t.ranks:
        assert log.ended == "finalized" and log.blocked is None
        names = [c.name for c in log.calls]
        assert names[:2] == ["Init", "Buffer_attach"] and names[-1] == "Finalize"
        assert log.calls[1].args["size"] == 4 * (800 + 96)
        recvs = [c for c in log.calls if c.name == "Recv"]
        assert len(recvs) == 4
        for c in recvs:
            assert c.args["src"] == ms.ANY_SOURCE
            assert c.statuses[0].source == (log.rank - 1) % 4 and c.statuses[0].count == 800
        assert all(c.gap >= 0 for c in log.calls)
        assert [c.number for c in log.calls] == list(range(1, len(log.calls) + 1))


def test_error_returned_by_a_call_is_kept():
    """MPI_ERRORS_RETURN: the 4th MPI_Bsend returned MPI_ERR_BUFFER, the run went on."""
    t = read_trace(DATA / "bsend-burst.trace")
    bsends = [c for c in t.ranks[0].calls if c.name == "Bsend"]
    assert [c.error for c in bsends] == [None, None, None, "MPI_ERR_BUFFER"]
    assert t.outcome() == "completed"
    assert t.ranks[0].calls[1].name == "Comm_set_errhandler"


def test_truncated_log_of_a_killed_run():
    """SIGKILL: no flush marker, and the last line of the file cut in the middle: the cut
    line is ignored, the call before it has no result (it was in progress)."""
    t = read_trace(DATA / "bsend-ring-killed.trace")
    assert t.outcome() == "killed"
    assert {log.ended for log in t.ranks} == {"cut"}
    for log in t.ranks:
        assert log.blocked is not None and log.blocked.name == "Bsend"
        assert log.blocked.number == 4
    full = read_trace(DATA / "bsend-ring.trace")
    assert [c.args for c in t.ranks[3].calls] == [c.args for c in full.ranks[3].calls[:4]]


def _last_rank_prefixes() -> tuple[bytes, int]:
    data = (DATA / "bsend-ring.trace").read_bytes()
    start = data.rfind(b"#mpisim-trace")
    header_end = data.index(b"#library", start)
    header_end = data.index(b"\n", header_end) + 1
    return data, header_end


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_cut_reads_as_a_prefix_of_the_run(tmp_path_factory, data):
    """Invariant: a log cut at any byte (a process killed while writing) reads without
    error, and its calls are the first calls of the whole log."""
    whole, header_end = _last_rank_prefixes()
    cut = data.draw(st.integers(min_value=header_end, max_value=len(whole)))
    path = tmp_path_factory.mktemp("cut") / "cut.trace"
    path.write_bytes(whole[:cut])
    t = read_trace(path)
    full = read_trace(DATA / "bsend-ring.trace").ranks[3].calls
    got = t.ranks[3].calls
    assert [(c.name, c.args) for c in got] == [(c.name, c.args) for c in full[:len(got)]]
    assert all(c.returned for c in got[:-1])


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.trace"
    path.write_text(text)
    return path


HEAD = "#mpisim-trace 1\n#rank 0 1\nInit g=0 thread=0\n= 0 d=0\n"


@pytest.mark.parametrize(("body", "message"), [
    ("= 0 d=5\n", ":5: =: a result line without a call before it"),
    ("Send g=x dest=1\n", ":5: g: expected an integer, got 'x'"),
    ("Send dest=1\n", ":5: Send: missing g="),
    ("Recv g=1 src=A\n= 0 d=1 st=1:2\n", ":6: st: expected SOURCE:TAG:BYTES"),
    ("T 1 size=4\n", ":5: extent: missing in a datatype description"),
    ("C \n", ":5: C: expected 'C ID size=... rank=...'"),
    ("junk line\n", ":5: junk: not a call"),
])
def test_bad_lines_name_file_line_and_key(tmp_path, body, message):
    path = _write(tmp_path, HEAD + body)
    with pytest.raises(TraceError) as e:
        read_trace(path)
    assert str(e.value).startswith(str(path)) and message in str(e.value)


def test_a_log_that_goes_on_past_a_call_in_progress_is_read_up_to_that_call(tmp_path):
    """A call logged before the one in progress returned (its result line never written:
    an error handler that never returned, a process killed in between) is no reason to
    refuse the recording: the process is read as ending inside that call ("cut"), and
    the paragraph says where its log ends and what was not read."""
    path = _write(tmp_path, HEAD + "Send g=1 dest=0 tag=0 comm=0 n=0 T=0\n"
                  "Recv g=1 src=0 tag=0 comm=0 n=0 T=0\n= 0 d=1\n# signal 15 g=5\n")
    log = read_trace(path).ranks[0]
    assert [c.name for c in log.calls] == ["Init", "Send"]
    assert (log.ended, log.last, log.blocked.name) == ("cut", None, "Send")
    assert log.end_text() == ("its log ends inside this call: line 6 starts another call "
                              "(MPI_Recv) before it returned; the log's 3 lines from there "
                              "are not read")


def test_missing_rank_version_and_not_a_trace(tmp_path):
    with pytest.raises(TraceError, match="no log of rank 1"):
        read_trace(_write(tmp_path, HEAD.replace("#rank 0 1", "#rank 0 2")))
    with pytest.raises(TraceError, match="version"):
        read_trace(_write(tmp_path, HEAD.replace("trace 1", "trace 9")))
    plain = tmp_path / "x.yaml"
    plain.write_text("name: x\n")
    assert not is_trace(plain) and is_trace(DATA / "bsend-ring.trace")
    with pytest.raises(TraceError, match="not a recording"):
        read_trace(plain)


def test_directory_of_rank_logs_reads_as_the_joined_file(tmp_path):
    """mpisim record joins rank.N.log files; a directory of them reads the same."""
    text = (DATA / "example-3.10-bsend.trace").read_text()
    logs = ["#mpisim-trace" + p for p in text.split("#mpisim-trace")[1:]]
    for rank, log in enumerate(logs):
        (tmp_path / f"rank.{rank}.log").write_text(log)
    joined = tmp_path / "joined.trace"
    assert merge_logs(tmp_path, joined) == 2
    assert joined.read_text() == text
    a, b = read_trace(tmp_path), read_trace(DATA / "example-3.10-bsend.trace")
    assert [[(c.name, c.args, c.out) for c in r.calls] for r in a.ranks] == \
        [[(c.name, c.args, c.out) for c in r.calls] for r in b.ranks]
