"""What the recorder sees of buffers and data (MPI 4.1 §3.7.2, §12.7, §3.5).

The recorder logs each buffer argument's memory range (``sb=``/``rb=``/``wb=``) and hashes
the bytes of sends and receives (the ``H`` data lines); a replay judges the recording's
buffers (:mod:`mpisim.recorded.replayer.buffers`) and a race exploration compares the bytes
two orders deliver (``RACY (data)``). The C codes are in tests/data/mbi_c/ (one pair per
rule, recorded on MPICH 5.0.2 with 2 processes: ``python tests/recorded/replayer/
test_recorded_mbi.py NAME`` records one again) and tests/data/races_c/ (3 processes,
recorded by :func:`record_races`). The stored recordings are judged without any MPI; the
real_mpi tests record them again and skip cleanly without MPICH.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.read.columns import read_logs
from mpisim.recorded.read.lines import parse_log
from mpisim.recorded.read.records import data_fields
from mpisim.recorded.record.compact import convert
from mpisim.recorded.replayer.buffers import Span, buffer_findings, sent_hash, span_of
from mpisim.whatif.races import check_races

MBI_C = DATA / "mbi_c"
RACES_C = DATA / "races_c"


def rules_of(trace: Path) -> dict[str, list]:
    found: dict[str, list] = {}
    for f in ms.replay(trace).findings:
        found.setdefault(f.rule, []).append(f)
    return found


# -- the rules, on the stored recordings ------------------------------------------------------
def test_an_isend_buffer_written_before_its_wait_is_buffer_modified():
    """§3.7.2: the send buffer's hash at MPI_Isend differs from its hash at the MPI_Wait that
    completed it; the finding names both calls."""
    (found,) = rules_of(MBI_C / "buf_modified_bad.trace")["buffer-modified"]
    assert found.section == "3.7.2" and found.kind == "error"
    assert [(c.rank, c.call) for c in found.calls] == [(0, "MPI_Isend"), (0, "MPI_Wait")]
    assert found.calls[0].where.startswith("call 2, ")
    assert found.calls[1].where.startswith("call 3, ")
    assert "changed before MPI_Wait (call 3) completed it" in found.message
    assert rules_of(MBI_C / "buf_modified_ok.trace") == {}


def test_a_persistent_send_written_between_its_start_and_its_wait_is_buffer_modified():
    """§3.9, §3.7.2: a started persistent send is pending as an MPI_Isend is, from each
    MPI_Startall (its data hashed there, one hash a request) to the MPI_Waitall that completes
    it; only the request whose buffer changed, in the round it changed, is reported, naming
    the MPI_Send_init that made it. Written after the wait, before the next start, it is
    the program's to write."""
    (found,) = rules_of(MBI_C / "persistent_modified_bad.trace")["buffer-modified"]
    assert found.section == "3.7.2"
    assert [(c.rank, c.call, c.where.split(",")[0]) for c in found.calls] == [
        (0, "MPI_Send_init", "call 3"), (0, "MPI_Startall", "call 6"),
        (0, "MPI_Waitall", "call 7")]
    assert "persistent request MPI_Send_init (call 3) made, started by MPI_Startall (call 6)" \
        in found.message and "what the receiver got" in found.message
    assert rules_of(MBI_C / "persistent_modified_ok.trace") == {}


def test_a_nonblocking_collectives_send_buffer_written_before_its_wait_is_buffer_modified():
    """§6.12, §3.7.2: an MPI_Iallreduce's send buffer is the library's until the wait that
    completes it; rank 0 writes it before: its hash at the call and at MPI_Wait differ. The
    blocking forms' buffers stay ranges only (nothing to judge: they return complete)."""
    (found,) = rules_of(MBI_C / "icoll_modified_bad.trace")["buffer-modified"]
    assert [(c.rank, c.call) for c in found.calls] == [(0, "MPI_Iallreduce"), (0, "MPI_Wait")]
    assert "what the other processes got depends on timing" in found.message
    assert rules_of(MBI_C / "icoll_modified_ok.trace") == {}
    log = read_trace(MBI_C / "icoll_modified_bad.trace").ranks[1]
    (call,) = [i for i in range(len(log.calls)) if log.calls[i].name == "Iallreduce"]
    assert "h" in data_fields(log.data[call])  # (every rank's send buffer is hashed)


