"""The recorder's data hashes stop where the reader stops keeping them.

A process's log keeps at most ``MAX_DATA`` data lines (``H``: the hashes of the bytes a call
sent or found, MPI 4.1 §3.7.2); the recorder, built with the same number
(``-DMPISIM_MAX_DATA``), writes no more and hashes no more after them, so a long run's later
calls cost what ``--no-hash`` costs. The real_mpi tests build the recorder with a cap of 100
(``build_shim(mpicc, max_data=100)``) to reach past it in a few hundred calls; they skip
without MPICH's ``mpicc``/``mpiexec`` beside this Python."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import compiled, mpich, recorder_shim

import mpisim as ms
from mpisim.recorded import read_trace
from mpisim.recorded.read.records import MAX_DATA
from mpisim.recorded.record import recorder
from mpisim.recorded.record.recorder import build_flags, merge_logs, shim_source

CAP = 100
ITERATIONS = 200
PROGRAM = r"""
/* usage: cap N [I ...]: a blocking send first, then N iterations of rank 0's MPI_Isend and
 * MPI_Wait to rank 1's MPI_Recv; at each iteration I given, rank 0 writes the buffer between
 * its MPI_Isend and its MPI_Wait (MPI 4.1 §3.7.2: erroneous). Rank 0's data lines: the
 * send's (1), then each iteration's Isend (2 + 2i) and Wait (3 + 2i); rank 1's: one a
 * receive. */
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, n = atoi(argv[1]);
    double x[4] = {1, 2, 3, 4};
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(x, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    else MPI_Recv(x, 4, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            x[0] = i;
            MPI_Isend(x, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
            for (int k = 2; k < argc; k++)
                if (atoi(argv[k]) == i) x[1] = -i;
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(x, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
"""
STRADDLING = (CAP - 2) // 2
"""The iteration whose Isend writes rank 0's last data line under the cap: its Wait's
``w=`` would be the first past it."""
UNCAPPED = [1 + 2 * ITERATIONS, 1 + ITERATIONS]
"""Each process's data lines without a cap (rank 0's sends and waits, rank 1's receives)."""


def test_the_c_fallback_is_the_readers_max_data():
    """A hand build (``mpicc -c $(mpisim record --shim)``) caps where the reader does."""
    source = shim_source().read_text()
    fallback = re.search(r"#ifndef MPISIM_MAX_DATA\s*(?:/\*.*?\*/)?\s*#define MPISIM_MAX_DATA "
                         r"(\d+)", source)
    assert fallback is not None and int(fallback.group(1)) == MAX_DATA
    assert build_flags()[0] == f"-DMPISIM_MAX_DATA={MAX_DATA}"


def test_a_recorder_built_with_another_cap_is_another_build(monkeypatch):
    """The cache names a build by its defines too: a test's capped recorder is never the one
    ``mpisim record`` preloads."""
    monkeypatch.setattr(recorder, "_wrapper_flags", lambda mpicc: "")
    monkeypatch.setattr(recorder, "_tool_identity", lambda flags: [])
    source = b"int x;"
    assert recorder.build_key(source, "cc", build_flags(CAP)) != \
        recorder.build_key(source, "cc", build_flags())
    with pytest.raises(ValueError, match="max_data"):
        build_flags(-1)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The program, and the recorder with a cap of :data:`CAP` and with the default's."""
    source = tmp_path_factory.mktemp("cap") / "cap.c"
    source.write_text(PROGRAM)
    apps, _ = compiled(tmp_path_factory, {"cap": source})
    return apps / "cap", {CAP: recorder_shim(max_data=CAP), MAX_DATA: recorder_shim()}


def _record(built, out: Path, cap: int, fmt: str, *modified: int) -> Path:
    """The program recorded by the recorder of ``cap`` into ``out`` (format ``fmt``)."""
    program, shims = built
    _, mpiexec = mpich()
    logs = out.with_suffix(".logs")
    logs.mkdir()
    run = subprocess.run([mpiexec, "-n", "2", "-genv", "LD_PRELOAD", str(shims[cap]),
                          str(program), str(ITERATIONS), *map(str, modified)],
                         env={**os.environ, "MPISIM_TRACE_DIR": str(logs),
                              "MPISIM_TRACE_FORMAT": fmt},
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    if fmt == "text":  # the lines as written, before any reader's cap
        counts = [len(re.findall(r"(?m)^H ", p.read_text()))
                  for p in sorted(logs.glob("rank.*.log"))]
        assert counts == [min(n, cap) for n in UNCAPPED]
    assert merge_logs(logs, out) == 2
    return out


def _replayed(trace: Path) -> tuple[int, str]:
    """``mpisim replay``'s exit status and verdict line."""
    run = subprocess.run([sys.executable, "-m", "mpisim", "replay", str(trace)],
                         capture_output=True, text=True, timeout=300)
    verdict = [line for line in run.stdout.splitlines() if "the recording" in line][-1:]
    return run.returncode, "".join(verdict)


@pytest.mark.real_mpi
@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["compact", "text"])
def test_a_process_writes_the_caps_data_lines_and_replays_the_same(built, fmt, tmp_path):
    """Past the cap a process writes no data line (exactly the cap's, each process), and the
    recording replays with the same verdict as one hashed to the end."""
    capped = _record(built, tmp_path / "capped.trace", CAP, fmt)
    whole = _record(built, tmp_path / "whole.trace", MAX_DATA, fmt)
    assert [len(log.data) for log in read_trace(capped).ranks] == [CAP, CAP]
    assert [len(log.data) for log in read_trace(whole).ranks] == UNCAPPED
    status, verdict = _replayed(capped)
    assert status == 0 and "agrees with the recording" in verdict
    assert _replayed(whole) == (status, verdict)
    assert ms.replay(capped).findings == ms.replay(whole).findings == []


def _modified_sends(trace: Path) -> list[int]:
    """The call numbers of the Isends buffer-modified names."""
    found = [f for f in ms.replay(trace).findings if f.rule == "buffer-modified"]
    return [int(re.search(r"MPI_Isend \(call (\d+)\)", f.message).group(1)) for f in found]


@pytest.mark.real_mpi
@pytest.mark.slow
def test_a_modified_buffer_inside_the_cap_is_found_and_none_past_it_is_guessed(built,
                                                                               tmp_path):
    """§3.7.2: the Isend buffer written before its Wait is found inside the cap; the send
    hashed just before the cap and waited for after it (its Wait's ``w=`` not written), and
    one past the cap, are not judged, never reported falsely. Hashed to the end, all three
    are found (the program does write them)."""
    modified = (10, STRADDLING, 150)
    capped = _record(built, tmp_path / "capped.trace", CAP, "compact", *modified)
    whole = _record(built, tmp_path / "whole.trace", MAX_DATA, "compact", *modified)
    isends = [i + 1 for i, c in enumerate(read_trace(whole).ranks[0].calls)
              if c.name == "Isend"]
    assert _modified_sends(whole) == [isends[i] for i in modified]
    assert _modified_sends(capped) == [isends[10]]
    data = read_trace(capped).ranks[0].data
    assert "h" in data[isends[STRADDLING] - 1] and isends[STRADDLING] not in data
