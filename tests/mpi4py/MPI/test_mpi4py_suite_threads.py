"""mpi4py's own test_threads under the stand-in, at 1, 2 and 4 ranks (MPI 4.1 §11.6).

Its three tests ask MPI.Query_thread for a level (``mpi4py.rc.thread_level = "multiple"``,
set through ``import mpi4py.rc`` before MPI is imported), compare MPI.Is_thread_main with
``threading.current_thread().name == "MainThread"``, and do that again from five
``threading.Thread`` started together (MPI_THREAD_MULTIPLE) and joined: under the stand-in
they are simulated threads, and every test must pass (none skipped). The file comes from
mpi4py's source distribution (tests/helpers/mpi4py_suite.py).
"""

from __future__ import annotations

import contextlib
import io

import pytest
from helpers import mpi4py_suite

import mpisim as ms


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_mpi4py_own_thread_tests_pass_under_the_stand_in(suite, ranks):
    if not (suite / "test_threads.py").is_file():
        pytest.skip("test_threads.py is not among the fetched files yet")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=ranks, args=["test_threads"])
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    rows = mpi4py_suite.parse(out.getvalue())
    assert [row["rank"] for row in rows] == list(range(ranks))
    for row in rows:
        assert row["run"] == 3 and not row["skipped"] and not row["failures"], row