def test_a_persistent_collectives_send_buffer_written_before_its_wait_is_buffer_modified():
    """§6.13, §3.7.2: a started MPI_Allreduce_init is pending as an MPI_Iallreduce is; rank 0
    writes its send buffer before the wait in the second round only (its twin between a wait
    and the next start)."""
    (found,) = rules_of(MBI_C / "pcoll_modified_bad.trace")["buffer-modified"]
    assert [(c.rank, c.call, c.where.split(",")[0]) for c in found.calls] == [
        (0, "MPI_Allreduce_init", "call 2"), (0, "MPI_Start", "call 5"),
        (0, "MPI_Wait", "call 6")]
    assert "what the other processes got" in found.message
    assert rules_of(MBI_C / "pcoll_modified_ok.trace") == {}


def test_an_isendrecv_send_buffer_written_before_its_wait_is_buffer_modified():
    """§3.10, §3.7.2: MPI_Isendrecv's send part is pending as an MPI_Isend is: its buffer
    (logged with its receive buffer) hashed at the call and at the wait differ."""
    (found,) = rules_of(MBI_C / "isendrecv_modified_bad.trace")["buffer-modified"]
    assert [(c.rank, c.call) for c in found.calls] == [(0, "MPI_Isendrecv"), (0, "MPI_Wait")]
    assert rules_of(MBI_C / "isendrecv_modified_ok.trace") == {}


def test_a_startall_logs_one_hash_a_request_and_a_race_takes_none_of_them():
    """The data line of an MPI_Startall holds one hash a request started; which of them a
    replayed send at that call sent is not known, so the race exploration's data (§3.5)
    gets none, where an MPI_Start's single hash is its send's."""
    trace = read_trace(MBI_C / "persistent_modified_bad.trace")
    log = trace.ranks[0]
    starts = [i for i in range(len(log.calls)) if log.calls[i].name == "Startall"]
    assert len(starts) == 3
    assert all(len(data_fields(log.data[i])["h"]) == 2 for i in starts)
    assert sent_hash(trace, 0, f"call {starts[0] + 1}, site") is None
    isend = read_trace(MBI_C / "buf_modified_bad.trace")
    assert sent_hash(isend, 0, "call 2, site") == "dca34a38a93b878b"


_STARTED_RECV = """#mpisim-trace 1
#rank 0 2
#mpi 5.0
#data-hash mix64
Init g=0 thread=0
= 0 d=0
T 1 size=4 extent=4 lb=0 kind=named name=MPI_INT
Irecv g=10 src=1 tag=0 comm=0 n=4 T=1 rb=10000:16
= 0 d=10 r=1
Recv_init g=10 src=1 tag=1 comm=0 n=4 T=1 rb=10008:16
= 0 d=10 r=2
{start}Waitall g=10 r=1,2
= 0 d=10 st=1:0:16,1:1:16
Finalize g=10
= 0 d=10
"""


@pytest.mark.parametrize("started", [True, False])
def test_a_persistent_receive_started_into_a_pending_receives_bytes_is_recv_overlap(
        started, tmp_path):
    """§3.9, §3.7.2: MPI_Recv_init makes an inactive request (no overlap yet); its
    MPI_Start posts the receive, into 8 bytes the pending MPI_Irecv also writes."""
    text = _STARTED_RECV.format(start="Start g=10 r=2\n= 0 d=10\n" if started else "")
    path = tmp_path / "run.trace"
    path.write_text(text + text.replace("#rank 0 2", "#rank 1 2").split("T 1 ")[0]
                    + "Finalize g=10\n= 0 d=10\n")
    found = [f for f in buffer_findings(read_trace(path)) if f[0] == "recv-overlap"]
    if not started:
        assert found == []
        return
    ((_rule, message, calls),) = found
    assert [c.call for c in calls] == ["MPI_Irecv", "MPI_Start"]
    assert "overlapping by 8" in message


def test_two_pending_irecvs_into_one_buffer_are_recv_overlap():
    """§3.7.2: a receive posted into bytes a pending receive also writes."""
    (found,) = rules_of(MBI_C / "recv_overlap_bad.trace")["recv-overlap"]
    assert found.section == "3.7.2"
    assert [(c.rank, c.call) for c in found.calls] == [(1, "MPI_Irecv"), (1, "MPI_Irecv")]
    assert "overlapping by 4" in found.message
    assert rules_of(MBI_C / "recv_overlap_ok.trace") == {}


