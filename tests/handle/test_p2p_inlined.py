"""The handle's inline choice of a bsend's buffer against the function it copies (MPI 4.1
§3.6): a bsend on the default communicator takes the process's buffer without calling
``_buffered_for`` when that function's answer is known to be the process's (no world
communicator of its own, a policy other than "communicator"). Under every buffer policy,
and with the buffer attached to the process or to MPI_COMM_WORLD, the buffer each bsend
uses must be the one ``_buffered_for`` answers, and a bsend naming MPI_COMM_WORLD (which
always asks ``_buffered_for``) must give the same run as one that leaves ``comm`` out."""

from __future__ import annotations

import json
from typing import Any

import pytest

import mpisim as ms
from mpisim.buffered.mode import BufferedMode
from mpisim.profiles.library import BUFFER_POLICIES


def _program(mpi: Any, attach: str, named: bool, asked: list) -> Any:
    """Each rank bsends twice to the next and receives twice from the previous; ``asked``
    gets ``_buffered_for``'s answer after each bsend."""
    if attach == "process":
        yield mpi.buffer_attach(4096)
    elif attach == "world":
        yield mpi.comm_attach_buffer(4096, mpi.comm_world)
    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    for tag in (0, 1):
        try:
            yield mpi.bsend(count=64, dest=right, tag=tag,
                            comm=mpi.comm_world if named else None)
        finally:  # asked after: its first call under "communicator" makes the buffer, which
            # the bsend must have made already (an MPI_ERR_BUFFER goes on to end the run)
            asked.append(mpi._buffered_for(mpi.comm_world if named else None))
    for tag in (0, 1):
        yield mpi.recv(count=64, source=left, tag=tag)


def _run(policy: str, attach: str, named: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list, list]:
    asked: list = []
    used: list = []
    bsend = BufferedMode.bsend

    def spy(self: BufferedMode, *args: Any, **kwargs: Any) -> float:
        used.append(self)
        return bsend(self, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(BufferedMode, "bsend", spy)
        result = ms.run(lambda mpi: _program(mpi, attach, named, asked), ranks=3,
                        mpi={"buffer_policy": policy}, name="bsends")
    return result, asked, used


@pytest.mark.parametrize("attach", ["process", "world"])
@pytest.mark.parametrize("policy", BUFFER_POLICIES)
def test_3_6_the_inline_buffer_choice_is_buffered_fors_answer(policy, attach, monkeypatch):
    result, asked, used = _run(policy, attach, False, monkeypatch)
    # "process" ignores a communicator's attach: no buffer, the first bsends fail (3.6)
    failed = policy == "process" and attach == "world"
    assert result.outcome is (ms.Outcome.ERROR if failed else ms.Outcome.COMPLETED)
    assert len(used) == (3 if failed else 6)
    assert [id(b) for b in used] == [id(b) for b in asked]


@pytest.mark.parametrize("attach", ["process", "world"])
@pytest.mark.parametrize("policy", BUFFER_POLICIES)
def test_a_bsend_on_comm_world_named_or_left_out_gives_the_same_run(policy, attach,
                                                                     monkeypatch):
    """comm=None takes the inline choice, comm=MPI_COMM_WORLD the function: same run."""
    left_out = _run(policy, attach, False, monkeypatch)[0]
    named = _run(policy, attach, True, monkeypatch)[0]
    assert named.to_json() == left_out.to_json()
    assert json.dumps(named.trace.buffer.tolist()) == json.dumps(left_out.trace.buffer.tolist())
