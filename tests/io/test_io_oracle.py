"""Differential tests of MPI-IO (MPI 4.1 §14): tests/io/scripts/io_program.py under the
real library and under the stand-in, each writing in a directory of its own; what every
rank read (explicit offsets, a strided vector view, ordered and shared-pointer accesses,
nonblocking and split forms, a read past the end of file), the file's size, its sha256 and
its ints must agree, and so must the error classes of the bad calls.

MPICH 5.0.2 (``MPISIM_ORACLE_PYTHON``, or this Python) agrees on every line. Open MPI 5.0.11
(``MPISIM_ORACLE_OMPI_PYTHON``) differs in three places, each checked here and written in
docs/guide/io.md: a read at the end of file moves its individual pointer by the etypes it
asked for, not by those it read (``past-end``); a write of part of an etype is not refused
(``part-etype``); a seek before the start of the view is MPI_ERR_OTHER, not
MPI_ERR_ARG (``seek-negative``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from helpers import real_mpi

pytestmark = pytest.mark.real_mpi

SCRIPT = Path(__file__).parent / "scripts" / "io_program.py"
LIBRARIES = {"mpich": ("MPISIM_ORACLE_PYTHON", []),
             "openmpi": ("MPISIM_ORACLE_OMPI_PYTHON", ["--oversubscribe"])}
DEADLOCK_AFTER = 60.0
OPEN_MPI_DIFFERS = ("past-end", "part-etype", "seek-negative")


@cache
def _python(library: str) -> str | None:
    env, _ = LIBRARIES[library]
    python = os.environ.get(env) or (sys.executable if library == "mpich" else None)
    if not python or not (Path(python).parent / "mpiexec").exists():
        return None
    name = "MPICH" if library == "mpich" else "Open MPI"
    probe = subprocess.run([python, "-c", "from mpi4py import MPI; import numpy; "
                            "print(MPI.Get_library_version())"],
                           capture_output=True, text=True, env=real_mpi.ENV, timeout=60)
    return python if probe.returncode == 0 and name in probe.stdout else None


def _real(library: str, args: list[str], ranks: int) -> tuple[str, list[str]]:
    python = _python(library)
    if python is None:
        pytest.skip(f"set {LIBRARIES[library][0]} to a Python with mpi4py, numpy and "
                    f"{library}'s mpiexec beside it")
    return real_mpi.real([str(Path(python).parent / "mpiexec"), *LIBRARIES[library][1],
                          "-n", str(ranks), python, str(SCRIPT), *args], DEADLOCK_AFTER)


def _split(lines: list[str], differs: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(the lines both must share, the lines where the library is known to differ)."""
    known = [line for line in lines if line.split(" ")[2] in differs]
    return [line for line in lines if line not in known], known


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("ranks", (1, 2, 3))
def test_each_rank_reads_and_the_file_holds_what_the_real_library_gives(library, ranks,
                                                                        tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "sim").mkdir()
    real_outcome, real_lines = _real(library, [str(tmp_path / "real")], ranks)
    sim_outcome, sim_lines = real_mpi.simulated(SCRIPT, [str(tmp_path / "sim")], ranks,
                                                "standard")
    assert real_outcome == sim_outcome == "completed", (real_lines, sim_lines)
    assert (tmp_path / "real" / "data.bin").read_bytes() == \
        (tmp_path / "sim" / "data.bin").read_bytes()
    differs = OPEN_MPI_DIFFERS if library == "openmpi" else ()
    real_same, real_known = _split(real_lines, differs)
    sim_same, sim_known = _split(sim_lines, differs)
    assert sim_same == real_same
    for real_line, sim_line in zip(real_known, sim_known, strict=True):
        asked, read = real_line.split()[4], sim_line.split()[4]  # the pointer after it
        assert int(asked) == int(read) + 4, (real_line, sim_line)


@pytest.mark.parametrize("library", LIBRARIES)
def test_bad_calls_raise_the_error_classes_of_the_real_library(library, tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "sim").mkdir()
    _, real_lines = _real(library, [str(tmp_path / "real"), "errors"], 2)
    _, sim_lines = real_mpi.simulated(SCRIPT, [str(tmp_path / "sim"), "errors"], 2,
                                      "standard")
    differs = OPEN_MPI_DIFFERS if library == "openmpi" else ()
    real_same, real_known = _split(real_lines, differs)
    sim_same, sim_known = _split(sim_lines, differs)
    assert sim_same == real_same
    assert len(sim_same) + len(sim_known) == 15  # 7 bad calls on each rank, a delete on 0
    if differs:
        assert sorted(line.split()[3] for line in real_known) == ["ERR_OTHER", "ERR_OTHER",
                                                                  "ok", "ok"]
        assert sorted(line.split()[3] for line in sim_known) == ["ERR_ARG", "ERR_ARG",
                                                                 "ERR_IO", "ERR_IO"]
