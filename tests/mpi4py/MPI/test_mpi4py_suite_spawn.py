"""mpi4py's own tests of dynamic processes (MPI 4.1 §11.8-§11.10), run under the stand-in
at 1, 2 and 3 ranks: ``test_spawn`` (Spawn and Spawn_multiple from COMM_SELF and
COMM_WORLD, errcodes, arguments significant at the root only, a script spawned as its own
command, Spawn_multiple's argument checks; the children run ``spawn_child.py``) and
``test_dynproc``'s name publishing, Accept/Connect and Connect/Accept (at 2 and 3 ranks:
it needs two).

``test_dynproc``'s ``testJoin`` is left out: it blocks in a real socket's ``accept()``
for a peer that, in the simulator, runs in the same operating-system thread and so never
connects (``MPI_Comm_join`` itself fails with MPI_ERR_UNSUPPORTED_OPERATION: simulated
processes have no sockets). The files come from mpi4py 4.1.2's source distribution
(tests/helpers/mpi4py_suite.py); none may fail or skip.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from helpers import mpi4py_suite

import mpisim as ms

DYNPROC = ("test_dynproc.TestDPM.testNamePublishing", "test_dynproc.TestDPM.testAcceptConnect",
           "test_dynproc.TestDPM.testConnectAccept")


def _rows(suite, names: list[str], ranks: int) -> list[dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=ranks, args=names, until="1000s")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    rows = mpi4py_suite.parse(out.getvalue())
    assert [row["rank"] for row in rows] == list(range(ranks))
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("ranks", (1, 2, 3))
def test_11_8_mpi4py_own_spawn_tests_pass_under_the_stand_in(suite, ranks):
    for row in _rows(suite, ["test_spawn"], ranks):
        assert row["run"] == 44
        assert not row["failures"] and not row["skipped"], row


@pytest.mark.slow
@pytest.mark.parametrize("ranks", (2, 3))
def test_11_9_mpi4py_own_port_and_name_tests_pass_under_the_stand_in(suite, ranks):
    for row in _rows(suite, list(DYNPROC), ranks):
        assert row["run"] == 3
        assert not row["failures"] and not row["skipped"], row
