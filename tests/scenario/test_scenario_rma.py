"""One-sided communication in scenario files (MPI 4.1 §12): a window named with ``as``,
its operations and synchronizations naming it with ``win``; problems reported at load with
their line, a deadlock with the ops' places."""

from __future__ import annotations

import textwrap

import pytest

import mpisim as ms
from mpisim.scenario.problems import ScenarioError

L, B = 1e-6, 1e10


def scenario(tmp_path, text: str):
    path = tmp_path / "rma.yaml"
    path.write_text(textwrap.dedent(text))
    return ms.load_scenario(path)


def test_a_fenced_put_takes_its_hand_computed_time(tmp_path):
    """Allocate (one latency, 2 ranks), fence (one barrier round: L), put of 8000 bytes
    (N/B), the closing fence at the target (arrival: N/B + L)."""
    sc = scenario(tmp_path, """
        ranks: 2
        network: {latency: 1us, bandwidth: 10 GB/s}
        programs:
          - ranks: all
            ops:
              - win_allocate: {size: 8000, as: w}
              - win_fence: w
              - if:
                  cond: rank == 0
                  then: [{put: {target: 1, bytes: 8000, win: w}}]
              - win_fence: w
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.sim_time == pytest.approx(2 * L + 8000 / B + L)
    assert result.trace.rma["call"].tolist() == ["MPI_Put"]


def test_locks_and_accumulates_complete_and_never_conflict(tmp_path):
    sc = scenario(tmp_path, """
        ranks: 4
        programs:
          - ranks: all
            ops:
              - win_create: {size: 64, disp_unit: 8, as: w}
              - win_lock: {target: 0, lock_type: shared, win: w}
              - accumulate: {target: 0, count: 4, datatype: DOUBLE, op: SUM, win: w}
              - win_flush: {target: 0, win: w}
              - win_unlock: {target: 0, win: w}
              - win_lock_all: w
              - get: {target: (rank + 1) % size, count: 1, datatype: DOUBLE, win: w}
              - win_unlock_all: w
              - win_free: w
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert not result.warnings


def test_an_unreleased_lock_is_a_deadlock_naming_the_op_that_locked(tmp_path):
    sc = scenario(tmp_path, """
        ranks: 3
        programs:
          - ranks: all
            ops:
              - win_allocate: {size: 64, as: w}
              - if:
                  cond: rank == 0
                  then: [{win_lock: {target: 1, win: w}}]
              - barrier: {}
              - if:
                  cond: rank == 2
                  then:
                    - win_lock: {target: 1, win: w}
              - barrier: {}
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    lock = next(b for b in result.deadlock.blocked if b.rank == 2)
    assert lock.call == "MPI_Win_lock" and lock.waits_for == [0]
    assert "locked at programs[0].ops[1].if.then[0] (line 9)" in lock.reason


@pytest.mark.parametrize("op, problem", [
    ("put: {target: 1, bytes: 8, win: v}", "unknown window 'v'"),
    ("win_lock: {target: 1, lock_type: open, win: w}", "expected exclusive or shared"),
    ("accumulate: {target: 1, bytes: 8, op: AVG, win: w}", "unknown op 'AVG'"),
    ("put: {bytes: 8, win: w}", "missing target"),
])
def test_a_bad_op_is_refused_at_load_with_its_line(tmp_path, op, problem):
    with pytest.raises(ScenarioError, match=problem):
        scenario(tmp_path, f"""
            ranks: 2
            programs:
              - ranks: all
                ops:
                  - win_allocate: {{size: 64, as: w}}
                  - {op}
            """)
