"""mpi4py's own tests run under the stand-in: point-to-point (test_p2p_obj, test_p2p_buf),
matched probes (test_p2p_obj_matched, test_p2p_buf_matched), message buffers
(test_msgspec's point-to-point classes), Status, Request and Datatype (test_status,
test_request, test_datatype), mpi4py.util (test_util_pkl5, test_util_dtlib), each at the
rank counts it is written for.

The files come from mpi4py's source distribution through the configured package index
(tests/helpers/mpi4py_suite.py; cached, never committed); without an index the test is skipped
with the reason. A test method that raises NotImplementedError from the stand-in counts
as skipped, its reason naming the unsupported call. Device-buffer backends of mpi4py's
array helper (fake GPU arrays) are left out: the stand-in refuses such buffers. The
pass/skip/fail counts are printed (``pytest -s``).
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from helpers import mpi4py_suite

import mpisim as ms

MSGSPEC_P2P = ("TestMessageSimple", "TestMessageSimpleArray", "TestMessageSimpleNumPy",
               "TestMessageSimpleCAIBuf", "TestMessageCAIBuf", "TestMessageSimpleCuPy",
               "TestMessageSimpleNumba")
"""test_msgspec's classes of point-to-point messages (Sendrecv on COMM_SELF, buffers,
typecodes, Get_address); its other classes test collectives' v and w forms and RMA."""

PKL5 = ()
"""test_util_pkl5 whole: pkl5's communicators and, in its TestMPISelf/TestMPIWorld, the same
tests on MPI.Intracomm's own lowercase calls (collectives of None objects and iterators
among them). Its intercommunicator tests skip naming pkl5.Intercomm, which the issue's
pkl5 (Comm, Intracomm, Request, Message) leaves out."""

SUITES = [
    ("test_p2p_obj", (), (1, 2, 4)),
    ("test_p2p_buf", (), (1, 2, 4)),
    ("test_msgspec", MSGSPEC_P2P, (1,)),
    ("test_status", (), (1,)),
    ("test_request", (), (1,)),
    ("test_datatype", (), (1,)),
    ("test_p2p_obj_matched", (), (1, 2, 3, 4)),
    ("test_p2p_buf_matched", (), (1, 2, 3, 4)),
    ("test_util_pkl5", PKL5, (1, 2, 3, 4)),
    ("test_util_dtlib", (), (1,)),
]
"""(module, its classes to run (all when empty), rank counts)."""

UNSUPPORTED_SKIPS = re.compile(r"unsupported: \w+\.\w+")
"""A skip for a call the stand-in lacks names it (``unsupported: MPI.Compute_dims ...``)."""


def _cases() -> list[tuple[str, tuple[str, ...], int]]:
    return [(module, classes, ranks) for module, classes, counts in SUITES
            for ranks in counts]


@pytest.mark.slow
@pytest.mark.timeout(900)  # test_util_dtlib builds some 200 000 datatypes: about a minute
@pytest.mark.parametrize("module, classes, ranks", _cases(),
                         ids=[f"{m}-{n}" for m, _, n in _cases()])
def test_mpi4py_own_tests_under_the_stand_in(suite, module, classes, ranks):
    names = [f"{module}.{c}" for c in classes] or [module]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=ranks, args=names,
                               until="100s")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    rows = mpi4py_suite.parse(out.getvalue())
    assert [row["rank"] for row in rows] == list(range(ranks))
    for row in rows:
        failed = {name.split(".")[-1].split(" ")[0] for name in row["failures"]}
        for why in row["skipped"].values():  # every skip says why: a call, or mpi4py's own
            assert UNSUPPORTED_SKIPS.search(why) or not why.startswith("unsupported"), why
        skipped = {name.split(".")[-1].split(" ")[0] for name in row["skipped"]} - failed
        passed = row["run"] - len(skipped) - len(failed)
        print(f"{module} at {ranks} ranks, rank {row['rank']}: {row['run']} tests, "
              f"{passed} passed, {len(skipped)} skipped, {len(failed)} failing: "
              f"{sorted(failed)}")
        assert row["run"] > 0 and passed > 0
        assert not failed, row["failures"]  # every method passes or is skipped with a reason


def test_an_unreachable_index_is_a_clear_reason_to_skip(tmp_path, monkeypatch):
    monkeypatch.setenv("MPISIM_CACHE", str(tmp_path))
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    with pytest.raises(OSError, match=r"cannot read http://127\.0\.0\.1:9/simple/mpi4py/"):
        mpi4py_suite.suite_dir()
    assert not any(tmp_path.iterdir())  # nothing half-written in the cache
