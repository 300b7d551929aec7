"""One-sided communication in the trace (``trace.rma``, ``trace.epochs``), the Chrome trace
and the timeline: operations as arrows from their origin to their target, epochs as spans."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mpisim as ms
from mpisim.plot.timeline import plot_timeline
from mpisim.report.export import EPOCH_TID, chrome_trace

L, B = 1e-6, 1e10


def program(mpi):
    win = yield mpi.win_allocate(64, 8)
    yield mpi.win_fence(win=win)
    if mpi.rank == 0:
        yield mpi.put(np.ones(2), target=1, win=win)
    yield mpi.win_fence(win=win)
    if mpi.rank == 1:
        yield mpi.win_lock(0, win=win)
        yield mpi.get(np.zeros(1), target=0, win=win)
        yield mpi.win_unlock(0, win=win)
    yield mpi.win_fence(ms.MODE_NOSUCCEED, win=win)
    yield mpi.win_free(win)


@pytest.fixture(scope="module")
def result():
    r = ms.run(program, ranks=2, network={"latency": L, "bandwidth": B})
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    return r


def test_each_operation_is_a_row_with_its_times(result):
    put, get = result.trace.rma.tolist()
    assert put[:5] == ("win#1", 0, 1, "MPI_Put", 16)
    assert put[5:] == pytest.approx((2 * L, 3 * L + 16 / B, 3 * L + 16 / B))
    assert get[:5] == ("win#1", 1, 0, "MPI_Get", 8)
    assert get[7] == pytest.approx(get[5] + L)  # the request reached rank 0: it read then


def test_each_epoch_is_a_span_of_its_rank(result):
    rows = [(rank, kind, peer) for _, rank, kind, peer, _, _ in result.trace.epochs.tolist()]
    assert rows.count((0, "fence", -1)) == 2 and rows.count((1, "fence", -1)) == 2
    assert (1, "lock", 0) in rows
    lock = result.trace.epochs[result.trace.epochs["kind"] == "lock"][0]
    assert lock["end"] - lock["start"] == pytest.approx(4 * L + 8 / B)  # round trip + get
    assert all(math.isfinite(t) for t in result.trace.epochs["end"])  # NOSUCCEED closed


def test_the_chrome_trace_has_epoch_slices_and_operation_arrows(result):
    events = chrome_trace(result)["traceEvents"]
    epochs = [e for e in events if e.get("cat") == "rma,epoch"]
    assert {e["tid"] - EPOCH_TID for e in epochs} == {0, 1}
    flows = [e for e in events if e.get("cat") == "rma"]
    assert [(e["ph"], e["pid"]) for e in flows] == [("s", 0), ("f", 1), ("s", 1), ("f", 0)]


def test_the_timeline_draws_epochs_and_operations(result):
    fig = plot_timeline(result)
    ax = fig.axes[0]
    gids = {c.get_gid() for c in ax.collections} | {t.get_gid() for t in ax.texts}
    assert {"epochs:fence", "epochs:lock", "rma:MPI_Put", "rma:MPI_Get"} <= gids
