"""Buffer specifications and integer arguments of point-to-point calls: the stand-in takes
and refuses what mpi4py 4.1 takes and refuses, with mpi4py's exception type and wording.

``tests/data/mpi4py/msgspec_cases.py`` holds the table (numpy arrays, 0-d arrays and
scalars, ``[buf, count, displ, type]`` and its shorter forms, typecodes, memoryview,
bytearray, array.array, None and MPI.BOTTOM with absolute addresses, PROC_NULL, floats and
``__int__``/``__index__`` objects as ranks, tags and counts...). The differential test runs it
under the real mpi4py (MPICH, in one process: a message to oneself on MPI_COMM_SELF) and
under the stand-in, and compares every case's outcome; it is skipped without the real
library. The cases the stand-in answers on purpose otherwise are listed in DIFFERENT, each
with its reason, and checked to stay as listed. The other tests check the same rules
without a real library, from values computed by hand.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from helpers import real_mpi
from helpers.paths import DATA
from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms
from mpisim.mpi4py.datatypes.integers import c_int

CASES = DATA / "mpi4py" / "msgspec_cases.py"

DIFFERENT = {
    # A count reaching past the end of the object: real MPI reads (or would write) memory
    # beyond it, undefined behaviour in C; the stand-in never touches memory outside the
    # object and refuses with MPI_ERR_BUFFER (1).
    "[buf, 3, 'i'] past the end": ["MPI.Exception", 1],
    "into [buf, 3, 'i'] larger than buf": ["MPI.Exception", 1],
}


def outcomes(stdout: str) -> dict[str, list]:
    rows = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return {row["case"]: row["outcome"] for row in rows}


@cache
def simulated() -> dict[str, list]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(CASES, ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return outcomes(out.getvalue())


def real_python() -> str | None:
    """A python with the real mpi4py over MPICH (the ``oracle`` extra), or None."""
    python = sys.executable
    try:
        found = subprocess.run([python, "-c", "from mpi4py import MPI; "
                                "print(MPI.Get_library_version())"], capture_output=True,
                               text=True, timeout=60, env=real_mpi.ENV)
    except (OSError, subprocess.SubprocessError):
        return None
    return python if found.returncode == 0 and "MPICH" in found.stdout else None


@pytest.mark.real_mpi
@pytest.mark.slow
def test_every_case_is_answered_as_real_mpi4py_answers_it():
    """MPI 4.1 §3.2.2-3.2.4 (the message buffer: address, count, datatype) as mpi4py 4.1
    maps Python objects onto it (``message_simple``), case by case."""
    python = real_python()
    if python is None:
        pytest.skip("no real mpi4py over MPICH (pip install -e '.[oracle]')")
    run = subprocess.run([python, str(CASES)], capture_output=True, text=True, timeout=120,
                         env={**real_mpi.ENV, "PYTHONWARNINGS": "ignore"})
    real = outcomes(run.stdout)
    sim = simulated()
    assert set(real) == set(sim) == set(_case_names())
    differ = {name: (real[name], sim[name]) for name in real if real[name] != sim[name]}
    assert {name: pair[1] for name, pair in differ.items()} == DIFFERENT, differ


def _case_names() -> list[str]:
    """The table's names, read from the file (importing it would import mpi4py)."""
    text = Path(CASES).read_text()
    return [line.split('"')[1] for line in text.splitlines()
            if line.startswith('    "') and '": lambda' in line]


# -- the same rules, without a real library ------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name, expected", [
    ("numpy 0-d array", ["ok", [8, [7.25]]]),
    ("numpy scalar", ["ok", [8, [7.25]]]),
    ("numpy Fortran-ordered", ["ok", [48, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]]]),  # memory order
    ("[buf, (2, 1), 'B']", ["ok", [2, [98, 99, 0, 0, 0, 0, 0, 0]]]),
    ("[buf, 1, 1, 'i']", ["ok", [4, [101, 102, 103, 104, 0, 0, 0, 0]]]),
    ("[buf, (None, 3)]", ["ok", [5, [100, 101, 102, 103, 104, 0, 0, 0]]]),
    ("[buf, 'zz']", ["KeyError", "\"cannot map 'zz' to MPI datatype\""]),
    ("[buf, -1]", ["ValueError", "message: negative count -1"]),
    ("a list of five", ["ValueError", "message: expecting 2 to 4 items"]),
    ("an int", ["TypeError", "message: expecting buffer or list/tuple"]),
    ("BOTTOM alone", ["KeyError", "'cannot map None to MPI datatype'"]),
    ("[None, 1, 'B']", ["ValueError", "message: buffer is None but count is 1"]),
    ("BOTTOM with absolute addresses", ["ok", [8, [2, 3, 0, 0]]]),
    ("BOTTOM with a struct of two arrays", ["ok", [0, [0.0], [0]]]),  # count 0: no bytes
    ("Send(object(), PROC_NULL)", ["ok", None]),
    ("into bytes", ["BufferError", "Object is not writable."]),
    ("numpy non-native byte order",
     ["BufferError", "format string '>i' with non-native byte order"]),
    ("tag 1.7", ["ok", 1]),
    ("tag Index()", ["TypeError", "an integer is required"]),
    ("[buf, Index(), 'B']", ["ok", [0, [0, 0, 0, 0, 0, 0, 0, 0]]]),
    ("[buf, 1.0, 'B']", ["TypeError", "'float' object cannot be interpreted as an integer"]),
    ("tag 2**40", ["OverflowError", "value too large to convert to int"]),
    ("source 1", ["MPI.Exception", 6]),  # MPI_ERR_RANK, nothing sent before it
])
def test_a_case_as_mpi4py_answers_it(name, expected):
    """mpi4py 4.1's message_simple and Cython int arguments, as observed (see CASES)."""
    assert simulated()[name] == expected


class _Int:
    def __init__(self, value: int) -> None:
        self.value = value

    def __int__(self) -> int:
        return self.value


@given(st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_a_c_int_is_any_int_in_range_through_int(value):
    """Cython's ``int`` argument: ``__int__``, then the C range (OverflowError outside)."""
    assert c_int(value) == value
    assert c_int(_Int(value)) == value
    assert c_int(float(value) + 0.5 if value >= 0 else float(value) - 0.5) == value
    assert c_int(np.int64(value)) == value


@given(st.integers(min_value=2**31) | st.integers(max_value=-(2**31) - 1))
def test_a_c_int_out_of_range_overflows(value):
    with pytest.raises(OverflowError, match="value too large to convert to int"):
        c_int(value)


@pytest.mark.parametrize("value", ["3", None, 3 + 0j, b"3", [3]])
def test_a_c_int_refuses_what_has_no_int(value):
    with pytest.raises(TypeError, match="an integer is required"):
        c_int(value)


def test_the_cases_file_runs_one_case_by_name():
    """``msgspec_cases.py NAME`` runs that case only (for a look at one case)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ms.run_mpi4py(CASES, ranks=1, args=["numpy scalar"])
    assert outcomes(out.getvalue()) == {"numpy scalar": ["ok", [8, [7.25]]]}

