"""Every blocked call carries a typed cause, read from what the transport recorded on its
request (effective mode and protocol), and the advice follows the cause (mpisim.mpi.causes)."""

from __future__ import annotations

import mpisim as ms
from mpisim.mpi.causes import ADVICE, CallDetail, Cause
from mpisim.runs.deadlock import send_cause


def _causes(result) -> dict[int, Cause]:
    assert result.outcome is ms.Outcome.DEADLOCK, result.outcome
    return {b.rank: b.cause for b in result.deadlock.blocked}


def _exchange(send: str, nbytes: int):
    def program(mpi):
        peer = 1 - mpi.rank
        yield getattr(mpi, send)(count=nbytes, datatype=ms.BYTE, dest=peer, tag=0)
        yield mpi.recv(count=nbytes, datatype=ms.BYTE, source=peer, tag=0)
    return program


def test_a_small_send_under_force_ssend_is_forced_synchronous_not_rendezvous():
    """3.5: check makes every send synchronous; a 10-byte MPI_Send blocked then is not
    said to have gone rendezvous, nor told to raise the eager limit (that would not help)."""
    result = ms.run(_exchange("send", 10), ranks=2, mpi={"force_ssend": True})
    assert set(_causes(result).values()) == {Cause.FORCED_SYNCHRONOUS}
    report = result.report()
    assert "went rendezvous" not in report and "larger eager limit" not in report
    assert "mpi.force_ssend" in report and ADVICE[Cause.FORCED_SYNCHRONOUS] in report


def test_check_reports_the_forced_cause():
    from mpisim.whatif import check_safe

    safety = check_safe(_exchange("send", 10), ranks=2)
    text = str(safety)
    assert "went rendezvous" not in text and "larger eager limit" not in text


def test_a_large_standard_send_is_rendezvous_and_the_advice_says_eager_limit():
    """3.4: a standard send may wait for the matching receive (here: over the eager limit)."""
    result = ms.run(_exchange("send", 100_000), ranks=2)
    assert set(_causes(result).values()) == {Cause.RENDEZVOUS}
    assert "went rendezvous" in result.report() and ADVICE[Cause.RENDEZVOUS] in result.report()


def test_a_small_ssend_is_synchronous_whatever_its_protocol():
    """3.4: MPI_Ssend completes only once the matching receive has started."""
    result = ms.run(_exchange("ssend", 10), ranks=2)
    assert set(_causes(result).values()) == {Cause.SYNCHRONOUS}
    assert "went rendezvous" not in result.report()


def test_receives_never_matched_and_any_source():
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.recv(count=1, datatype=ms.BYTE, source=1, tag=5)
        else:
            yield mpi.recv(count=1, datatype=ms.BYTE, source=ms.ANY_SOURCE, tag=5)
    assert _causes(ms.run(program, ranks=2)) == {0: Cause.RECEIVE, 1: Cause.ANY_SOURCE}


def _bsend_then(after: str):
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.buffer_attach(1000)
            yield mpi.bsend(count=8, datatype=ms.BYTE, dest=1, tag=0, )
            if after == "detach":
                yield mpi.buffer_detach()
            elif after == "flush":
                yield mpi.buffer_flush()
        else:
            yield mpi.recv(count=1, datatype=ms.BYTE, source=0, tag=7)
    return program


def test_detach_flush_and_finalize_wait_for_the_buffered_messages():
    """3.6: detach (and MPI 4.1's flush, and the end of a program) block until the
    messages in the buffer have been sent; here they are never received (eager limit 0)."""
    rendezvous = {"eager_limit": 0}
    for after, cause in (("detach", Cause.DETACH), ("flush", Cause.FLUSH),
                         ("end", Cause.FINALIZE)):
        result = ms.run(_bsend_then(after), ranks=2, network=rendezvous)
        assert _causes(result) == {0: cause, 1: Cause.RECEIVE}, after


def test_barrier_collective_and_requests():
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.barrier()
        elif mpi.rank == 1:
            yield mpi.bcast(count=1, datatype=ms.BYTE, root=2)
        else:
            req = yield mpi.irecv(count=1, datatype=ms.BYTE, source=0, tag=3)
            yield mpi.waitall([req])
    causes = _causes(ms.run(program, ranks=3))
    assert causes == {0: Cause.BARRIER, 1: Cause.COLLECTIVE, 2: Cause.REQUESTS}


def test_a_send_held_by_the_receivers_progress_is_eager_cells():
    """The mpich profile: 64 cells per pair; the 65th small send to a computing receiver
    waits for it to enter MPI (what the transport records on the request)."""
    def program(mpi):
        if mpi.rank == 0:
            for _ in range(65):
                yield mpi.send(count=8, datatype=ms.BYTE, dest=1, tag=0)
        else:
            yield mpi.compute("1ms")
            for _ in range(65):
                yield mpi.recv(count=8, datatype=ms.BYTE, source=0, tag=0)
    sim = ms.Simulation(program, ranks=2, mpi={"profile": "mpich"})
    sim.run(until="0.5ms")
    detail = sim.handles[0]._detail
    assert isinstance(detail, CallDetail)
    assert (detail.peer, detail.tag, detail.nbytes) == (1, 0, 8)
    req = detail.obj
    assert req.mode == "standard" and req.protocol == "eager"
    assert send_cause(req) is Cause.EAGER_CELLS
    assert sim.run().outcome is ms.Outcome.COMPLETED


def test_a_livelock_is_polling():
    def program(mpi):
        if mpi.rank == 0:
            while True:
                flag, _ = yield mpi.iprobe(source=1, tag=0)
                if flag:
                    break
    result = ms.run(program, ranks=2)
    assert _causes(result) == {0: Cause.POLLING, 1: Cause.COLLECTIVE}  # 1 in MPI_Finalize


def test_every_call_leaves_a_call_detail_record():
    """Whatever call a rank is in, what it works on is a CallDetail (named fields), never a
    positional tuple: stepped through point-to-point, persistent, collective, communicator
    and buffer calls."""
    def program(mpi):
        peer = 1 - mpi.rank
        yield mpi.buffer_attach("4 KiB")
        yield mpi.bsend(count=8, datatype=ms.BYTE, dest=peer, tag=1)
        yield mpi.sendrecv(sendcount=4, sendtype=ms.BYTE, dest=peer, sendtag=2, recvcount=4,
                           recvtype=ms.BYTE, source=peer, recvtag=2)
        yield mpi.iprobe(source=peer, tag=1)
        req = yield mpi.recv_init(count=8, datatype=ms.BYTE, source=peer, tag=1)
        yield mpi.start(req)
        yield mpi.wait(req)
        comm = yield mpi.comm_dup()
        yield mpi.allreduce(1, comm=comm)
        yield mpi.compute("1us")
        yield mpi.buffer_detach()

    sim = ms.Simulation(program, ranks=2)
    seen = set()
    while sim.step():
        for h in sim.handles:
            assert type(h._detail) is CallDetail
            seen.add(h._call)
    assert {"MPI_Sendrecv", "MPI_Comm_dup", "MPI_Allreduce"} <= seen
    assert sim.result().outcome is ms.Outcome.COMPLETED