def test_a_put_into_window_bytes_an_irecv_writes_in_one_epoch_is_rma_local_overlap():
    """§12.7: MPI_Put to rank 1's window at the bytes its pending MPI_Irecv writes, in one
    fence epoch (the target's window base from its MPI_Win_create's wb=)."""
    (found,) = rules_of(MBI_C / "rma_recv_bad.trace")["rma-local-overlap"]
    assert found.section == "12.7, 3.7.2"
    assert [(c.rank, c.call) for c in found.calls] == [(0, "MPI_Put"), (1, "MPI_Irecv")]
    assert rules_of(MBI_C / "rma_recv_ok.trace") == {}


def _two_irecvs(tmp_path: Path, type_line: str) -> Path:
    """Two pending MPI_Irecv whose ranges overlap (one element apart), then a waitall."""
    trace = tmp_path / "two.trace"
    trace.write_text(
        "#mpisim-trace 1\n#rank 0 2\n#mpi 4.1\n#library test\n#data-hash mix64\n"
        f"{type_line}\nInit g=0 thread=0\n= 0 d=0\n"
        "Irecv g=1 src=1 tag=0 comm=0 n=4 T=3 rb=10000:52\n= 0 d=1 r=1\n"
        "Irecv g=1 src=1 tag=1 comm=0 n=4 T=3 rb=10004:52\n= 0 d=1 r=2\n"
        "Waitall g=1 r=1,2\n= 0 d=1 st=1:0:16,1:1:16\n"
        "#mpisim-trace 1\n#rank 1 2\n#mpi 4.1\n#library test\nInit g=0 thread=0\n= 0 d=0\n")
    return trace


def test_overlapping_ranges_of_types_with_holes_are_not_overlapping_bytes(tmp_path):
    """§3.7.2 is about bytes: two columns of one matrix (vectors, size < extent) received at
    once overlap as ranges, not as bytes: no finding; contiguous types: recv-overlap."""
    vector = "T 3 size=4 extent=52 lb=0 kind=vector sig=MPI_INT*1"
    assert buffer_findings(read_trace(_two_irecvs(tmp_path, vector))) == []
    named = "T 3 size=4 extent=4 lb=0 kind=named name=MPI_INT"
    (found,) = buffer_findings(read_trace(_two_irecvs(tmp_path, named)))
    assert found[0] == "recv-overlap"


def test_a_recording_made_before_buffers_were_logged_gives_no_buffer_finding():
    trace = read_trace(MBI_C / "req_wait_ok.trace")
    assert not any(log.data for log in trace.ranks)
    assert buffer_findings(trace) == []


# -- the format: ranges and data lines, read alike by every reader ----------------------------
def test_buffers_are_logged_as_ranges_and_the_data_as_lines_after_their_call():
    """Each buffer as ``ADDR:BYTES``; a send's hash at the call (``h``), again at the
    completion (``w``); a receive's bytes at its completion, equal to the send's."""
    trace = read_trace(MBI_C / "buf_modified_ok.trace")
    sender, receiver = trace.ranks
    isend, wait = sender.calls[1], sender.calls[2]
    span = span_of(isend.args["sb"])
    assert isend.name == "Isend" and wait.name == "Wait" and span.hi - span.lo == 16
    sent = data_fields(sender.data[1])["h"]
    assert data_fields(sender.data[2])["w"] == sent  # unchanged at its wait
    recv = receiver.calls[1]
    assert recv.name == "Recv" and "rb" in recv.args
    assert data_fields(receiver.data[1])["w"] == sent  # the bytes it got are those sent
    assert "#data-hash mix64" in (MBI_C / "buf_modified_ok.trace").read_text()


@pytest.mark.parametrize("name", ["buf_modified_bad", "rma_recv_bad"])
def test_the_data_lines_read_the_same_from_text_compact_and_line_by_line(name, tmp_path):
    path = MBI_C / f"{name}.trace"
    text = read_trace(path)
    compact = tmp_path / "run.trace"
    convert(path, compact)
    fast = read_trace(compact)
    lines = path.read_text().split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("#mpisim-trace")]
    slow = [parse_log(str(path), lines, a, b) for a, b in
            zip(starts, [*starts[1:], len(lines)], strict=True)]
    with open(path, "rb") as f:
        columns = read_logs(str(path), f)
    for logs in (fast.ranks, slow, columns):
        assert [log.data for log in logs] == [log.data for log in text.ranks]
    assert any(log.data for log in text.ranks)


