"""Endless programs: a polling loop that can never succeed is a livelock, reported as a
deadlock naming the polling call; any other endless program meets the default guard and
ends as TIMEOUT, with the trace bounded."""

from __future__ import annotations

import textwrap

import pytest

import mpisim as ms
from mpisim.cli.main import main
from mpisim.runs import simulation
from mpisim.scenario import load as load_scenario

POLL_YAML = textwrap.dedent("""\
    name: poll-forever
    ranks: 2
    programs:
      - ranks: 0
        ops:
          - loop:
              times: 1000000000
              ops:
                - iprobe: {source: 1, tag: 7, flag: got}
      - ranks: 1
        ops:
          - compute: 1us
    """)


def test_polling_iprobe_for_a_message_nobody_sends_is_a_livelock(tmp_path, capsys):
    """MPI_Iprobe never succeeds when nothing is in flight to the rank and the only other
    rank has finished: the run ends as a deadlock (exit 3) naming the polling call."""
    path = tmp_path / "poll.yaml"
    path.write_text(POLL_YAML)
    code = main(["run", str(path)])
    out = capsys.readouterr().out
    assert code == 3
    assert "livelock" in out and "rank 0: MPI_Iprobe(peer=1, tag=7)" in out
    assert "(line 9)" in out
    result = load_scenario(path).run()
    assert result.outcome is ms.Outcome.DEADLOCK and result.deadlock.livelock == [0]
    assert result.to_dict()["deadlock"]["livelock"] == [0]
    assert result.deadlock.blocked[0].waits_for == []  # rank 1 has finished


def polls_a_request(mpi):
    """Rank 0 tests an irecv (sleeping 1 us between tests) that rank 1 never matches: rank
    1 is blocked in a receive from rank 0."""
    if mpi.rank == 0:
        req = yield mpi.irecv(count=10, source=1)
        while True:
            flag, _ = yield mpi.test(req)
            if flag:
                return
            yield mpi.compute("1us")
    else:
        yield mpi.recv(count=10, source=0)


def test_polling_test_with_compute_between_polls_is_a_livelock():
    result = ms.run(polls_a_request, ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK and result.deadlock.livelock == [0]
    calls = {b.rank: b.call for b in result.deadlock.blocked}
    assert calls == {0: "MPI_Test", 1: "MPI_Recv"}
    assert result.deadlock.cycles == [[0, 1]]
    assert "test_livelock.py" in result.deadlock.blocked[0].where


def late_sender(mpi):
    """Rank 0 polls while rank 1 computes for 20 ms, then sends: no livelock."""
    if mpi.rank == 0:
        while True:
            flag, _ = yield mpi.iprobe(source=1, tag=3)
            if flag:
                break
        yield mpi.recv(count=4, source=1, tag=3)
    else:
        yield mpi.compute("20ms")
        yield mpi.send(count=4, dest=0, tag=3)


def test_polling_while_another_rank_is_busy_is_not_a_livelock():
    result = ms.run(late_sender, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.sim_time >= 20e-3


def in_flight(mpi):
    """Rank 0 polls while a large eager message crawls to it over a slow link."""
    if mpi.rank == 0:
        while not (yield mpi.iprobe(source=1))[0]:
            pass
        yield mpi.recv(count=10**6, source=1)
    else:
        yield mpi.send(count=10**6, dest=0)


@pytest.mark.slow
def test_polling_while_a_message_is_in_flight_is_not_a_livelock():
    result = ms.run(in_flight, ranks=2, network={"bandwidth": "10 MB/s",
                                                  "eager_limit": "4 MiB"})
    assert result.outcome is ms.Outcome.COMPLETED and result.sim_time > 0.09


def ping_pong_forever(mpi):
    while True:
        if mpi.rank == 0:
            yield mpi.send(count=8, dest=1)
            yield mpi.recv(count=8, source=1)
        else:
            yield mpi.recv(count=8, source=0)
            yield mpi.send(count=8, dest=0)


def test_an_endless_program_meets_the_default_guard_with_a_bounded_trace(monkeypatch):
    monkeypatch.setattr(simulation, "DEFAULT_MAX_EVENTS", 30_000)
    monkeypatch.setattr(simulation, "TRACE_EVENTS", 3_000)
    result = ms.run(ping_pong_forever, ranks=2)
    assert result.outcome is ms.Outcome.TIMEOUT and result.exit_code == 5
    assert "30000 events processed" in result.timeout_reason
    assert result.messages["sent"] > 9_000
    assert len(result.trace.messages) < 1_500  # recorded during the first 3000 events only
    assert len(result.trace.calls) < 3_000
    assert "the trace holds the first 3000 events only" in result.report()
    assert result.to_dict()["warnings"]


def test_until_or_max_events_replace_the_default_guard(monkeypatch):
    monkeypatch.setattr(simulation, "DEFAULT_MAX_EVENTS", 1_000)
    longer = ms.run(ping_pong_forever, ranks=2, max_events=5_000)
    assert longer.outcome is ms.Outcome.TIMEOUT and "5000 events" in longer.timeout_reason
    timed = ms.run(ping_pong_forever, ranks=2, until="2ms")
    assert timed.outcome is ms.Outcome.TIMEOUT and timed.sim_time == pytest.approx(2e-3)
