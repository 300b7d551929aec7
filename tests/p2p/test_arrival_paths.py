"""The two arrival paths of an envelope give the same run (MPI 4.1 §3.5, §3.4).

An envelope that arrives in its turn is matched by ``Transport._arrive`` itself (the body of
``_envelope``, inlined once per message); one that arrives out of its turn, or is polled
later by the receiver's progress, goes through ``_sequenced`` and ``_envelope``. Most runs
only reach the inlined copy, so a rule dropped from ``_envelope`` alone (the ready send's
check of §3.4, say) would pass the tests of whole runs. Here every arrival is sent through
the general path instead, and each program's result, trace and error must be the same as
with the inlined one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mpisim as ms
from mpisim.p2p.protocols import Transport
from mpisim.scenario import load

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _general_arrive(self: Transport, ev: Any) -> None:
    """``_arrive`` with its in-turn shortcut taken out: the progress hold as in ``_arrive``,
    then every envelope through ``_sequenced`` (which matches with ``_envelope``)."""
    msg = ev._value
    if msg.awaits:
        progress = self.progress
        if progress.waits_held(msg.dst):
            progress.hold(msg)
            return
        self._taken(msg)
    self._sequenced(msg)


def _rsend(mpi: Any, late: bool = True) -> Any:
    """§3.4: a ready send before its receive is posted is erroneous (the late case)."""
    if mpi.rank == 0:
        yield mpi.compute("0us" if late else "5us")
        yield mpi.rsend(count=4, dest=1)
    else:
        yield mpi.compute("10us" if late else "0us")
        yield mpi.recv(count=4, source=0)


def _irsend_among_others(mpi: Any, posted: bool = True) -> Any:
    """Standard sends that wait unexpected, a probe woken by one, and an irsend last."""
    if mpi.rank == 0:
        reqs = []
        for tag in (1, 2):
            reqs.append((yield mpi.isend(count=8, dest=1, tag=tag)))
        reqs.append((yield mpi.irsend(count=4, dest=1, tag=3)))
        yield mpi.waitall(reqs)
    else:
        ready = yield mpi.irecv(count=4, source=0, tag=3) if posted else mpi.compute("5us")
        status = yield mpi.probe(source=ms.ANY_SOURCE, tag=ms.ANY_TAG)
        yield mpi.recv(count=8, source=status.source, tag=status.tag)
        yield mpi.recv(count=8, source=0, tag=2 if status.tag == 1 else 1)
        if posted:
            yield mpi.wait(ready)
        else:
            yield mpi.recv(count=4, source=0, tag=3)


def _fan_in(mpi: Any) -> Any:
    """Every rank sends to 0 twice; rank 0 receives from any source (arrival order)."""
    if mpi.rank == 0:
        for _ in range(2 * (mpi.size - 1)):
            yield mpi.recv(count=16, source=ms.ANY_SOURCE)
    else:
        for tag in (0, 1):
            yield mpi.send(count=16, dest=0, tag=tag)


PROGRAMS = {
    "rsend-late": (_rsend, {"late": True}),
    "rsend-in-time": (_rsend, {"late": False}),
    "irsend-posted": (_irsend_among_others, {"posted": True}),
    "irsend-unposted": (_irsend_among_others, {"posted": False}),
    "fan-in": (_fan_in, {}),
}


def _seen(result: Any) -> tuple[str, str]:
    """What a user sees of a run: its result JSON and its trace's message and call rows (as
    JSON text: a time not reached is NaN, which is never equal to itself)."""
    return result.to_json(), json.dumps([result.trace.messages.tolist(),
                                         result.trace.calls.tolist()])


def _both(run: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    fast = run()
    with monkeypatch.context() as m:
        m.setattr(Transport, "_arrive", _general_arrive)
        general = run()
    return fast, general


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_general_arrival_path_gives_the_inlined_paths_run(name, monkeypatch):
    program, params = PROGRAMS[name]
    fast, general = _both(lambda: ms.run(program, ranks=4 if name == "fan-in" else 2,
                                         params=params), monkeypatch)
    assert _seen(general) == _seen(fast)


def test_3_4_a_ready_send_before_its_receive_is_an_error_on_either_path(monkeypatch):
    """§3.4: the ready send's check is made however its envelope arrives."""
    for result in _both(lambda: ms.run(_rsend, ranks=2), monkeypatch):
        assert result.outcome is ms.Outcome.ERROR
        assert (result.error.call, result.error.error_class) == ("MPI_Rsend", "MPI_ERR_OTHER")
        assert "before a matching receive was posted" in result.error.message
    for result in _both(lambda: ms.run(_irsend_among_others, ranks=2,
                                       params={"posted": False}), monkeypatch):
        assert result.outcome is ms.Outcome.ERROR, "an irsend nobody posted for"


@pytest.mark.parametrize("name", ["rsend-before-recv.yaml", "mpich-eager-cells-bsend.yaml",
                                  "anysource-fan-in-reply.yaml"])
def test_shipped_scenarios_run_the_same_on_the_general_arrival_path(name, monkeypatch):
    fast, general = _both(lambda: load(SCENARIOS / name).run(), monkeypatch)
    assert _seen(general) == _seen(fast)
