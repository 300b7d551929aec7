"""One-sided communication in mpi4py scripts under the stand-in (MPI 4.1 §12): ``MPI.Win``
as mpi4py has it, and the measured behaviour of MPICH 5.0.2 and Open MPI 5.0.11 with a
target that sleeps outside MPI, reproduced by the ``mpich-5.0`` and ``openmpi-5.0``
profiles (tests/data/real/rma/sleeping_target.py; the measurements are in
docs/guide/facts-rma.md, the differential test in test_mpi4py_oracle_rma.py)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from helpers.paths import DATA

import mpisim as ms

SCRIPT = DATA / "real" / "rma" / "sleeping_target.py"

WAITED = {
    # scenario: (MPICH 5.0.2's calls that waited for the sleeping target, Open MPI 5.0.11's),
    # each as {flavor: calls}; the same for both flavors when one set is given
    "lock_put": ({"Lock"}, {"create": {"Unlock"}, "allocate": set()}),
    "lock_shared_put": ({"Lock"}, {"create": {"Unlock"}, "allocate": set()}),
    "lock_get": ({"Lock"}, {"create": {"Unlock"}, "allocate": set()}),
    "lock_acc": ({"Lock"}, {"create": {"Accumulate"}, "allocate": set()}),
    "lock_all_put": ({"Lock_all"}, {"create": {"Unlock_all"}, "allocate": set()}),
    "lock_put_flush": ({"Lock"}, {"create": {"Flush"}, "allocate": set()}),
    "lock_put_flush_local": ({"Lock"}, {"create": {"Flush_local"}, "allocate": set()}),
    "lock_nocheck_put": ({"create": {"Unlock"}, "allocate": set()},
                         {"create": {"Unlock"}, "allocate": set()}),
    "lock_only": ({"Lock"}, set()),
    "fence_put": ({"Fence"}, {"Fence"}),
    "pscw_late_post": ({"Start"}, {"Start"}),
    "pscw_sleep_after_post": ({"create": {"Complete"}, "allocate": set()},
                              {"create": {"Complete"}, "allocate": set()}),
}
CASES = [(profile, scenario, flavor) for profile in ("mpich-5.0", "openmpi-5.0")
         for scenario in WAITED for flavor in ("create", "allocate")]


@pytest.mark.parametrize("profile, scenario, flavor", CASES,
                         ids=[f"{p}-{s}-{f}" for p, s, f in CASES])
def test_the_calls_that_wait_for_a_sleeping_target_are_the_measured_ones(profile, scenario,
                                                                         flavor):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(SCRIPT, ranks=2, args=[scenario, flavor],
                               mpi={"profile": profile})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    line = next(line for line in out.getvalue().splitlines() if line.startswith("rank 0: "))
    waited = {call for call, seconds in re.findall(r"(\w+) ([\d.]+)", line[8:])
              if float(seconds) > 0.25}
    expected = WAITED[scenario][profile != "mpich-5.0"]
    if isinstance(expected, dict):
        expected = expected[flavor]
    assert waited == expected, line


def run_script(tmp_path, text: str, ranks: int = 2, **kw) -> tuple[ms.Result, list[str]]:
    path = tmp_path / "script.py"
    path.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(path, ranks=ranks, **kw)
    return result, sorted(out.getvalue().splitlines())


def test_a_window_is_the_scripts_own_memory(tmp_path):
    result, lines = run_script(tmp_path, """
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
buf = bytearray(16)
win = MPI.Win.Create(buf, 1, MPI.INFO_NULL, comm)
win.Fence()
win.Put(np.full(2, comm.rank + 1.0), 1 - comm.rank)
win.Fence()
print(comm.rank, np.frombuffer(buf).tolist(), win.Get_attr(MPI.WIN_BASE) == MPI.Get_address(buf))
win.Free()
print(comm.rank, win == MPI.WIN_NULL, bool(win))
""")
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert lines == ["0 True False", "0 [2.0, 2.0] True", "1 True False", "1 [1.0, 1.0] True"]


def test_allocated_memory_is_read_through_tomemory(tmp_path):
    result, lines = run_script(tmp_path, """
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
win = MPI.Win.Allocate(8, 8, comm=comm)
mem = np.frombuffer(win.tomemory())
win.Lock_all()
win.Accumulate(np.array([comm.rank + 1.0]), 0, op=MPI.SUM)
win.Unlock_all()
comm.Barrier()
print(comm.rank, mem.tolist(), win.flavor == MPI.WIN_FLAVOR_ALLOCATE, win.model == MPI.WIN_UNIFIED)
win.Free()
""", ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert lines == ["0 [6.0] True True", "1 [0.0] True True", "2 [0.0] True True"]


def test_an_rma_error_is_an_mpi_exception_with_its_class(tmp_path):
    result, lines = run_script(tmp_path, """
import numpy as np
from mpi4py import MPI
win = MPI.Win.Allocate(8, 8, comm=MPI.COMM_WORLD)
for call in (lambda: win.Put(np.ones(1), 0), lambda: win.Unlock(0)):
    try:
        call()
    except MPI.Exception as e:
        print(e.Get_error_class() == MPI.ERR_RMA_SYNC, e.Get_error_class())
win.Lock(0)
try:
    win.Put(np.ones(2), 0)
except MPI.Exception as e:
    print(e.Get_error_class() == MPI.ERR_RMA_RANGE)
win.Unlock(0)
win.Free()
""", ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert lines == ["True", "True 50", "True 50"]


def test_errors_are_fatal_when_the_window_says_so(tmp_path):
    result, _ = run_script(tmp_path, """
import numpy as np
from mpi4py import MPI
win = MPI.Win.Allocate(8, 8, comm=MPI.COMM_WORLD)
win.Set_errhandler(MPI.ERRORS_ARE_FATAL)
try:
    win.Put(np.ones(1), 0)
except MPI.Exception:
    print("caught")
""", ranks=1)
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_RMA_SYNC"


def test_a_window_cannot_be_pickled_and_the_null_one_can(tmp_path):
    result, lines = run_script(tmp_path, """
import pickle
from mpi4py import MPI
win = MPI.Win.Create(None, comm=MPI.COMM_SELF)
try:
    pickle.dumps(win)
except ValueError:
    print("refused")
print(pickle.loads(pickle.dumps(MPI.WIN_NULL)) is MPI.WIN_NULL, MPI.Win() == MPI.WIN_NULL)
win.Free()
""", ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert lines == ["True True", "refused"]
