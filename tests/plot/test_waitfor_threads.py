"""The wait-for graph of a deadlock through threads (MPI 4.1 §11.6): a rank's blocked threads
are one node, whose edges leave from the thread that waits for other ranks."""

from __future__ import annotations

from helpers.paths import SCENARIOS

import mpisim as ms
from mpisim.plot import plot_waitfor


def test_a_ranks_threads_are_one_node_and_its_edges_are_the_waiting_threads():
    """Rank 0's main thread waits in a join (no other rank), its listener for rank 1: the
    graph draws 2 ranks, the cycle 0 -> 1 -> 0, and rank 0 labelled by the listener's
    MPI_Recv; the title counts ranks, not threads."""
    r = ms.load_scenario(SCENARIOS / "threads-join-deadlock.yaml").run()
    assert len(r.deadlock.blocked) == 3  # two of rank 0 (main, listener), one of rank 1
    fig = plot_waitfor(r)
    ax = fig.axes[0]
    assert ax.get_title().splitlines() == ["wait-for graph: 2 ranks blocked",
                                           "cycle 0 → 1 → 0"]
    labels = sorted(t.get_text() for t in ax.texts if "\n" in t.get_text())
    assert labels == ["0\nRecv", "1\nRecv"]


def test_the_timeline_labels_a_rank_once_with_its_blocked_threads_calls_named():
    """Rank 0 waits to join its listener, which waits in MPI_Recv: one label, the thread's
    call after the rank's own and named, rather than two labels drawn over each other."""
    from mpisim.plot import plot_timeline

    r = ms.load_scenario(SCENARIOS / "threads-join-deadlock.yaml").run()
    fig = plot_timeline(r)
    labels = {t.get_gid(): t.get_text() for t in fig.axes[0].texts
              if str(t.get_gid()).startswith("blocked-label:")}
    assert labels == {"blocked-label:0": "join 'listener'; listener: MPI_Recv waits for 1",
                      "blocked-label:1": "MPI_Recv waits for 0"}
