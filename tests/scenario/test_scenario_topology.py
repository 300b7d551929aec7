"""Process topologies in scenario files: ``cart_create`` (with ``as:``) and ``cart_shift``
binding the neighbours' ranks, so a halo exchange is written as a stencil code writes it
(MPI 4.1 §8.5.1, §8.5.6; scenarios/halo-cart-bsend.yaml)."""

from __future__ import annotations

import pytest
from helpers.paths import SCENARIOS

import mpisim as ms
from mpisim.scenario import load
from mpisim.scenario.problems import ScenarioError

HALO = SCENARIOS / "halo-cart-bsend.yaml"


@pytest.mark.parametrize("overrides, outcome", [
    ({}, "completed"),
    ({"slots": "3"}, "error"),                   # the fourth bsend of an iteration overflows
    ({"mpi.force_ssend": "true"}, "deadlock"),    # every rank sends before it receives
    ({"periodic": "false"}, "completed"),         # edge ranks shift to PROC_NULL
])
def test_the_cartesian_halo_exchange_meets_what_its_description_promises(overrides, outcome):
    result = load(HALO).with_overrides(overrides).run()
    assert result.outcome.value == outcome


def test_it_sends_what_the_hand_written_halo_2d_sends():
    """halo-2d-bsend computes the same neighbours by hand on the same 2 x 4 grid: the
    messages and the time are the same."""
    by_hand = load(SCENARIOS / "halo-2d-bsend.yaml").with_overrides({"px": "4"}).run()
    on_grid = load(HALO).run()
    assert on_grid.messages["sent"] == by_hand.messages["sent"] == 160
    assert on_grid.sim_time == pytest.approx(by_hand.sim_time, rel=0.05)


def test_cart_shift_binds_source_and_dest_and_a_non_periodic_edge_is_proc_null(tmp_path):
    path = tmp_path / "line.yaml"
    path.write_text("""
ranks: 3
programs:
  - ops:
      - cart_create: {dims: [3], periods: [false], as: line}
      - cart_shift: {comm: line, direction: 0, source: left, dest: right}
      - send: {dest: right, count: 1, comm: line}
      - recv: {source: left, count: 1, comm: line, status: {source: got}}
""")
    result = load(path).run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.messages["sent"] == 2  # rank 2's right and rank 0's left are PROC_NULL


def test_an_unknown_argument_and_a_missing_comm_are_reported_at_load(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("""
ranks: 2
programs:
  - ops:
      - cart_create: {dims: [2], period: [true], as: g}
      - cart_shift: {direction: 0, source: s}
""")
    with pytest.raises(ScenarioError) as e:
        load(path)
    text = "\n".join(e.value.problems)
    assert "cart_create.period: unknown argument" in text
    assert "cart_shift: missing comm" in text
