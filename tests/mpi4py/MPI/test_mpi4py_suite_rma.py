"""mpi4py's own tests of one-sided communication (MPI 4.1 §12) under the stand-in, at 1 to 4
ranks: ``test_win`` (windows of the four flavors: attributes, memory, groups, names, info,
shared queries, attach and detach), ``test_rma`` (puts, gets, accumulates of every
typecode and count, get_accumulate, fetch_and_op, compare_and_swap, fences with every
assertion, post/start/complete/wait/test, locks, flushes, sync) and ``test_rma_nb`` (the
request forms under locks).

The files come from mpi4py's source distribution (tests/helpers/mpi4py_suite.py). Under
MPICH 5.0.2 the three modules run 150 tests per rank, none skipped; under the stand-in too
(test_win's ``testGetSetErrhandler`` of each window class frees the handler
``Get_errhandler`` gave and compares it with ``MPI.ERRHANDLER_NULL``), and nothing fails.
The counts are printed (``pytest -s``).
"""

from __future__ import annotations

import contextlib
import io

import pytest
from helpers import mpi4py_suite

import mpisim as ms

MODULES = {"test_win": 100, "test_rma": 36, "test_rma_nb": 14}
"""Each module and the tests it runs per rank (as under MPICH 5.0.2)."""
RANKS = (1, 2, 3, 4)


@pytest.mark.slow
@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("module", MODULES)
def test_mpi4py_own_one_sided_tests_pass_under_the_stand_in(suite, module, ranks):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=ranks, args=[module],
                               until="1000s")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    rows = mpi4py_suite.parse(out.getvalue())
    assert [row["rank"] for row in rows] == list(range(ranks))
    for row in rows:
        assert not row["skipped"], row["skipped"]
        failed = sorted(row["failures"])
        passed = row["run"] - len(row["skipped"]) - len(failed)
        print(f"{module} at {ranks} ranks, rank {row['rank']}: {row['run']} tests, "
              f"{passed} passed, {len(row['skipped'])} skipped, {len(failed)} failing")
        assert not failed, row["failures"]
        assert row["run"] == MODULES[module]

