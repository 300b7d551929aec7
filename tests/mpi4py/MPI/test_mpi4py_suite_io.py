"""mpi4py's own tests of MPI-IO (MPI 4.1 §14) under the stand-in, at 1, 2 and 4 ranks:
``test_io`` opens a temporary file (MPI_MODE_RDWR | MPI_MODE_CREATE |
MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN) over MPI_COMM_SELF and MPI_COMM_WORLD and
writes then reads it back with every typecode through explicit offsets, the individual and
the shared file pointer, their collective, nonblocking and split forms (§14.4), views of
every datatype combiner (named, dup, contiguous, vector, hvector, indexed, hindexed,
indexed_block, hindexed_block, struct, subarray, darray: §14.3), and registers a data
representation (§14.5.3).

The files come from mpi4py's source distribution (tests/helpers/mpi4py_suite.py). Under
MPICH 5.0.2 the module runs 55 tests per rank, none skipped; under the stand-in the same
55 run and pass at every rank count, none skipped. The counts are printed (``pytest -s``).
"""

from __future__ import annotations

import contextlib
import io
import tempfile

import pytest
from helpers import mpi4py_suite

import mpisim as ms

TESTS = 55
"""The tests test_io runs per rank (as under MPICH 5.0.2)."""


@pytest.mark.slow
@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_mpi4py_own_io_tests_pass_under_the_stand_in(suite, ranks, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the suite's files go
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=ranks, args=["test_io"],
                               until="100000s")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    rows = mpi4py_suite.parse(out.getvalue())
    assert [row["rank"] for row in rows] == list(range(ranks))
    for row in rows:
        failed = sorted(row["failures"])
        passed = row["run"] - len(row["skipped"]) - len(failed)
        print(f"test_io at {ranks} ranks, rank {row['rank']}: {row['run']} tests, "
              f"{passed} passed, {len(row['skipped'])} skipped, {len(failed)} failing")
        assert not failed, row["failures"]
        assert row["skipped"] == {}, row["skipped"]
        assert row["run"] == TESTS
    assert list(tmp_path.iterdir()) == []  # MPI_MODE_DELETE_ON_CLOSE removed every file
