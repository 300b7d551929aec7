"""mpi4py's own tests of collectives (MPI 4.1 §6 as mpi4py 4.1.2 exercises them), run under
the stand-in at 1 to 4 ranks: objects (``test_cco_obj``), buffers with MPI.IN_PLACE and
derived datatypes (``test_cco_buf``), the v and w forms (``test_cco_vec``) and the
nonblocking forms of both (``test_cco_nb_buf``, ``test_cco_nb_vec``).

With them, test_msgspec's classes of collective message specs. The files come from
mpi4py's source distribution (tests/helpers/mpi4py_suite.py). A method
may be skipped only with mpi4py's own reason (``mpi-...``) or a named unsupported call; none
may fail.
The counts are printed (``pytest -s``).
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from helpers import mpi4py_suite

import mpisim as ms

MODULES = ("test_cco_obj", "test_cco_buf", "test_cco_vec", "test_cco_nb_buf",
           "test_cco_nb_vec")
RANKS = (1, 2, 3, 4)
MSGSPEC = ("TestMessageVector", "TestMessageVectorArray", "TestMessageVectorNumPy",
           "TestMessageVectorW", "TestMessageReduce", "TestMessageReduceScatter")
"""test_msgspec's classes of collective message specs on COMM_SELF: v and w forms (bad
specs refused with mpi4py's exception types, MPI.BOTTOM, ``None``), reductions."""
NAMED_SKIP = re.compile(r"unsupported: \w+\.\w+|^mpi-[\w-]+$")


@pytest.mark.slow
@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("module", MODULES)
def test_mpi4py_own_collective_tests_pass_under_the_stand_in(suite, module, ranks):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=ranks, args=[module],
                               until="1000s")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert not [w for w in result.warnings if "mismatched" in w]  # mpi4py's are correct
    rows = mpi4py_suite.parse(out.getvalue())
    assert [row["rank"] for row in rows] == list(range(ranks))
    for row in rows:
        assert row["run"] > 0 and not row["failures"], row["failures"]
        for why in row["skipped"].values():
            assert NAMED_SKIP.search(why), why
        print(f"{module} at {ranks} ranks, rank {row['rank']}: {row['run']} tests, "
              f"{len(row['skipped'])} skipped")


@pytest.mark.slow
def test_mpi4py_own_collective_message_specs_are_read_as_mpi4py_reads_them(suite):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=1,
                               args=[f"test_msgspec.{c}" for c in MSGSPEC], until="1000s")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    (row,) = mpi4py_suite.parse(out.getvalue())
    assert not row["failures"], row["failures"]
    assert row["run"] - len(row["skipped"]) >= 17, row
