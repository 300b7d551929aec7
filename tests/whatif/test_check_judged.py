"""check cannot judge a run stopped at a limit while it was still running (neither completed
nor deadlocked): a slow program, or a recording cut while it made progress, is no unsafe
one (CANNOT JUDGE, exit 4, as a run that ends in an MPI error)."""

from __future__ import annotations

import mpisim as ms

NET = {"latency": 1e-6, "bandwidth": 1e10}


def pings(mpi, n=100):
    """n small messages one way, then one back: eager as written (pipelined), one round
    trip each when every send is synchronous."""
    if mpi.rank == 0:
        for _ in range(n):
            yield mpi.send(count=1, dest=1, tag=0)
        yield mpi.recv(source=1, tag=1)
    else:
        for _ in range(n):
            yield mpi.recv(source=0, tag=0)
        yield mpi.send(count=1, dest=0, tag=1)


def test_a_run_stopped_at_its_time_limit_as_written_cannot_be_judged():
    verdict = ms.check_safe(pings, ranks=2, network=NET, until=1e-6, jobs=1)
    assert verdict.as_written.outcome is ms.Outcome.TIMEOUT
    assert not verdict.safe and not verdict.judged and verdict.exit_code == 4
    assert verdict.report().startswith("pings: CANNOT JUDGE")


def test_a_synchronous_run_that_is_only_slower_cannot_be_judged_not_unsafe():
    free = ms.run(pings, ranks=2, network=NET)
    synchronous = ms.run(pings, ranks=2, network=NET, mpi={"force_ssend": True})
    limit = (free.sim_time + synchronous.sim_time) / 2  # between the two
    verdict = ms.check_safe(pings, ranks=2, network=NET, until=limit, jobs=1)
    assert verdict.as_written.outcome is ms.Outcome.COMPLETED
    assert verdict.synchronous.outcome is ms.Outcome.TIMEOUT
    assert verdict.exit_code == 4 and not verdict.judged


def test_with_room_to_finish_the_same_program_is_safe():
    assert ms.check_safe(pings, ranks=2, network=NET, jobs=1).safe
