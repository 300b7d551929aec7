"""Correctness findings of native programs: each rule found in an erroneous program and not
in its corrected twin, carried by the Result, its JSON and its report."""

from __future__ import annotations

import json

import numpy as np

import mpisim as ms


def rules(program, ranks=2, **kw):
    result = ms.run(program, ranks=ranks, **kw)
    return result, [f.rule for f in result.findings]


def typed_pair(recv_type):
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=4, datatype=ms.INT, dest=1)
        else:
            yield mpi.recv(count=4, datatype=recv_type, source=0)
    return program


def test_int_received_as_float_breaks_type_matching_3_3_1():
    """MPI 4.1 §3.3.1: same size, different basic types: erroneous, the run completes."""
    result, found = rules(typed_pair(ms.FLOAT))
    assert result.outcome is ms.Outcome.COMPLETED
    assert found == ["type-mismatch"]
    f = result.findings[0]
    assert (f.section, f.kind) == ("3.3.1", "error")
    assert [(c.rank, c.call) for c in f.calls] == [(0, "MPI_Send"), (1, "MPI_Recv")]
    assert all(c.where and "test_findings.py" in c.where for c in f.calls)
    assert rules(typed_pair(ms.INT))[1] == []


def test_derived_type_whose_signature_is_a_prefix_matches_3_3_1():
    """§3.3.1: a contiguous type of 4 INT is received as 4 INT (signatures match)."""
    four = ms.INT.create_contiguous(4).commit()

    def program(mpi, recv):
        if mpi.rank == 0:
            yield mpi.send(count=1, datatype=four, dest=1)
        else:
            yield mpi.recv(count=4, datatype=recv, source=0)
    assert rules(program, params={"recv": ms.INT})[1] == []
    assert rules(program, params={"recv": ms.FLOAT})[1] == ["type-mismatch"]


def test_untyped_sends_are_not_checked():
    """A send or receive with no datatype (size only) has no signature to compare."""
    def program(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=16, dest=1)
        else:
            yield mpi.recv(count=4, datatype=ms.FLOAT, source=0)
    assert rules(program)[1] == []


def missing_wait(wait):
    def program(mpi):
        if mpi.rank == 0:
            req = yield mpi.isend(count=1, datatype=ms.INT, dest=1)
            if wait:
                yield mpi.wait(req)
        else:
            yield mpi.recv(count=1, datatype=ms.INT, source=0)
    return program


def test_request_never_waited_is_an_error_at_finalize_3_7_3():
    """MPI 4.1 §3.7.3 / §11.2.2: every request completed or freed before MPI_Finalize."""
    result, found = rules(missing_wait(False))
    assert found == ["request-not-completed"]
    assert result.findings[0].calls[0].call == "MPI_Isend"
    assert rules(missing_wait(True))[1] == []


def test_objects_never_freed_are_leaks_not_errors():
    def program(mpi, free):
        comm = yield mpi.comm_dup()
        group = mpi.comm_group()
        req = yield mpi.recv_init(count=1, datatype=ms.INT, source=mpi.rank)
        win = yield mpi.win_allocate(16)
        if free:
            yield mpi.comm_free(comm)
            mpi.group_free(group)
            yield mpi.request_free(req)
            yield mpi.win_free(win)
    result, found = rules(program, params={"free": False})
    assert sorted(set(found)) == ["leak-comm", "leak-group", "leak-request", "leak-window"]
    assert {f.kind for f in result.findings} == {"leak"} and not result.erroneous
    assert rules(program, params={"free": True})[1] == []


def test_freeing_an_active_nonblocking_collective_request_is_erroneous_6_12():
    def program(mpi, free):
        req = yield mpi.ibarrier()
        if free and mpi.rank == 0:
            yield mpi.request_free(req)
        else:
            yield mpi.wait(req)
    assert "request-active-free" in rules(program, params={"free": True})[1]
    assert rules(program, params={"free": False})[1] == []


def test_starting_an_active_persistent_request_is_erroneous_3_9():
    def program(mpi, again):
        req = yield mpi.recv_init(count=1, datatype=ms.INT, source=mpi.rank)
        yield mpi.start(req)
        if again:
            yield mpi.start(req)
        yield mpi.send(count=1, datatype=ms.INT, dest=mpi.rank)
        yield mpi.wait(req)
        yield mpi.request_free(req)
    result, found = rules(program, ranks=1, params={"again": True})
    assert result.outcome is ms.Outcome.ERROR and found == ["request-active-reuse"]
    assert rules(program, ranks=1, params={"again": False})[1] == []


def collective(root_of):
    def program(mpi):
        yield mpi.bcast(count=1, datatype=ms.INT, root=root_of(mpi.rank))
    return program


def test_mismatched_collective_roots_are_findings_6_1():
    """MPI 4.1 §6.1: every member names the same root."""
    result, found = rules(collective(lambda r: r))
    assert found == ["collective-root"]
    assert sorted(c.rank for c in result.findings[0].calls) == [0, 1]
    assert rules(collective(lambda r: 0))[1] == []


def test_ops_differing_across_ranks_are_findings_6_9_1():
    def program(mpi, same):
        op = ms.SUM if same or mpi.rank == 0 else ms.MAX
        yield mpi.allreduce(np.ones(1), op=op)
    assert "collective-op" in rules(program, params={"same": False})[1]
    assert rules(program, params={"same": True})[1] == []


