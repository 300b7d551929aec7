"""6.1: the members of a communicator must make the same collective calls, in the same
order, with the same root and op and matching type signatures. A mismatch is detected
where the calls meet, reported with each rank's call, arguments and place, and answered
as the profile's library answers it (observed with MPICH 5.0.2 and Open MPI 5.0.11 /
4.1.4: docs/guide/facts-collectives.md). ``mpisim check`` never calls such a program safe.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import mpisim as ms
from mpisim.collectives.meeting import MISMATCH
from mpisim.scenario import load


def _mismatches(result):
    return [w for w in result.warnings if w.startswith(MISMATCH)]


def test_6_1_a_different_collective_at_the_same_point_hangs_naming_every_call():
    """Both libraries hang when rank 0 broadcasts and the others reduce (800 KB; observed):
    each blocked rank's reason names every member's call and arguments."""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.bcast(count=100, datatype=ms.DOUBLE, root=0)
        else:
            yield mpi.reduce(count=100, datatype=ms.DOUBLE, root=0)

    result = ms.run(prog, ranks=3)
    assert result.outcome is ms.Outcome.DEADLOCK
    *reducing, root = result.deadlock.blocked  # rank 0's bcast returned (11.2.2: it waits)
    assert (root.rank, root.call, root.waits_for) == (0, "MPI_Finalize", [1, 2])
    for b in reducing:
        assert "MPI_Bcast meets MPI_Reduce" in b.reason, b.reason
        assert "rank 0: MPI_Bcast(root=0, 800 B of DOUBLE)" in b.reason
        assert "rank 2: MPI_Reduce(root=0, MPI_SUM, 800 B of DOUBLE)" in b.reason
    assert len(_mismatches(result)) == 1


def test_6_12_a_nonblocking_collective_never_matches_a_blocking_one():
    def prog(mpi):
        if mpi.rank == 0:
            req = yield mpi.ibarrier()
            yield mpi.wait(req)
        else:
            yield mpi.barrier()

    result = ms.run(prog, ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK
    assert "MPI_Ibarrier meets MPI_Barrier" in _mismatches(result)[0]


def _bcast(roots, count=4):
    def prog(mpi):
        buf = np.full(count, -1.0)
        root = roots[mpi.rank]
        if mpi.rank == root:
            buf[:] = 100 + mpi.rank
        yield mpi.bcast(buf, root=root)
        return buf[0]
    return prog


@pytest.mark.parametrize("roots, data", [((0, 0, 1, 1), 100.0), ((1, 1, 0, 0), 101.0),
                                         ((0, 1, 1, 1), 100.0)])
def test_6_4_bcast_roots_that_differ_complete_with_the_lowest_self_root_under_mpich(roots,
                                                                                    data):
    """MPICH 5.0.2 (one node): every rank gets the data of the lowest rank that named itself
    root (observed for each of these three); mpich-5.0's bcast_root_mismatch."""
    result = ms.run(_bcast(roots), ranks=4, mpi={"profile": "mpich-5.0"})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.returned == [data] * 4
    assert "roots 0 and 1" in _mismatches(result)[0] or "roots 1 and 0" in \
        _mismatches(result)[0]


def test_6_4_bcast_roots_that_differ_follow_each_ranks_tree_under_open_mpi():
    """Open MPI (4.1.4 and 5.0.11): with roots 0, 0, 1, 1 a rank of root 1 waits for a
    message its root's tree never sends: a deadlock naming the mismatch."""
    result = ms.run(_bcast((0, 0, 1, 1)), ranks=4, mpi={"profile": "openmpi-5.0"})
    assert result.outcome is ms.Outcome.DEADLOCK
    waiting = [b for b in result.deadlock.blocked if b.call != "MPI_Finalize"]  # (11.2.2)
    blocked = {b.rank for b in waiting}
    assert blocked and blocked <= {2, 3}
    assert all("which the other members' calls do not match" in b.reason for b in waiting)


def test_6_1_a_root_sending_more_than_the_others_take_is_err_truncate_everywhere():
    """Both libraries: MPI_ERR_TRUNCATE at each receiver (observed), caught here."""
    def prog(mpi):
        try:
            yield mpi.bcast(count=8 if mpi.rank == 0 else 4, datatype=ms.DOUBLE, root=0)
        except ms.MPIError as e:
            return e.error_class
        return "done"

    for profile in ("standard", "mpich-5.0", "openmpi-5.0"):
        result = ms.run(prog, ranks=3, mpi={"profile": profile})
        assert result.returned == ["done", "MPI_ERR_TRUNCATE", "MPI_ERR_TRUNCATE"], profile
        assert "rank 0 sends 64 B where rank 1 expects 32 B" in _mismatches(result)[0]


