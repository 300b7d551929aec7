"""The time model of MPI-IO (mpi.io_latency, mpi.io_bandwidth): an access of n bytes takes
latency + n / bandwidth; a collective call meets (ceil(log2 p) network latencies once the
last member has called), then takes its slowest member's access; all members return
together (MPI 4.1 §14.4.5: collective accesses synchronize the communicator here). The
times are computed by hand: latency 10 us, bandwidth 1 MB/s, network latency 1 us."""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms
from mpisim.io import MODE_CREATE, MODE_RDWR

MPI = {"io_latency": "10us", "io_bandwidth": "1 MB/s"}
NET = {"latency": "1us"}


def _run(program, ranks):
    result = ms.run(program, ranks=ranks, mpi=MPI, network=NET)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result


def test_an_independent_access_takes_latency_plus_bytes_over_bandwidth():
    def program(mpi):
        fh = yield mpi.file_open("t.bin", MODE_RDWR | MODE_CREATE)  # 10 us (1 process)
        start = mpi.now
        yield mpi.file_write_at(fh, 0, np.zeros(1000, np.uint8))   # 10 us + 1000 us
        return start, mpi.now

    assert _run(program, 1).returned == [(pytest.approx(10e-6), pytest.approx(1020e-6))]


def test_a_collective_access_ends_at_once_for_all_after_the_slowest_member():
    def program(mpi):
        fh = yield mpi.file_open("t.bin", MODE_RDWR | MODE_CREATE)  # 2 us + 10 us
        yield mpi.compute(mpi.rank * 100e-6)                       # the last comes at 312 us
        yield mpi.file_write_at_all(fh, 1000 * mpi.rank,
                                    np.zeros(1000 * (mpi.rank + 1), np.uint8))
        return mpi.now

    # 312 us + 2 us (meeting of 4) + 10 us + 4000 bytes at 1 MB/s (rank 3's: the slowest)
    assert _run(program, 4).returned == [pytest.approx(4324e-6)] * 4


def test_a_nonblocking_access_returns_at_once_and_completes_later():
    def program(mpi):
        fh = yield mpi.file_open("t.bin", MODE_RDWR | MODE_CREATE)
        req = yield mpi.file_iwrite(fh, np.zeros(500, np.uint8))
        made = mpi.now
        yield mpi.wait(req)
        return made, mpi.now

    assert _run(program, 1).returned == [(pytest.approx(10e-6), pytest.approx(520e-6))]


def test_io_calls_appear_in_the_trace_with_their_times():
    def program(mpi):
        fh = yield mpi.file_open("t.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_write(fh, np.zeros(100, np.uint8))
        yield mpi.file_close(fh)

    calls = _run(program, 1).trace.calls
    rows = [(str(c["call"]), round(c["start"] * 1e6, 3), round(c["end"] * 1e6, 3))
            for c in calls]
    assert rows == [("MPI_File_open", 0.0, 10.0), ("MPI_File_write", 10.0, 120.0),
                    ("MPI_File_close", 120.0, 130.0)]
