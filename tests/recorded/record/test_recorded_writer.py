"""The recorder's writer thread: full compact blocks compressed and written off the calling
thread (the shim's writer section), the same recording either way.

A run long enough to fill several blocks (32,768 calls each) is recorded with the writer
(the default) and with ``MPISIM_NO_WRITER=1``; the streams decode to the same rows, lines
and keys, and each index names its blocks where they are. Every path that ends a log waits
for the writer first: the end of the program, ``MPI_Abort``, and the SIGTERM that
``--timeout`` and the stall watch send (every block whole, none lost); a child of fork()
writes nothing into its parent's log. Needs MPICH's
``mpicc``/``mpiexec`` beside this Python (skipped without them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.compact import frames
from helpers.mpi_tools import compiled, mpich, recorder_shim
from helpers.paths import DATA
from recorded.record.test_recorded_memo import decoded

from mpisim.recorded import read_trace
from mpisim.recorded.read.compact import INDEX, MAGIC
from mpisim.recorded.record.recorder import merge_logs

pytestmark = [pytest.mark.real_mpi, pytest.mark.slow]

ROWS = 32768
"""Calls a compact block holds (the shim's C_ROWS)."""
TRIPS = r"""
#include <mpi.h>
#include <stdlib.h>
/* n round trips of an 8-byte message between ranks 0 and 1 */
static void trips(int rank, int n) {
    double x = 1;
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
}
"""
ABORT = TRIPS + r"""
/* usage: abort N: N round trips of rank 0 and 1, then rank 0 calls MPI_Abort. */
int main(int argc, char **argv) {
    int rank, n = atoi(argv[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    trips(rank, n);
    if (rank == 0) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"""
FORK = TRIPS + r"""
/* usage: fork N: N round trips, a child forked that exits at once (exit(): its atexit
 * handlers run), then N round trips more. */
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank, n = atoi(argv[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    trips(rank, n);
    pid_t child = fork();
    if (child == 0) exit(0);
    waitpid(child, NULL, 0);
    trips(rank, n);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    sources = tmp_path_factory.mktemp("sources")
    (sources / "abort.c").write_text(ABORT)
    (sources / "fork.c").write_text(FORK)
    apps, env = compiled(tmp_path_factory, {
        "pingpong": DATA / "replay_c" / "pingpong.c", "endless": DATA / "replay_c" / "endless.c",
        "abort": sources / "abort.c", "fork": sources / "fork.c"})
    return apps, recorder_shim(), env["XDG_CACHE_HOME"]


def _run(built, logs: Path, *program: str, **env: str) -> subprocess.CompletedProcess:
    apps, shim, _ = built
    _, mpiexec = mpich()
    logs.mkdir()
    return subprocess.run([mpiexec, "-n", "2", "-genv", "LD_PRELOAD", str(shim),
                           str(apps / program[0]), *program[1:]],
                          env={**os.environ, "MPISIM_TRACE_DIR": str(logs),
                               "MPISIM_TRACE_FORMAT": "compact", **env},
                          capture_output=True, text=True, timeout=300)


def blocks_and_index(stream: bytes) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Each block's (offset, first call) as found by walking the stream, and as its index
    gives them (empty: no index)."""
    blocks, pos = frames(stream)
    found = [(at, frame[5]) for at, frame in blocks]
    index = []
    if stream[pos:pos + 2] == b"\xffX":
        n = INDEX.unpack_from(stream, pos)[3]
        words = [int.from_bytes(stream[pos + INDEX.size + 8 * i:pos + INDEX.size + 8 * i + 8],
                                "little") for i in range(2 * n)]
        index = list(zip(words[::2], words[1::2], strict=True))
    return found, index


def test_the_writer_changes_no_byte_of_the_decoded_recording(built, tmp_path):
    """120,003 calls a process (blocks of 8,191 calls and their data lines): the writer's
    streams and the calling thread's decode to the same rows, lines and keys; both indexes
    name their blocks."""
    streams = {}
    for writer in ("0", "1"):
        logs = tmp_path / f"no_writer_{writer}"
        run = _run(built, logs, "pingpong", "60000", "8", MPISIM_NO_WRITER=writer)
        assert run.returncode == 0, run.stderr
        streams[writer] = {p.name: p.read_bytes() for p in sorted(logs.glob("rank.*.log"))}
    assert sorted(streams["0"]) == ["rank.0.log", "rank.1.log"]
    for name, stream in streams["0"].items():
        rows, texts, keys = decoded(stream)
        assert len(rows) == 120003
        assert (rows, texts, keys) == decoded(streams["1"][name])
        for each in (stream, streams["1"][name]):
            found, index = blocks_and_index(each)
            assert len(found) > 4 and index == found


def test_a_run_stopped_by_sigterm_keeps_every_block_the_writer_was_given(built, tmp_path):
    """The stall watch and --timeout stop a run with SIGTERM: the handler waits for the
    writer, then writes the block being filled and the index (a run of many blocks, none
    cut: the log reads to its end line, each index entry where its block is)."""
    mpicc, mpiexec = mpich()
    _, _, cache = built
    out = tmp_path / "endless.trace"
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(out),
                          "--timeout", "6", "--mpicc", mpicc, "--", mpiexec, "-n", "2",
                          str(built[0] / "endless"), "0", "0"],
                         env={**os.environ, "XDG_CACHE_HOME": str(cache)},
                         capture_output=True, text=True, timeout=300)
    assert out.exists(), run.stderr
    trace = read_trace(out)
    for log in trace.ranks:
        assert log.ended == "signal 15" and log.broken is None
        assert len(log.calls) > 3 * ROWS, "too short a run to have used the writer"
    stream = out.read_bytes()
    first = stream.index(MAGIC, 1)  # rank 1's log after rank 0's
    for part in (stream[:first], stream[first:]):
        found, index = blocks_and_index(part)
        assert len(found) > 3 and index == found


def test_mpi_abort_keeps_every_call_before_it(built, tmp_path):
    """MPI_Abort (MPI 4.1 §9.3) ends the job: the recorder waits for the writer before the
    library aborts, so every call before it is in the log (2 × 40,000 calls, the Abort in
    progress at the end)."""
    logs = tmp_path / "logs"
    run = _run(built, logs, "abort", "40000")
    assert run.returncode != 0
    merge_logs(logs, tmp_path / "abort.trace")
    log = read_trace(tmp_path / "abort.trace").ranks[0]
    assert len(log.calls) >= 80001
    names = [c.name for c in log.calls]
    assert names[-1] == "Abort" and names[1:80001] == ["Send", "Recv"] * 40000


def test_a_child_of_fork_leaves_its_parents_log_alone(built, tmp_path):
    """A child forked while the writer runs has no writer and, when it exits, writes nothing
    into its parent's log: the parent's log holds its calls before and after, whole."""
    logs = tmp_path / "logs"
    run = _run(built, logs, "fork", "20000")
    assert run.returncode == 0, run.stderr
    for path in sorted(logs.glob("rank.*.log")):
        found, index = blocks_and_index(path.read_bytes())
        assert len(found) > 4 and index == found
    merge_logs(logs, tmp_path / "fork.trace")
    for log in read_trace(tmp_path / "fork.trace").ranks:
        assert log.ended == "finalized" and len(log.calls) == 80002
