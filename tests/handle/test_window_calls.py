"""The handle's one-sided calls that no other test names, each against MPI 4.1 §12: the
request-based accumulates, the flushes of every target, MPI_Win_sync, and a window's name
and hints (tests/rma holds the chapter's rules; these hold each call)."""

from __future__ import annotations

import numpy as np

import mpisim as ms

NET = {"latency": 1e-6, "bandwidth": 1e10}


def run(program, ranks=2):
    result = ms.run(program, ranks=ranks, network=NET)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result.returned


def locked_all(body, size=4):
    """A program: a window of ``size`` doubles per rank, ``body(mpi, win)`` inside a
    lock_all epoch, then a barrier; each rank's memory and body's value returned."""
    def program(mpi):
        mem = np.zeros(size)
        win = yield mpi.win_create(mem, disp_unit=8)
        yield mpi.win_lock_all(win=win)
        out = yield from body(mpi, win)
        yield mpi.win_unlock_all(win=win)
        yield mpi.barrier()
        yield mpi.win_free(win)
        return mem.tolist(), out
    return program


def test_raccumulate_adds_at_the_target_and_its_request_completes_locally_12_3_5():
    def body(mpi, win):
        req = yield mpi.raccumulate(np.array([1.0, 2.0]), target=0, target_disp=1,
                                    op=ms.SUM, win=win)
        yield mpi.wait(req)  # local completion: the origin buffer may be reused
        yield mpi.win_flush_all(win=win)  # remote completion at every target (§12.5.4)
        return None

    # both ranks add [1, 2] at rank 0's displacement 1: element-wise atomic sums (§12.7)
    assert run(locked_all(body))[0][0] == [0.0, 2.0, 4.0, 0.0]


def test_rget_accumulate_returns_the_value_before_the_operation_12_3_5():
    def body(mpi, win):
        result = np.full(1, -1.0)
        if mpi.rank == 1:
            req = yield mpi.rget_accumulate(np.array([5.0]), result=result, target=0,
                                            target_disp=2, op=ms.SUM, win=win)
            yield mpi.wait(req)
            req = yield mpi.rget_accumulate(np.array([1.0]), result=result, target=0,
                                            target_disp=2, op=ms.SUM, win=win)
            yield mpi.wait(req)
        yield mpi.win_flush_local_all(win=win)
        return result.tolist()

    out = run(locked_all(body))
    assert out[0][0] == [0.0, 0.0, 6.0, 0.0]
    assert out[1][1] == [5.0]  # the second saw the first's sum: 0 + 5


def test_win_sync_returns_in_the_unified_model_12_5_4():
    """One memory for public and private copies (MPI_WIN_UNIFIED): a local store before
    MPI_Win_sync is what a later get sees."""
    def program(mpi):
        mem = np.zeros(2)
        win = yield mpi.win_create(mem, disp_unit=8)
        yield mpi.win_lock_all(win=win)
        if mpi.rank == 0:
            mem[1] = 42.0
            yield mpi.win_sync(win=win)
        yield mpi.barrier()
        got = np.zeros(1)
        if mpi.rank == 1:
            yield mpi.get(got, target=0, target_disp=1, win=win)
            yield mpi.win_flush(0, win=win)
        yield mpi.win_unlock_all(win=win)
        yield mpi.barrier()
        yield mpi.win_free(win)
        return got.tolist()

    assert run(program)[1] == [42.0]


def test_a_windows_name_and_hints_are_what_the_program_set_12_2_7():
    def program(mpi):
        win = yield mpi.win_allocate(64, disp_unit=8)
        unnamed = mpi.win_get_name(win)
        mpi.win_set_name(win, f"halo{mpi.rank}")
        named = mpi.win_get_name(win)
        info = mpi.info_create()
        mpi.info_set(info, "no_locks", "true")
        mpi.win_set_info(win, info)
        mpi.info_free(info)
        got = mpi.win_get_info(win)
        hints = {mpi.info_get_nthkey(got, k): mpi.info_get(got, mpi.info_get_nthkey(got, k))
                 for k in range(mpi.info_get_nkeys(got))}
        yield mpi.win_free(win)
        return unnamed, named, hints

    out = run(program)
    assert out[0][0] == "" and out[1][1] == "halo1"
    assert out[0][2] == {"no_locks": "true"}
