"""mpi4py's own point-to-point tests (test_p2p_obj.py, test_p2p_buf.py with mpiunittest)
run under the stand-in at 1, 2 and 4 ranks.

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

import pytest
from helpers import mpi4py_suite

import mpisim as ms

FAMILIES = ("testSendAndRecv", "testISendAndRecv", "testSSendAndRecv", "testISSendAndRecv",
            "testIRecvAndBSend", "testIRecvAndIBSend", "testIRecvAndSSend",
            "testIRecvAndISSend", "testProbe", "testManyISendAndRecv", "testWaitSomeRecv",
            "testTestSomeRecv", "testSendrecv", "testSendRecv", "testProcNull",
            "testProcNullPersistent", "testIProbe")


@pytest.fixture(scope="module")
def suite():
    try:
        return mpi4py_suite.suite_dir()
    except OSError as e:
        pytest.skip(f"mpi4py {mpi4py_suite.VERSION}'s tests cannot be fetched: {e}")


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [1, 2, 4])
@pytest.mark.parametrize("module", ["test_p2p_obj", "test_p2p_buf"])
def test_mpi4py_own_p2p_tests_under_the_stand_in(suite, module, ranks):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(suite / "run_suite.py", ranks=ranks, args=[module],
                               until="100s")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    rows = mpi4py_suite.parse(out.getvalue())
    assert [row["rank"] for row in rows] == list(range(ranks))
    for row in rows:
        failed = {name.split(".")[-1].split(" ")[0] for name in row["failures"]}
        for name in row["skipped"].values():
            assert "unsupported:" in name or "mpi" in name.lower(), name
        skipped = {name.split(".")[-1].split(" ")[0] for name in row["skipped"]} - failed
        passed = row["run"] - len(skipped) - len(failed)
        print(f"{module} at {ranks} ranks, rank {row['rank']}: {row['run']} tests, "
              f"{passed} passed, {len(skipped)} skipped, {len(failed)} failing: "
              f"{sorted(failed)}")
        ran = {name.split(".")[-1] for name in _tests(module)}
        assert FAMILIES[:3] and any(f in ran for f in FAMILIES)
        assert not failed, row["failures"]  # every method passes or is skipped with a reason


def _tests(module: str) -> list[str]:
    import re

    text = (mpi4py_suite.cache_root() / f"mpi4py-{mpi4py_suite.VERSION}-test" /
            f"{module}.py").read_text()
    return re.findall(r"def (test\w+)", text)


def test_an_unreachable_index_is_a_clear_reason_to_skip(tmp_path, monkeypatch):
    monkeypatch.setenv("MPISIM_CACHE", str(tmp_path))
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    with pytest.raises(OSError, match=r"cannot read http://127\.0\.0\.1:9/simple/mpi4py/"):
        mpi4py_suite.suite_dir()
    assert not any(tmp_path.iterdir())  # nothing half-written in the cache
