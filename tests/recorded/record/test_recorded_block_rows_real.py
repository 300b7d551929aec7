"""The recorder's compact blocks scaled to the world's size, on a real MPICH run.

The recorder learns MPI_COMM_WORLD's size at MPI_Init and writes a block every
``c_rows_for(size)`` rows: the budget (``-DMPISIM_BLOCK_BUDGET``, passed from
:data:`mpisim.recorded.record.compact.BLOCK_BUDGET`) shared among the processes, as the
Python writers do (:func:`~mpisim.recorded.record.compact.block_calls`). Built with a budget
of 12,000 calls, a 4-process run writes blocks of 3,000 calls (the floor 2,048 and the static
32,768 rows aside), and its recording replays as one. Skips without MPICH's
``mpicc``/``mpiexec`` beside this Python."""

from __future__ import annotations

import os
import subprocess
from itertools import accumulate
from pathlib import Path

import pytest
from helpers.compact import frames
from helpers.mpi_tools import compiled, mpich, recorder_shim

import mpisim as ms
from mpisim.recorded.record.compact import BLOCK_FLOOR
from mpisim.recorded.record.recorder import merge_logs

pytestmark = [pytest.mark.real_mpi, pytest.mark.slow]

PROCESSES, BUDGET, ITERATIONS = 4, 12_000, 2_400
ROWS = BUDGET // PROCESSES
"""Rows a block of the run holds: the budget's share (above the floor, below C_ROWS)."""
PROGRAM = r"""
/* usage: selfsend N: each process sends itself N messages (MPI_Isend, MPI_Recv, MPI_Wait):
 * 3N calls a process, none waiting for another process. */
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, n = atoi(argv[1]);
    double x = 1, y = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        MPI_Isend(&x, 1, MPI_DOUBLE, rank, i % 8, MPI_COMM_WORLD, &req);
        MPI_Recv(&y, 1, MPI_DOUBLE, rank, i % 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
"""


def _blocks(stream: bytes) -> list[tuple[int, int]]:
    """Each block's (first call, calls) in a process's compact stream."""
    return [(frame[5], frame[6]) for _, frame in frames(stream)[0]]


def test_a_4_process_run_writes_blocks_of_its_share_of_the_budget(tmp_path_factory, tmp_path):
    assert BLOCK_FLOOR < ROWS < 32768
    _, mpiexec = mpich()
    source = tmp_path_factory.mktemp("selfsend") / "selfsend.c"
    source.write_text(PROGRAM)
    apps, _ = compiled(tmp_path_factory, {"selfsend": source})
    shim = recorder_shim(block_budget=BUDGET)
    logs = tmp_path / "logs"
    logs.mkdir()
    run = subprocess.run([mpiexec, "-n", str(PROCESSES), "-genv", "LD_PRELOAD", str(shim),
                          str(apps / "selfsend"), str(ITERATIONS)],
                         env={**os.environ, "MPISIM_TRACE_DIR": str(logs),
                              "MPISIM_TRACE_FORMAT": "compact"},
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    streams = sorted(logs.glob("rank.*.log"))
    assert len(streams) == PROCESSES
    for path in streams:
        blocks = _blocks(Path(path).read_bytes())
        calls = sum(n for _, n in blocks)
        assert calls >= 3 * ITERATIONS + 2 > 2 * ROWS
        sizes = [n for _, n in blocks]  # (MPI_Finalize writes the calls before it first)
        assert sizes[:2] == [ROWS, ROWS] and max(sizes[2:]) < ROWS, path.name
        assert [first for first, _ in blocks] == list(accumulate([0, *sizes[:-1]]))
    trace = tmp_path / "selfsend.trace"
    assert merge_logs(logs, trace) == PROCESSES
    result = ms.replay(trace)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.findings == []
