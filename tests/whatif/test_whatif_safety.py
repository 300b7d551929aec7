"""check_safe(): MPI 3.5 — a program is safe if it completes when every send is synchronous."""

from __future__ import annotations

import json

import pytest
from helpers.programs import buffered_exchange, exchange

import mpisim as ms
from mpisim.whatif import check_safe

SMALL = {"eager_limit": "64 KiB"}  # Example 3.10's messages go eagerly: it completes


def ordered(mpi, count=1000):
    """3.5: the safe exchange — rank 0 sends first, rank 1 receives first."""
    peer = 1 - mpi.rank
    if mpi.rank == 0:
        yield mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)
        yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)
    else:
        yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)
        yield mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)


def nonblocking(mpi, count=1000):
    """isend/irecv then waitall: needs no buffering, safe."""
    peer = 1 - mpi.rank
    s = yield mpi.isend(count=count, datatype=ms.REAL, dest=peer, tag=0)
    r = yield mpi.irecv(count=count, datatype=ms.REAL, source=peer, tag=0)
    yield mpi.waitall([s, r])


def overflowing(mpi):
    yield mpi.bsend(count=10, dest=1 - mpi.rank)
    yield mpi.recv(count=10, source=1 - mpi.rank)


EXAMPLE_YAML = """\
name: example-3.10
ranks: 2
params: {count: 1000}
network: {eager_limit: 64 KiB}
programs:
  - ranks: all
    ops:
      - send: {dest: 1 - rank, count: count, datatype: REAL, tag: 0}
      - recv: {source: 1 - rank, count: count, datatype: REAL, tag: 0}
"""


def test_example_3_10_completes_as_written_but_is_not_safe():
    """3.5: Example 3.10 relies on buffering; with synchronous sends both ranks block."""
    safety = check_safe(exchange, ranks=2, network=SMALL)
    assert not safety.safe
    assert safety.as_written.outcome is ms.Outcome.COMPLETED
    assert safety.synchronous.outcome is ms.Outcome.DEADLOCK
    assert "with every send synchronous" in safety.reason
    assert "rank 0 blocked in" in safety.reason and "rank 1 blocked in" in safety.reason
    assert "peer 1" in safety.reason and "cycle 0 -> 1 -> 0" in safety.reason
    assert safety.exit_code == 3


@pytest.mark.parametrize("program", [ordered, nonblocking])
def test_programs_that_need_no_buffering_are_safe(program):
    safety = check_safe(program, ranks=2, network=SMALL)
    assert safety.safe and safety.reason == "" and safety.exit_code == 0
    assert safety.synchronous.outcome is ms.Outcome.COMPLETED


def test_a_buffered_send_is_made_synchronous_too():
    """3.5 with 3.4: bsend completes only thanks to the attached buffer, so it is unsafe."""
    safety = check_safe(buffered_exchange, ranks=2)
    assert safety.as_written.outcome is ms.Outcome.COMPLETED
    assert safety.synchronous.outcome is ms.Outcome.DEADLOCK
    assert not safety.safe


def mixed(mpi, count=1000):
    """Rank 0 bsends (its attached buffer holds the message), rank 1 sends in standard mode,
    then both receive: rank 1's send waits only for rank 0's receive, which comes after a
    bsend that returns at once."""
    peer = 1 - mpi.rank
    if mpi.rank == 0:
        yield mpi.buffer_attach(mpi.pack_size(count, ms.REAL) + mpi.BSEND_OVERHEAD)
        yield mpi.bsend(count=count, datatype=ms.REAL, dest=peer, tag=0)
    else:
        yield mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)
    if mpi.rank == 0:
        yield mpi.buffer_detach()


def test_buffered_check_keeps_bsends_buffered():
    """3.6: a bsend uses the buffer the program attached; with buffered=True only the other
    modes are made synchronous. Example 3.10 with bsend on both ranks relies on nothing
    beyond its attached buffers (safe, where 3.5's literal check says not); with standard
    sends it relies on the eager protocol's system buffer (not safe, the send named)."""
    both = check_safe(buffered_exchange, ranks=2, buffered=True)
    assert both.safe and both.buffered and both.synchronous.outcome is ms.Outcome.COMPLETED
    assert "bsends buffered" in both.report()
    net = {"eager_limit": "64 KiB"}
    assert check_safe(mixed, ranks=2, network=net).safe is False
    assert check_safe(mixed, ranks=2, network=net, buffered=True).safe
    standard = check_safe(exchange, ranks=2, network=net, buffered=True)
    assert not standard.safe and standard.as_written.outcome is ms.Outcome.COMPLETED
    assert standard.synchronous.deadlock.blocked[0].call == "MPI_Ssend"
    assert "every non-buffered send synchronous" in standard.reason
    assert check_safe(ordered, ranks=2, buffered=True).safe


def test_a_program_that_fails_as_written_is_not_safe_and_says_why():
    safety = check_safe(overflowing, ranks=2)
    assert not safety.safe
    assert safety.reason.startswith("as written it does not complete: error: rank")
    assert "MPI_ERR_BUFFER" in safety.reason


def test_json_shape_is_the_cli_contract():
    safety = check_safe(exchange, ranks=2, network=SMALL)
    d = json.loads(json.dumps(safety.to_dict()))
    assert set(d) == {"safe", "buffered", "collectives", "as_written", "synchronous"}
    assert d["collectives"] == "synchronizing"  # MPI 4.1 §6.1, unless --collectives as-written
    assert d["safe"] is False
    assert d["as_written"] == json.loads(safety.as_written.to_json())
    assert d["synchronous"]["outcome"] == "deadlock"
    assert d["synchronous"]["deadlock"]["cycles"]


def test_a_scenario_file_and_its_locations(tmp_path):
    path = tmp_path / "example.yaml"
    path.write_text(EXAMPLE_YAML)
    safety = check_safe(path)
    assert not safety.safe
    assert "programs[0].ops[0]" in safety.reason
    report = safety.report()
    assert report.startswith("example-3.10: NOT SAFE")
    assert "\n  as written: completed\n  with every send synchronous" in report
    assert report.count("deadlock") == 1  # said once, with its blocked calls
