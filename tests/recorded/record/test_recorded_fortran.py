"""The recorder's Fortran bindings of the one-sided, group, object, persistent and MPI-IO
calls (``mpisim.recorded.record.fortran``'s table, generated into the shim), and
``tests/data/replay_c/onesided_io.f90`` using them. The MPICH 5.0.2 of the test venv (the
``mpich`` wheel) has no Fortran bindings (no ``mpifort``, no ``libmpifort``), so the stored
recording was made with gfortran under Open MPI 4.1.4 (Debian's ``openmpi-bin
libopenmpi-dev``), whose Fortran bindings bypass the C wrappers: every call of the program
is in the log only through the recorder's own ``mpi_*_`` symbols."""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys

import pytest
from helpers.mpi_tools import fortran_mpi, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.record.fortran import BINDINGS, render
from mpisim.recorded.record.recorder import shim_source

RECORDING = DATA / "replay" / "onesided-io-openmpi-fortran.trace"
SOURCE = DATA / "replay_c" / "onesided_io.f90"
CALLS = ["Init", "Send", "Mprobe", "Mrecv", "Send_init", "Recv_init", "Startall", "Waitall",
         "Startall", "Waitall", "Request_free", "Request_free", "Comm_idup", "Wait",
         "Comm_group", "Group_incl", "Group_free", "Group_free", "Win_create", "Win_fence",
         "Put", "Win_fence", "Rget", "Wait", "Win_fence", "Win_free", "Type_commit",
         "Type_free", "Op_create", "Allreduce", "Op_free", "File_open", "File_set_view",
         "File_write_at_all", "File_sync", "Barrier", "File_sync", "File_set_view",
         "File_read_at", "File_get_size", "File_close", "Barrier"]
"""What every process of onesided_io.f90 calls before rank 0's MPI_File_delete."""


def test_the_shim_holds_the_bindings_the_table_generates():
    """``python -m mpisim.recorded.record.fortran`` was run after the table last changed."""
    assert render() in shim_source().read_text()


def _wrapped(name: str, text: str) -> bool:
    """Whether the shim's C part defines MPI_<name>: by hand or in the block generated from
    ``mpisim.recorded.record.cwrappers``'s table (``int MPI_Put(``), or by one of the hand-written
    macros left (``GROUP_RANKS(Group_incl)``)."""
    return any(re.search(pattern, text) for pattern in (rf"\bint MPI_{name}\(",
                                                        rf"\b[A-Z_]+\({name}\)"))


def test_every_generated_binding_goes_through_a_logging_c_wrapper():
    text = shim_source().read_text()
    c_part = text[:text.index("===== Fortran bindings")]
    missing = [b.name for b in BINDINGS if not _wrapped(b.name, c_part)]
    assert missing == []


def test_the_fortran_program_s_calls_are_all_recorded():
    trace = read_trace(RECORDING)
    assert trace.ranks[0].header["library"].startswith("Open MPI v4.1.4")
    for log in trace.ranks:
        names = [c.name for c in log.calls]
        assert names[:len(CALLS)] == CALLS
    zero = {c.name: c for c in trace.ranks[0].calls}
    assert zero["File_open"].args["name"] == "blocks.dat"  # the CHARACTER argument, trimmed
    assert zero["Op_create"].out["op"] == "u1" and zero["Allreduce"].args["op"] == "u1"
    assert zero["Mrecv"].args["m"] == zero["Mprobe"].out["m"]
    assert zero["Win_create"].args == {"comm": 2, "size": 64, "du": 8}


def test_the_fortran_recording_replays_to_agreement():
    scenario = replay_scenario(RECORDING)
    result = scenario.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert scenario.compare(result) == "agrees with the recording: both completed"
    assert result.warnings == [], result.warnings
    calls = collections.Counter(result.trace.calls["call"].tolist())
    assert (calls["MPI_Rget"], calls["MPI_Mrecv"], calls["MPI_File_write_at_al"]) == (2, 2, 2)


@pytest.mark.real_mpi
@pytest.mark.parametrize("library", ["mpich", "openmpi"])
def test_a_fresh_fortran_recording_replays_to_agreement(library, tmp_path):
    launcher, mpif90, mpicc = fortran_mpi(library)
    app = tmp_path / "onesided_io"
    subprocess.run([mpif90, "-g", "-o", str(app), str(SOURCE)], check=True, timeout=120)
    trace = tmp_path / "onesided_io.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--mpicc", mpicc, "--out",
                          str(trace), "--", *launcher, "-n", "2", str(app)],
                         capture_output=True, text=True, env=env, timeout=180, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "wrong" not in run.stdout, run.stdout
    fresh = read_trace(trace)
    assert [c.name for c in fresh.ranks[1].calls][:len(CALLS)] == CALLS
    line = next(i for i, text in enumerate(SOURCE.read_text().splitlines(), 1)
                if "call MPI_Rget(" in text)
    rget = next(c for c in fresh.ranks[0].calls if c.name == "Rget")
    assert rget.where() in (f"call 23, onesided_io.f90:{at} in MAIN__" for at in (line, line + 1))
    scenario = replay_scenario(trace)
    result = scenario.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert scenario.compare(result) == "agrees with the recording: both completed"