def test_hashes_stay_out_of_the_compact_keys(tmp_path):
    """A loop whose send data change every call is one key, whatever its hashes: they are
    lines of their own, not part of the call's key."""
    header = ("#mpisim-trace 1\n#rank 0 1\n#mpi 4.1\n#library test\n#data-hash mix64\n"
              "T 1 size=4 extent=4 lb=0 kind=named name=MPI_INT\n"
              "Init g=0 thread=0\n= 0 d=0\n")
    body = "".join(f"Send g=100 dest=N tag=0 comm=0 n=1 T=1 sb=7ff000:4\n= 0 d=50\n"
                   f"H h={i * 7919 + 1:x}\n" for i in range(200))
    src = tmp_path / "loop.trace"
    src.write_text(header + body + "Finalize g=1\n= 0 d=1\n")
    out = tmp_path / "loop-compact.trace"
    convert(src, out)
    (log,) = read_trace(out).ranks
    assert len(log.calls.shapes) == 3  # Init, Send, Finalize
    assert len(log.data) == 200 and data_fields(log.data[200])["h"] == [f"{199 * 7919 + 1:x}"]
    assert out.stat().st_size < src.stat().st_size / 2


def test_a_range_is_a_hex_address_and_a_byte_count():
    assert span_of("7ffe90c8ab50:16") == Span(0x7FFE90C8AB50, 0x7FFE90C8AB60)
    assert span_of("10:0") is None and span_of("zz:4") is None and span_of(None) is None
    assert Span(0, 8).meets(Span(4, 12)) and not Span(0, 8).meets(Span(8, 12))
    assert data_fields("h=ab w=-,cd") == {"h": ["ab"], "w": [None, "cd"]}


# -- races on the data ------------------------------------------------------------------------
def test_a_wildcard_receive_whose_senders_send_different_bytes_is_racy_data():
    """§3.5: the two orders complete alike, but rank 0's first wildcard receive gets rank
    1's bytes in one and rank 2's, other bytes, in the other."""
    races = check_races(replay_scenario(RACES_C / "wildcard_data_differ.trace"))
    assert races.racy and races.data and races.exit_code == 8
    report = races.report()
    assert report.splitlines()[0].startswith("wildcard_data_differ: RACY (data)")
    assert "rank 0's wildcard receive #1 (MPI_Recv at call 2," in report
    assert "gets rank 1's bytes" in report and "rank 2's (hash" in report
    assert races.finding().rule == "message-race"
    assert races.to_dict()["data"] is True


def test_a_wildcard_receive_whose_senders_send_the_same_bytes_stays_race_free():
    races = check_races(replay_scenario(RACES_C / "wildcard_data_same.trace"))
    assert not races.racy and races.alternatives == 1
    assert "RACE-FREE" in races.report() and "no data hashes" not in races.report()


def test_a_recording_without_hashes_says_that_the_bytes_are_not_known(tmp_path):
    """Recorded with --no-hash (no data lines): RACE-FREE, and the report says the bytes
    could not be compared."""
    blind = tmp_path / "blind.trace"
    text = (RACES_C / "wildcard_data_differ.trace").read_text()
    blind.write_text(re.sub(r"(?m)^H .*\n", "", text).replace("#data-hash mix64",
                                                                 "#data-hash off"))
    races = check_races(replay_scenario(blind))
    assert not races.racy and races.blind
    assert "recorded with --no-hash" in races.report()


# -- recorded again on MPICH ------------------------------------------------------------------
def record_races(source: Path, out: Path, build: Path, *flags: str, n: int = 3
                 ) -> subprocess.CompletedProcess:
    """Compile ``source`` and record it on ``n`` processes into ``out`` (text, its paths
    made relative as the stored recordings' are)."""
    mpicc, mpiexec = mpich()
    build.mkdir(parents=True, exist_ok=True)
    subprocess.run([mpicc, "-g", "-O0", "-o", str(build / source.stem), str(source)],
                   check=True, timeout=120)
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--format", "text",
                          *flags, "--out", str(out), "--timeout", "20", "--", mpiexec, "-n",
                          str(n), f"./{source.stem}"], capture_output=True, text=True,
                         timeout=300, cwd=build, env=env)
    if out.exists():
        text = re.sub(r"^#exe .*/", "#exe ./", out.read_text(), flags=re.M)
        text = re.sub(r"^#pid \d+", "#pid 0", text, flags=re.M)
        text = re.sub(r"^#host .*", "#host recorder", text, flags=re.M)
        out.write_text(text.replace(f"{build}/", "./"))
    return run


