"""Messages never received. MPI 4.1 §11.2.2: before MPI_Finalize a process must execute the
calls that complete the communications other processes started with it, so a program whose
run completes while a message was never received is erroneous: the outcome stays COMPLETED
and the report, the JSON and the plots warn, naming each message and its send's place;
``run --strict`` exits 7."""

from __future__ import annotations

import json
import textwrap

import mpisim as ms
from mpisim.cli.main import main
from mpisim.plot import plot_occupancy, plot_timeline
from mpisim.scenario import load as load_scenario

REPLY_TWICE = textwrap.dedent("""\
    name: reply-twice
    ranks: 2
    programs:
      - ranks: 0
        ops:
          - recv: {source: 1, count: 4, tag: 1}
          - send: {dest: 1, count: 8, tag: 2}
          - send: {dest: 1, count: 8, tag: 2}
      - ranks: 1
        ops:
          - send: {dest: 0, count: 4, tag: 1}
          - recv: {source: 0, count: 8, tag: 2}
    """)


def server(mpi):
    """A server that replies twice to a worker that receives once (a bsend, then a send
    with another tag)."""
    if mpi.rank == 0:
        yield mpi.buffer_attach(1000)
        yield mpi.recv(count=4, source=1)
        yield mpi.bsend(count=16, dest=1, tag=5)
        yield mpi.send(count=8, dest=1, tag=6)
    else:
        yield mpi.send(count=4, dest=0)
        yield mpi.recv(count=16, source=0, tag=5)


def test_a_reply_nobody_receives_is_named_with_its_place(tmp_path, capsys):
    path = tmp_path / "twice.yaml"
    path.write_text(REPLY_TWICE)
    result = load_scenario(path).run()
    assert result.outcome is ms.Outcome.COMPLETED and result.exit_code == 0
    assert result.unreceived == [{"src": 0, "dst": 1, "tag": 2, "bytes": 8,
                                  "call": "MPI_Send", "where": "programs[0].ops[2] (line 8)"}]
    report = result.report()
    assert "never received" in report and "§11.2.2" in report
    assert "rank 0 -> rank 1, tag 2, 8 B: MPI_Send at programs[0].ops[2] (line 8)" in report
    d = json.loads(result.to_json())
    assert d["unreceived"] == result.unreceived and "never received" in d["warnings"][0]
    assert main(["run", str(path), "-q"]) == 0
    assert main(["run", str(path), "--strict", "-q"]) == 7
    assert "never received" in capsys.readouterr().err


def test_python_sends_are_placed_by_file_and_line():
    result = ms.run(server, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED
    (lost,) = result.unreceived
    line = server.__code__.co_firstlineno + 7
    assert (lost["tag"], lost["call"]) == (6, "MPI_Send")
    assert lost["where"] == f"test_unreceived.py:{line} (server)"


def test_the_plots_warn():
    result = ms.run(server, ranks=2)
    occupancy = plot_occupancy(result)
    assert "1 message(s) never received (0->1 tag 6)" in occupancy.get_suptitle()
    timeline = plot_timeline(result)
    assert "never received" in timeline.axes[0].get_title()


def exchange(mpi):
    yield mpi.send(count=8, dest=1 - mpi.rank)
    yield mpi.recv(count=8, source=1 - mpi.rank)


def test_a_correct_program_has_no_warning_and_a_deadlock_none_either():
    result = ms.run(exchange, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.unreceived == [] and result.warnings == []
    stuck = ms.run(lambda mpi: (yield mpi.recv(count=8, source=1 - mpi.rank)), ranks=2)
    assert stuck.outcome is ms.Outcome.DEADLOCK and stuck.unreceived == []