@pytest.mark.parametrize("profile, receivers", [("mpich-5.0", "MPI_ERR_OTHER"),
                                                ("openmpi-5.0", "done"),
                                                ("standard", "done")])
def test_6_1_a_root_sending_less_is_the_profiles_short_collective_message(profile,
                                                                          receivers):
    """MPICH 5.0.2: MPI_ERR_OTHER at the receivers; Open MPI: they complete (observed)."""
    def prog(mpi):
        try:
            yield mpi.bcast(count=4 if mpi.rank == 0 else 8, datatype=ms.DOUBLE, root=0)
        except ms.MPIError as e:
            return e.error_class
        return "done"

    result = ms.run(prog, ranks=3, mpi={"profile": profile})
    assert result.returned == ["done", receivers, receivers]


def test_6_5_a_sender_above_the_roots_count_truncates_at_the_root():
    """MPI_Gather: rank 1 sends 2n where the root takes n: MPI_ERR_TRUNCATE at the root
    (MPICH at any size, Open MPI at 800 KB; observed)."""
    def prog(mpi):
        out = np.zeros(3 * 4)
        try:
            yield mpi.gather(np.ones(8 if mpi.rank == 1 else 4), root=0, recvbuf=out)
        except ms.MPIError as e:
            return e.error_class
        return "done"

    assert ms.run(prog, ranks=3).returned == ["MPI_ERR_TRUNCATE", "done", "done"]


def test_6_9_a_different_op_completes_but_check_says_erroneous():
    """Both libraries complete with a wrong result (MPICH: the max everywhere); mpisim
    completes, each rank reducing with its own op, warns, and check is NOT SAFE."""
    def prog(mpi):
        yield mpi.allreduce(np.ones(4) * (mpi.rank + 1), op=ms.SUM if mpi.rank == 0 else ms.MAX)

    result = ms.run(prog, ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED
    assert "ops MPI_SUM and MPI_MAX" in _mismatches(result)[0]
    verdict = ms.check_safe(prog, ranks=3)
    assert not verdict.safe
    assert "it completes but is erroneous: mismatched collective calls" in verdict.reason


def test_matching_calls_are_never_reported():
    """Every collective of a correct program: no mismatch, whatever the sizes per rank the
    v forms give."""
    def prog(mpi):
        p, r = mpi.size, mpi.rank
        yield mpi.bcast(np.zeros(3), root=1)
        yield mpi.allreduce(np.ones(2))
        yield mpi.gatherv(np.ones(r + 1), root=0, recvbuf=np.zeros(sum(range(1, p + 1))),
                          recvcounts=list(range(1, p + 1)))
        yield mpi.scatterv(None, count=r + 1, datatype=ms.INT, root=0,
                           sendcounts=list(range(1, p + 1)))
        yield mpi.alltoallv(None, datatype=ms.INT, sendcounts=[r + 1] * p)
        yield mpi.reduce_scatter(np.ones(2 * p), [2] * p)
        req = yield mpi.ibarrier()
        yield mpi.wait(req)

    result = ms.run(prog, ranks=4)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert _mismatches(result) == []


MISMATCHED = """\
    name: counts
    ranks: 3
    programs:
      - ranks: 0
        ops:
          - bcast: {count: 8, datatype: INT, root: 0}
      - ranks: [1, 2]
        ops:
          - bcast: {count: 4, datatype: INT, root: 0}
    """


def test_a_scenarios_mismatch_names_each_ranks_op_and_line(tmp_path):
    path = tmp_path / "counts.yaml"
    path.write_text(textwrap.dedent(MISMATCHED))
    result = load(path).run()
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_TRUNCATE"
    text = _mismatches(result)[0]
    assert "rank 0: MPI_Bcast(root=0, 32 B of INT) at programs[0].ops[0] (line 6)" in text
    assert "rank 1: MPI_Bcast(root=0, 16 B of INT) at programs[1].ops[0] (line 9)" in text
    assert not ms.check_safe(path).safe