def test_buffer_of_a_pending_isend_changed_before_its_wait_3_7_2():
    def program(mpi, touch):
        data = np.arange(4, dtype=np.int32)
        if mpi.rank == 0:
            req = yield mpi.isend(data, dest=1)
            if touch:
                data[0] = 7
            yield mpi.wait(req)
        else:
            yield mpi.recv(data, source=0)
    result, found = rules(program, params={"touch": True})
    assert found == ["buffer-modified"]
    assert [c.call for c in result.findings[0].calls] == ["MPI_Isend", "MPI_Wait"]
    assert rules(program, params={"touch": False})[1] == []


def test_a_persistent_send_buffer_changed_between_its_start_and_its_wait_3_9_3_7_2():
    """§3.9: a started persistent send is pending as an MPI_Isend is; the program writes its
    buffer before the wait in the second round only (touch), or between a wait and the next
    start (legal: the buffer is the program's then)."""
    def program(mpi, touch):
        data = np.arange(4, dtype=np.int32)
        if mpi.rank == 0:
            req = yield mpi.send_init(data, dest=1)
            for i in range(3):
                yield mpi.start(req)
                if touch and i == 1:
                    data[0] = 7
                yield mpi.wait(req)
                data[1] = i  # (after the wait: allowed)
            yield mpi.request_free(req)
        else:
            req = yield mpi.recv_init(data, source=0)
            for _ in range(3):
                yield mpi.start(req)
                yield mpi.wait(req)
                data[2] = 99  # (the received bytes changed after the wait: allowed)
            yield mpi.request_free(req)
    result, found = rules(program, params={"touch": True})
    assert found == ["buffer-modified"]
    assert [c.call for c in result.findings[0].calls] == ["MPI_Send_init", "MPI_Wait"]
    assert "changed the send buffer" in result.findings[0].message
    assert rules(program, params={"touch": False})[1] == []


def test_a_nonblocking_collectives_send_buffer_changed_before_its_wait_6_12():
    """§6.12: a nonblocking collective's buffers are the library's until it completes."""
    def program(mpi, touch):
        data = np.arange(4, dtype=np.float64)
        req = yield mpi.iallreduce(data)
        if touch and mpi.rank == 1:
            data[2] = -1.0
        yield mpi.wait(req)
        data[3] = 0.0  # (after the wait: allowed)
    result, found = rules(program, params={"touch": True})
    assert found == ["buffer-modified"]
    f = result.findings[0]
    assert [(c.rank, c.call) for c in f.calls] == [(1, "MPI_Iallreduce"), (1, "MPI_Wait")]
    assert "changed the send buffer of its MPI_Iallreduce" in f.message
    assert rules(program, params={"touch": False})[1] == []


def test_a_broadcast_roots_buffer_changed_before_its_wait_6_12_and_not_elsewhere():
    """§6.12: MPI_Ibcast's buffer is the root's send buffer (watched) and the others'
    receive buffer, written by the broadcast itself (never a finding)."""
    def program(mpi, touch):
        data = np.arange(4, dtype=np.float64) if mpi.rank == 0 else np.zeros(4)
        req = yield mpi.ibcast(data, root=0)
        if touch and mpi.rank == 0:
            data[0] = -1.0
        yield mpi.wait(req)
    result, found = rules(program, ranks=3, params={"touch": True})
    assert found == ["buffer-modified"]
    assert [(c.rank, c.call) for c in result.findings[0].calls] == [
        (0, "MPI_Ibcast"), (0, "MPI_Wait")]
    assert rules(program, ranks=3, params={"touch": False})[1] == []


def test_rma_epoch_left_open_at_finalize_12_5():
    def program(mpi, close):
        win = yield mpi.win_allocate(16)
        yield mpi.win_fence(0, win)
        if mpi.rank == 0:
            yield mpi.put(np.zeros(2, dtype=np.int32), target=1, win=win)
        if close:
            yield mpi.win_fence(0, win)
            yield mpi.win_free(win)
    assert "rma-epoch-open" in rules(program, params={"close": False})[1]
    assert rules(program, params={"close": True})[1] == []


def test_rma_conflict_is_a_finding_12_7():
    def program(mpi, conflict):
        win = yield mpi.win_allocate(16)
        yield mpi.win_fence(0, win)
        if mpi.rank in (0, 1):
            disp = 0 if conflict else 8 * mpi.rank
            yield mpi.put(np.full(2, mpi.rank, dtype=np.int32), target=2, target_disp=disp,
                          win=win)
        yield mpi.win_fence(0, win)
        yield mpi.win_free(win)
    assert rules(program, ranks=3, params={"conflict": True})[1] == ["rma-conflict"]
    assert rules(program, ranks=3, params={"conflict": False})[1] == []


def test_invalid_rank_is_reported_with_its_error_class():
    def program(mpi, dest):
        if mpi.rank == 0:
            yield mpi.send(count=1, datatype=ms.INT, dest=dest)
        else:
            yield mpi.recv(count=1, datatype=ms.INT, source=0)
    result, found = rules(program, params={"dest": 5})
    assert result.error.error_class == "MPI_ERR_RANK" and found == ["invalid-argument"]
    assert rules(program, params={"dest": 1})[1] == []


def test_findings_are_in_the_json_and_the_report():
    result = ms.run(typed_pair(ms.FLOAT), ranks=2)
    d = json.loads(result.to_json())
    assert d["findings"][0]["rule"] == "type-mismatch"
    assert d["findings"][0]["calls"][1]["call"] == "MPI_Recv"
    text = result.report()
    assert "correctness findings (1 error)" in text and "[type-mismatch, MPI 4.1 §3.3.1]" in text