@pytest.mark.real_mpi
@pytest.mark.parametrize("name,rule", [("buf_modified_bad", "buffer-modified"),
                                       ("buf_modified_ok", None),
                                       ("persistent_modified_bad", "buffer-modified"),
                                       ("icoll_modified_bad", "buffer-modified"),
                                       ("pcoll_modified_bad", "buffer-modified"),
                                       ("isendrecv_modified_bad", "buffer-modified"),
                                       ("recv_overlap_bad", "recv-overlap"),
                                       ("recv_overlap_ok", None),
                                       ("rma_recv_bad", "rma-local-overlap"),
                                       ("rma_recv_ok", None)])
def test_a_fresh_recording_under_mpich_is_judged_by_its_rule(name, rule, tmp_path):
    """§3.7.2, §3.9, §3.10, §6.12, §6.13, §12.7: recorded now on MPICH, each code gives its
    rule's finding, its twin none (the twins of the codes added for persistent requests,
    nonblocking collectives and MPI_Isendrecv are judged from their stored recordings)."""
    out = tmp_path / f"{name}.trace"
    run = record_races(MBI_C / f"{name}.c", out, tmp_path / "build", n=2)
    assert run.returncode == 0, run.stderr
    assert sorted(rules_of(out)) == ([rule] if rule else [])


@pytest.mark.real_mpi
def test_no_hash_keeps_the_ranges_and_drops_the_data(tmp_path):
    """``mpisim record --no-hash``: the buffers' ranges still logged, no data line, so no
    buffer-modified finding (§3.7.2 cannot be judged without the data)."""
    out = tmp_path / "run.trace"
    run = record_races(MBI_C / "buf_modified_bad.c", out, tmp_path / "build", "--no-hash",
                       n=2)
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "#data-hash off" in text and " sb=" in text and " rb=" in text
    assert not re.search(r"(?m)^H ", text)
    assert rules_of(out) == {}


@pytest.mark.real_mpi
@pytest.mark.parametrize("name,racy", [("wildcard_data_differ", True),
                                       ("wildcard_data_same", False)])
def test_a_fresh_wildcard_recording_is_judged_on_its_data(name, racy, tmp_path):
    """§3.5: RACY (data) when the senders' bytes differ, RACE-FREE when they are the same."""
    out = tmp_path / f"{name}.trace"
    run = record_races(RACES_C / f"{name}.c", out, tmp_path / "build")
    assert run.returncode == 0, run.stderr
    races = check_races(replay_scenario(out))
    assert (races.racy, races.data) == (racy, racy)


PINGPONG = r"""
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, n = atoi(argv[1]);
    double x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        x += 1;
        if (rank == 0) {
            MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
"""


@pytest.mark.real_mpi
def test_data_lines_stay_with_their_calls_across_the_compact_blocks(tmp_path):
    """A data line a call, 30000 calls a process: more lines than a compact block holds
    (8192), so blocks end in the middle; each Send keeps its h, each Recv its w, and rank
    0's Recv gets the bytes its Send sent (rank 1 sends them back)."""
    mpicc, mpiexec = mpich()
    (tmp_path / "pp.c").write_text(PINGPONG)
    subprocess.run([mpicc, "-O2", "-o", str(tmp_path / "pp"), str(tmp_path / "pp.c")],
                   check=True, timeout=120)
    out = tmp_path / "pp.trace"
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(out), "--",
                          mpiexec, "-n", "2", str(tmp_path / "pp"), "15000"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    trace = read_trace(out)
    for log in trace.ranks:
        names = [log.calls.name(i) for i in range(len(log.calls))]
        assert names.count("Send") == 15000 and len(log.data) == 30000
        for i, name in enumerate(names):
            fields = data_fields(log.data.get(i, ""))
            assert set(fields) == ({"h"} if name == "Send" else {"w"} if name == "Recv"
                                   else set()), (log.rank, i, name)
    rank0 = trace.ranks[0]
    sends = [i for i in range(len(rank0.calls)) if rank0.calls.name(i) == "Send"]
    assert all(data_fields(rank0.data[i])["h"] == data_fields(rank0.data[i + 1])["w"]
               for i in sends)


if __name__ == "__main__":  # record the races again: python tests/recorded/replayer/test_...
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(RACES_C.glob("*.c")):
            done = record_races(path, path.with_suffix(".trace"), Path(tmp) / path.stem)
            print(path.stem, done.returncode, done.stderr.strip().splitlines()[-1:])
