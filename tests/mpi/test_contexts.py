"""Communicator contexts (MPI 4.1 §3.5, §7.1): a message matches only receives on the
communicator it was sent on, whether the receive is posted before it arrives or after (the
unexpected queue)."""

from __future__ import annotations

import pytest

import mpisim as ms


@pytest.mark.parametrize("wildcards", [False, True])
def test_7_1_an_arrived_message_on_a_dup_is_not_taken_by_a_receive_on_the_world(wildcards):
    """Both messages arrive while the receiver computes (unexpected); the world receive,
    even with ANY_SOURCE and ANY_TAG, takes the world message, sent second."""
    def prog(mpi):
        dup = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.send(buf="dup", count=8, dest=1, tag=0, comm=dup)
            yield mpi.send(buf="world", count=8, dest=1, tag=0)
            return None
        yield mpi.compute(1e-3)
        source, tag = (ms.ANY_SOURCE, ms.ANY_TAG) if wildcards else (0, 0)
        first = (yield mpi.recv(count=8, source=source, tag=tag)).data
        second = (yield mpi.recv(count=8, source=source, tag=tag, comm=dup)).data
        return first, second

    r = ms.run(prog, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned[1] == ("world", "dup")
