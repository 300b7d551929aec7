"""The ops a replay makes once per call shape (mpisim.recorded.replayer.shaped) do what each
call's own function does with its Call: a recording whose shapes repeat replays to the same
result, trace and divergences either way."""

from __future__ import annotations

import json

import pytest

import mpisim as ms
from mpisim.recorded import replay
from mpisim.recorded.replayer import p2p, program, shaped

STEPS = 6


def _log(rank: int, body: str) -> str:
    return (f"#mpisim-trace 1\n#rank {rank} 2\n#library test\n"
            "Init g=0 thread=0\n= 0 d=0\nT 1 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n"
            f"{body}Finalize g=0\n= 0 d=0\n")


def _step(me: int, k: int, tag_seen: int = 1) -> str:
    """One step of every completion form (MPI 4.1 §3.7.3 to §3.7.5), a reduction, a
    nonblocking barrier and an all-to-all: new request ids each step, as a recorder gives."""
    peer, a = 1 - me, 5 * k + 1
    b, c, d, e = a + 1, a + 2, a + 3, a + 4
    return (f"Irecv g=1000 src={peer} tag=1 comm=0 n=10 T=1\n= 0 d=10 r={a}\n"
            f"Irecv g=1000 src={peer} tag=2 comm=0 n=10 T=1\n= 0 d=10 r={b}\n"
            f"Isend g=1000 dest={peer} tag=1 comm=0 n=10 T=1\n= 0 d=10 r={c}\n"
            f"Isend g=1000 dest={peer} tag=2 comm=0 n=10 T=1\n= 0 d=10 r={d}\n"
            f"Testany g=10 r={a},{b}\n= 0 d=1 flag=0 index=-1\n"
            f"Waitany g=10 r={a},{b}\n= 0 d=5 index=0 st={peer}:{tag_seen}:80\n"
            f"Waitsome g=10 r={b},{c}\n= 0 d=5 done=0,1 st={peer}:2:80,-\n"
            f"Test g=10 r={d}\n= 0 d=1 flag=1 st=-\n"
            "Allreduce g=100 comm=0 n=1 T=1 op=SUM\n= 0 d=5\n"
            "Alltoall g=100 comm=0 n=2 T=1\n= 0 d=5\n"
            f"Ibarrier g=100 comm=0\n= 0 d=1 r={e}\n"
            f"Testall g=10 r={e}\n= 0 d=1 flag=0\n"
            f"Wait g=10 r={e}\n= 0 d=1 st=-\n")


def _recording(tmp_path, tag_seen: int = 1):
    path = tmp_path / "shapes.trace"
    path.write_text("".join(_log(me, "".join(_step(me, k, tag_seen) for k in range(STEPS)))
                            for me in (0, 1)))
    return path


def _run(path, monkeypatch, shaped_ops: bool, seen: list[str]):
    """The replay, with the ops made per shape (``shaped_ops``) or each call but the sends'
    and receives' (made per shape before there were others) from its Call."""
    def spy(r, handler, shape, res, index):
        if not shaped_ops and handler is not p2p.SEND and handler is not p2p.RECV:
            return None
        op = shaped.shaped_op(r, handler, shape, res, index)
        if op is not None:
            seen.append(shape.name)
        return op
    monkeypatch.setattr(program, "shaped_op", spy)
    program._TRACES.clear()
    return replay(path, trace=True)


@pytest.mark.parametrize("tag_seen", [1, 2], ids=["as-recorded", "diverged"])
def test_shaped_ops_replay_as_each_calls_own_function(tmp_path, monkeypatch, tag_seen):
    """Every completion form (a poll of MPI_Testany and MPI_Testall, MPI_Waitany, MPI_Waitsome,
    a successful MPI_Test, MPI_Wait; MPI 4.1 §3.7.3-§3.7.5), MPI_Allreduce, MPI_Alltoall and
    MPI_Ibarrier, made once per shape, give the result, the trace and the divergences (a
    Waitany recorded with another tag: 'diverged') of each call replayed from its Call."""
    path = _recording(tmp_path, tag_seen)
    fast: list[str] = []
    slow: list[str] = []
    a = _run(path, monkeypatch, True, fast)
    b = _run(path, monkeypatch, False, slow)
    assert a.outcome is ms.Outcome.COMPLETED, a.report()
    assert set(fast) >= {"Isend", "Irecv", "Testany", "Waitany", "Waitsome", "Test", "Testall",
                         "Wait", "Allreduce", "Alltoall", "Ibarrier"}, fast
    assert set(slow) == {"Isend", "Irecv"}, slow
    assert json.loads(a.to_json()) == json.loads(b.to_json())
    assert a.to_json() == b.to_json()
    assert a.warnings == b.warnings
    diverged = [w for w in a.warnings if "matched source" in w]
    assert bool(diverged) == (tag_seen == 2), a.warnings
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    a.to_chrome_trace(pa)
    b.to_chrome_trace(pb)
    assert pa.read_text() == pb.read_text()


def test_a_replay_forgets_the_requests_its_waits_completed(tmp_path):
    """MPI 4.1 §3.7.3: a completed request is MPI_REQUEST_NULL; the replay keeps only the
    requests in flight (here none at the end), however many steps made new ones."""
    path = _recording(tmp_path)
    kept: dict[int, int] = {}
    original = program.ReplayRank.end

    def end(self):
        kept[self.mpi.rank] = len(self.reqs)
        return original(self)
    program._TRACES.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(program.ReplayRank, "end", end)
        result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert kept == {0: 0, 1: 0}
