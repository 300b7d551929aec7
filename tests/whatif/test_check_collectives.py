"""check as MPI 4.1 §6.1 asks: "a correct, portable program must invoke collective
communications so that deadlock will not occur, whether collective communications are
synchronizing or not". With every send synchronous, every collective is made synchronizing
too (``mpi.sync_collectives``), unless ``collectives="as_written"``."""

from __future__ import annotations

import json
import subprocess
import sys

import mpisim as ms


def bcast_then_recv(mpi):
    """Rank 0 broadcasts then receives from 1; rank 1 sends to 0 then joins the broadcast:
    it completes only because the root leaves its broadcast early (MBI's
    CollP2PCallMatching shape)."""
    if mpi.rank == 0:
        yield mpi.bcast(1, root=0)
        yield mpi.recv(source=1, tag=5)
    else:
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=5)
        yield mpi.bcast(None, root=0)


def test_6_1_a_program_relying_on_a_non_synchronizing_collective_is_not_safe():
    verdict = ms.check_safe(bcast_then_recv, ranks=2, jobs=1)
    assert verdict.as_written.outcome is ms.Outcome.COMPLETED
    assert verdict.synchronous.outcome is ms.Outcome.DEADLOCK
    assert not verdict.safe and verdict.exit_code == 3
    report = verdict.report()
    assert "every collective synchronizing" in report
    # the report says which collective's synchronisation deadlocks, and who it waits for
    blocked = {b.rank: b for b in verdict.synchronous.deadlock.blocked}
    assert blocked[0].call == "MPI_Bcast" and blocked[0].waits_for == [1]
    assert blocked[1].call == "MPI_Send"
    assert "rank 0 blocked in MPI_Bcast" in report


def test_6_1_as_written_collectives_keep_the_old_verdict():
    verdict = ms.check_safe(bcast_then_recv, ranks=2, jobs=1, collectives="as_written")
    assert verdict.safe and verdict.synchronous.outcome is ms.Outcome.COMPLETED
    assert "collective synchronizing" not in verdict.report()


def test_a_synchronizing_collective_waits_for_every_member_to_enter():
    """The setting alone: the root of a broadcast leaves it only when the last member has
    entered (here 1 ms late), as a barrier would."""
    def program(mpi):
        if mpi.rank == 2:
            yield mpi.compute(1e-3)
        yield mpi.bcast("x" if mpi.rank == 0 else None, root=0)
        return mpi.now

    free = ms.run(program, ranks=3).returned
    synced = ms.run(program, ranks=3, mpi={"sync_collectives": True}).returned
    assert free[0] < 1e-3 <= synced[0]
    assert min(synced) >= 1e-3


def test_a_correct_program_stays_safe_with_synchronizing_collectives():
    def program(mpi):
        total = yield mpi.allreduce(mpi.rank)
        req = yield mpi.ibarrier()
        yield mpi.wait(req)
        if mpi.rank == 0:
            yield mpi.recv(source=1, tag=1)
        elif mpi.rank == 1:
            yield mpi.send(total, count=1, datatype=ms.INT, dest=0, tag=1)
        yield mpi.gather(mpi.rank, root=1)

    assert ms.check_safe(program, ranks=3, jobs=1).safe


def test_the_cli_takes_collectives_and_says_it_in_json(tmp_path):
    scenario = tmp_path / "bcast.yaml"
    scenario.write_text(
        "ranks: 2\nprograms:\n"
        "  - ranks: 0\n    ops:\n      - bcast: {count: 1, datatype: INT}\n"
        "      - recv: {source: 1, tag: 5, count: 1, datatype: INT}\n"
        "  - ranks: 1\n    ops:\n      - send: {dest: 0, tag: 5, count: 1, datatype: INT}\n"
        "      - bcast: {count: 1, datatype: INT}\n")
    def check(*extra):
        return subprocess.run([sys.executable, "-m", "mpisim", "check", str(scenario),
                               "--jobs", "1", *extra], capture_output=True, text=True)
    unsafe = check()
    assert unsafe.returncode == 3, unsafe.stdout + unsafe.stderr
    assert "MPI_Bcast" in unsafe.stdout
    as_written = check("--collectives", "as-written", "--json")
    assert as_written.returncode == 0, as_written.stdout + as_written.stderr
    assert json.loads(as_written.stdout)["collectives"] == "as_written"
