"""mpi4py's own tests of mpi4py.futures (``demo/futures/test_futures.py`` of its source
distribution, tests/helpers/mpi4py_suite.py) under the stand-in, as its makefile runs them:
``test_futures.py`` on 1 and 2 ranks (at 1 the pool spawns its workers, MPI 4.1 §11.8.2;
at 2 only MPICommExecutor, collect, compose and aplus are tested) and under
``-m mpi4py.futures`` on 1, 2 and 3 ranks (the shared pool). MPICH 5.0.2 passes them all.

Two tests fail under the stand-in, named here and in the supported-call table:

- ``test_init_sys_flags`` spawns workers with ``python_args=["-d"]`` (``-O``, ``-B``...)
  and checks ``sys.flags`` there: simulated workers run in the simulator's own process,
  whose interpreter flags cannot change.
- ``test_mpi_serialized_support`` reads mpi4py's internal ``_core.setup_mpi_threads`` and
  its lock that serializes MPI calls under MPI_THREAD_SERIALIZED: the stand-in's executor
  has no such lock (its manager threads need MPI_THREAD_MULTIPLE, mpi4py's default).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

SYS_FLAGS = "test_init_sys_flags (__main__.ProcessPoolInitTest.test_init_sys_flags)"
SERIALIZED = ("test_mpi_serialized_support "
              "(__main__.ProcessPoolSubmitTest.test_mpi_serialized_support)")

# (ranks, under -m mpi4py.futures): (tests run, failures, errors)
EXPECTED = {
    (1, False): (121, {SYS_FLAGS}, {SERIALIZED}),
    (2, False): (54, set(), set()),
    (1, True): (113, set(), {SERIALIZED}),
    (2, True): (119, set(), {SERIALIZED}),
    (3, True): (117, set(), {SERIALIZED}),
}


def _unittest(stderr: str) -> tuple[list[int], set[str], set[str]]:
    """(each rank's tests run, the failures, the errors) from unittest's reports."""
    ran = [int(n) for n in re.findall(r"^Ran (\d+) tests?", stderr, re.MULTILINE)]
    failures = set(re.findall(r"^FAIL: (.+)$", stderr, re.MULTILINE))
    errors = set(re.findall(r"^ERROR: (.+)$", stderr, re.MULTILINE))
    return ran, failures, errors


@pytest.mark.slow
@pytest.mark.parametrize(("ranks", "shared"), sorted(EXPECTED))
def test_mpi4py_own_futures_tests_under_the_stand_in(suite, ranks, shared):
    script = suite / "test_futures.py"
    if not script.is_file():
        pytest.skip("test_futures.py is not among the fetched files")
    module = ["-m", "mpi4py.futures"] if shared else []
    run = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", str(ranks), *module,
                          str(script)], capture_output=True, text=True, timeout=600,
                         cwd=suite)
    ran, failures, errors = _unittest(run.stderr)
    count, failing, erring = EXPECTED[ranks, shared]
    assert ran == [count] * (ranks if not shared else 1), run.stderr[-3000:]
    assert (failures, errors) == (failing, erring), run.stderr[-3000:]
    assert run.returncode == (0 if not failing | erring else 4)
    assert "Traceback" not in run.stderr.split("-" * 70)[-1]  # (the report: no crash)
