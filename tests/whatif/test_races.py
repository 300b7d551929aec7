"""Message races explored (MPI 4.1 §3.5: order is kept between one pair of processes only,
so a wildcard receive may match any sender whose message is not causally after it)."""

from __future__ import annotations

import json

import pytest
from helpers.programs import thread_senders

import mpisim as ms
from mpisim.cli.main import main


def decides(mpi, fixed):
    """Rank 0's second receive depends on who came first; unless ``fixed``, one order waits
    for rank 2 twice (a deadlock)."""
    if mpi.rank == 0:
        st = yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)
        other = (2 if st.source == 1 else 1) if fixed else 2
        yield mpi.recv(count=1, datatype=ms.INT, source=other, tag=0)
    else:
        yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)


def gather_any(mpi):
    """Rank 0 takes one message from each other rank, in whatever order they come."""
    if mpi.rank == 0:
        total = 0
        for _ in range(mpi.size - 1):
            st = yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)
            total += st.source
        return total
    yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)


def test_a_race_that_deadlocks_in_another_order_is_found_3_5():
    races = ms.check_races(decides, ranks=3, params={"fixed": False})
    assert races.racy and races.exhausted and len(races.tried) == 2
    outcomes = [t.result.outcome.value for t in races.tried]
    assert outcomes == ["completed", "deadlock"]
    finding = races.finding()
    assert finding.rule == "message-race" and finding.calls[0].rank == 0
    assert "decides" in finding.calls[0].where
    assert "matched rank 1 in one order, rank 2 in the other" in races.report()


def test_the_corrected_program_is_race_free_in_every_order():
    races = ms.check_races(decides, ranks=3, params={"fixed": True})
    assert not races.racy and races.alternatives == 1 and len(races.tried) == 2


def test_every_order_of_n_senders_is_tried_and_results_agree():
    """4 senders to one wildcard receiver: 4! matching orders, all with the same result."""
    races = ms.check_races(gather_any, ranks=5)
    assert len(races.tried) == 24 and races.exhausted and not races.racy
    first = [[w.source for w in t.wildcards] for t in races.tried]
    assert len({tuple(f) for f in first}) == 24


def test_the_bound_stops_the_exploration_and_says_so():
    races = ms.check_races(gather_any, ranks=5, max_orders=5)
    assert len(races.tried) == 5 and not races.exhausted
    assert "max_orders = 5" in races.report()
    with pytest.raises(ValueError, match="max_orders"):
        ms.check_races(gather_any, ranks=3, max_orders=0)


def test_a_sender_caused_by_the_receive_is_no_alternative():
    """Rank 2 sends only after rank 0 told it to, which it does after its wildcard
    receive: rank 2's message cannot have matched that receive (happens-before)."""
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)
            yield mpi.send(count=1, datatype=ms.INT, dest=2, tag=1)
            yield mpi.recv(count=1, datatype=ms.INT, source=ms.ANY_SOURCE, tag=0)
        elif mpi.rank == 1:
            yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
        else:
            yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=1)
            yield mpi.send(count=1, datatype=ms.INT, dest=0, tag=0)
    races = ms.check_races(program, ranks=3)
    assert races.alternatives == 0 and len(races.tried) == 1 and not races.racy


def test_check_races_on_the_command_line(tmp_path, capsys):
    scenario = tmp_path / "race.yaml"
    scenario.write_text(
        "name: race\nranks: 3\nprograms:\n"
        "  - ranks: 0\n    ops:\n"
        "      - recv: {source: ANY_SOURCE, tag: 0, count: 1, datatype: INT}\n"
        "      - recv: {source: 2, tag: 0, count: 1, datatype: INT}\n"
        "  - ranks: [1, 2]\n    ops:\n"
        "      - send: {dest: 0, tag: 0, count: 1, datatype: INT}\n")
    assert main(["check", "--races", str(scenario)]) == 8
    out = capsys.readouterr().out
    assert "RACY" in out and "programs[0].ops[0]" in out
    assert main(["check", "--races", "--max-orders", "1", "--json", str(scenario)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["orders_tried"] == 1 and d["exhausted"] is False and d["racy"] is False
    assert main(["check", "--max-orders", "2", str(scenario)]) == 2


def test_thread_orders_are_explored_and_one_that_changes_the_result_is_a_race():
    """MPI 4.1 §11.6: calls from several threads interleave in an order the program does
    not fix. The exploration draws thread orders from seeds after the program as written
    and names the seed whose order changes what rank 1 returns."""
    races = ms.check_races(thread_senders, ranks=2, max_orders=8)
    assert races.racy and races.exit_code == 8
    a, b = races.differing
    assert (races.tried[a].seed, races.tried[a].result.returned) == (0, [None, 1])
    assert races.tried[b].seed > 0 and races.tried[b].result.returned == [None, 2]
    assert len(races.tried) <= 8 and not races.exhausted
    report = races.report()
    assert f"the threads' order of seed {races.tried[b].seed}" in report
    assert "returned [None, 2]" in report
    assert races.to_dict()["orders"][b]["thread_seed"] == races.tried[b].seed


def test_threads_whose_order_does_not_matter_are_race_free():
    def program(mpi):
        def send(mpi, tag):
            yield mpi.send(count=1, dest=1, tag=tag)

        if mpi.rank == 0:
            threads = [mpi.spawn_thread(send, mpi, tag) for tag in (1, 2)]
            yield from threads
            return None
        got = []
        for tag in (1, 2):
            status = yield mpi.recv(count=1, source=0, tag=tag)
            got.append(status.tag)
        return got

    races = ms.check_races(program, ranks=2, max_orders=6)
    assert not races.racy and len(races.tried) == 6
    assert all(t.result.returned == [None, [1, 2]] for t in races.tried)
    assert "5 thread order(s)" in races.report()
