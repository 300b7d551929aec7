"""MPI_Request_free of an active request (MPI 4.1 §3.7.3, §6.12): the operation still
completes, but the program can never learn when; a finding says so, a warning for a send
and an error for a receive ("an active receive request should never be freed")."""

from __future__ import annotations

import mpisim as ms


def findings(program, ranks=2):
    result = ms.run(program, ranks=ranks, network={"eager_limit": 64})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return {f.rule: f for f in result.findings}, result


def test_3_7_3_freeing_an_active_send_request_is_a_warning_and_the_send_still_completes():
    def program(mpi):
        if mpi.rank == 0:
            req = yield mpi.isend(count=1000, dest=1, tag=1)  # rendezvous: not yet matched
            yield mpi.request_free(req)
            yield mpi.barrier()
        else:
            yield mpi.barrier()
            status = yield mpi.recv(count=1000, source=0, tag=1)
            return status.count

    found, result = findings(program)
    assert result.returned[1] == 1000  # the freed send completed all the same
    warning = found["request-free-active-send"]
    assert warning.kind == "warning" and warning.section == "3.7.3"
    assert [c.call for c in warning.calls] == ["MPI_Isend", "MPI_Request_free"]
    assert "test_request_free.py" in warning.calls[1].where
    assert not result.erroneous


def test_3_7_3_freeing_an_active_receive_request_is_an_error():
    def program(mpi):
        if mpi.rank == 1:
            req = yield mpi.irecv(count=10, source=0, tag=2)
            yield mpi.request_free(req)
        yield mpi.barrier()
        if mpi.rank == 0:
            yield mpi.send(count=10, dest=1, tag=2)
        yield mpi.barrier()

    found, result = findings(program)
    error = found["request-free-active-recv"]
    assert error.kind == "error" and result.erroneous
    assert [c.call for c in error.calls] == ["MPI_Irecv", "MPI_Request_free"]


def test_freeing_a_completed_request_or_an_inactive_persistent_one_is_no_finding():
    def program(mpi):
        peer = 1 - mpi.rank
        req = yield mpi.isend(count=4, dest=peer, tag=3)  # eager: complete at once
        yield mpi.recv(count=4, source=peer, tag=3)
        yield mpi.compute(1e-6)
        yield mpi.request_free(req)
        persistent = yield mpi.send_init(count=4, dest=peer, tag=4)
        rreq = yield mpi.irecv(count=4, source=peer, tag=4)
        yield mpi.start(persistent)
        yield mpi.waitall([persistent, rreq])
        yield mpi.request_free(persistent)  # inactive after its wait: the usual way

    found, _ = findings(program)
    assert not {"request-free-active-send", "request-free-active-recv"} & set(found)
