"""RMA operations move real data (MPI 4.1 §12.3): where they land (displacement x the
target's disp_unit, target count and datatype), what a get sees (the target's memory when
its request reaches it), what the accumulate family computes (§12.3.4, §12.3.6), and the
errors a bad operation raises at its call."""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms

NET = {"latency": 1e-6, "bandwidth": 1e10}


def run(program, ranks=2, **kw):
    result = ms.run(program, ranks=ranks, network=NET, **kw)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result.returned


def fenced(body, size=8, disp_unit=8, dtype=np.float64):
    """A program: a created window of ``size`` elements on every rank, ``body(mpi, win)``
    between two fences, each rank's memory returned."""
    def program(mpi):
        mem = np.zeros(size, dtype=dtype)
        win = yield mpi.win_create(mem, disp_unit=disp_unit)
        yield mpi.win_fence(win=win)
        out = yield from body(mpi, win)
        yield mpi.win_fence(win=win)
        yield mpi.win_free(win)
        return mem.tolist(), out
    return program


def test_a_put_lands_at_the_displacement_times_the_targets_disp_unit():
    def body(mpi, win):
        if mpi.rank == 0:
            yield mpi.put(np.array([7.0, 8.0]), target=1, target_disp=3, win=win)
        return None

    assert run(fenced(body))[1][0] == [0, 0, 0, 7, 8, 0, 0, 0]


def test_a_target_datatype_scatters_the_data_in_the_targets_memory():
    """§12.3: the target count and datatype describe the target's layout (a vector)."""
    every_other = ms.DOUBLE.create_vector(3, 1, 2).commit()

    def body(mpi, win):
        if mpi.rank == 0:
            yield mpi.put(np.array([1.0, 2.0, 3.0]), target=1, target_disp=1, target_count=1,
                          target_datatype=every_other, win=win)
        return None

    assert run(fenced(body))[1][0] == [0, 1, 0, 2, 0, 3, 0, 0]


def test_a_get_sees_the_targets_memory_when_its_request_arrives():
    """A get reads the target's memory at the instant its request is served: what the
    target wrote there itself before, not what it writes after."""
    def program(mpi):
        mem = np.zeros(1)
        win = yield mpi.win_create(mem)
        got = np.zeros(1)
        yield mpi.win_lock_all(win=win)
        if mpi.rank == 1:
            mem[0] = 1.0
            yield mpi.compute(10e-6)
            mem[0] = 2.0  # after the request came (at 2 us + 1 us)
        else:
            yield mpi.compute(1e-6)
            yield mpi.get(got, target=1, win=win)
            yield mpi.win_flush(1, win=win)
        yield mpi.win_unlock_all(win=win)
        yield mpi.barrier()
        yield mpi.win_free(win)
        return got[0]

    assert run(program)[0] == 1.0


@pytest.mark.parametrize("op, expected", [(ms.SUM, 3 + 10), (ms.PROD, 3 * 10), (ms.MAX, 10),
                                          (ms.MIN, 3), (ms.REPLACE, 10), (ms.BXOR, 3 ^ 10)])
def test_accumulate_applies_its_op_elementwise(op, expected):
    def body(mpi, win):
        if mpi.rank == 1:
            win.memory.view(np.int64)[:] = 3
        yield mpi.win_fence(win=win)
        if mpi.rank == 0:
            yield mpi.accumulate(np.full(8, 10, dtype=np.int64), target=1, op=op, win=win)
        return None

    assert run(fenced(body, dtype=np.int64))[1][0] == [expected] * 8


def test_accumulates_of_every_rank_add_up():
    """§12.7: concurrent accumulates with the same op: as if in some order (atomic per
    element)."""
    def body(mpi, win):
        yield mpi.accumulate(np.full(8, mpi.rank + 1.0), target=0, win=win)
        return None

    assert run(fenced(body), ranks=4)[0][0] == [10.0] * 8


def test_get_accumulate_returns_the_old_values_and_no_op_only_reads():
    def body(mpi, win):
        if mpi.rank == 1:
            win.memory.view(np.float64)[:2] = [5.0, 6.0]
        yield mpi.win_fence(win=win)
        old, seen = np.zeros(2), np.zeros(2)
        if mpi.rank == 0:
            yield mpi.get_accumulate(np.ones(2), result=old, target=1, win=win)
            yield mpi.win_fence(win=win)
            yield mpi.get_accumulate(None, result=seen, target=1, op=ms.NO_OP,
                                     target_count=2, target_datatype=ms.DOUBLE, win=win)
        else:
            yield mpi.win_fence(win=win)
        return old, seen  # read after the closing fence

    rows = run(fenced(body))
    old, seen = rows[0][1]
    assert old.tolist() == [5.0, 6.0] and seen.tolist() == [6.0, 7.0]
    assert rows[1][0][:2] == [6.0, 7.0]


def test_fetch_and_op_makes_a_counter():
    """§12.3.4: each rank fetches and increments one counter: the fetched values are a
    permutation of 0..p-1."""
    def program(mpi):
        win = yield mpi.win_allocate(8, disp_unit=8)
        got = np.zeros(1, dtype=np.int64)
        yield mpi.win_lock(0, ms.LOCK_SHARED, win=win)
        yield mpi.fetch_and_op(np.ones(1, dtype=np.int64), got, target=0, win=win)
        yield mpi.win_unlock(0, win=win)
        yield mpi.barrier()
        total = win.memory.view(np.int64)[0] if mpi.rank == 0 else None
        yield mpi.win_free(win)
        return int(got[0]), total

    rows = run(program, ranks=4)
    assert sorted(r[0] for r in rows) == [0, 1, 2, 3] and rows[0][1] == 4


def test_compare_and_swap_swaps_only_when_equal():
    """§12.3.6: a lock taken by compare-and-swap: only the first of the ranks finds 0."""
    def program(mpi):
        win = yield mpi.win_allocate(8, disp_unit=8)
        old = np.zeros(1, dtype=np.int64)
        yield mpi.win_lock_all(win=win)
        yield mpi.compute(mpi.rank * 1e-6)
        yield mpi.compare_and_swap(np.array([mpi.rank + 1]), np.array([0]), old, target=0,
                                   win=win)
        yield mpi.win_unlock_all(win=win)
        yield mpi.barrier()
        final = int(win.memory.view(np.int64)[0]) if mpi.rank == 0 else None
        yield mpi.win_free(win)
        return int(old[0]), final

    rows = run(program, ranks=3)
    assert [r[0] for r in rows] == [0, 1, 1] and rows[0][1] == 1


def test_request_forms_complete_when_the_buffer_is_free_or_filled():
    """§12.3.5: an Rget's request completes once the data are in the buffer; an Rput's once
    the bytes have left (no completion at the target needed)."""
    def program(mpi):
        mem = np.full(4, float(mpi.rank))
        win = yield mpi.win_create(mem, disp_unit=8)
        got = np.zeros(4)
        yield mpi.win_lock_all(win=win)
        if mpi.rank == 0:
            req = yield mpi.rget(got, target=1, win=win)
            yield mpi.wait(req)
            at_wait = got.tolist()
            req = yield mpi.rput(np.full(4, 9.0), target=1, win=win)
            yield mpi.wait(req)
        else:
            at_wait = None
        yield mpi.win_unlock_all(win=win)
        yield mpi.barrier()
        yield mpi.win_free(win)
        return at_wait, mem.tolist()

    rows = run(program)
    assert rows[0][0] == [1.0] * 4 and rows[1][1] == [9.0] * 4


def test_operations_to_proc_null_do_nothing():
    def program(mpi):
        win = yield mpi.win_allocate(8)
        req = yield mpi.rput(np.ones(1), target=ms.PROC_NULL, win=win)
        yield mpi.wait(req)
        yield mpi.put(np.ones(1), target=ms.PROC_NULL, win=win)  # no epoch needed
        yield mpi.win_free(win)
        return True

    assert run(program) == [True, True]


def test_a_rank_accesses_its_own_window():
    def body(mpi, win):
        yield mpi.put(np.full(8, 4.0), target=mpi.rank, win=win)
        return None

    assert run(fenced(body))[1][0] == [4.0] * 8


def test_a_dynamic_window_takes_addresses_of_attached_memory():
    """§12.2.4: the target displacement is an address the target took (get_address),
    sent to the origin; it must lie in memory the target attached."""
    def program(mpi):
        win = yield mpi.win_create_dynamic()
        mine = np.zeros(4)
        mpi.win_attach(win, mine)
        addr = mpi.get_address(mine, 1)
        addresses = yield mpi.allgather(addr)
        yield mpi.win_fence(win=win)
        if mpi.rank == 0:
            yield mpi.put(np.array([3.0]), target=1, target_disp=addresses[1], win=win)
        yield mpi.win_fence(win=win)
        mpi.win_detach(win, mine)
        yield mpi.win_free(win)
        return mine.tolist()

    assert run(program)[1] == [0.0, 3.0, 0.0, 0.0]


def error_of(program, ranks=2, **kw):
    result = ms.run(program, ranks=ranks, network=NET, **kw)
    assert result.outcome is ms.Outcome.ERROR, result.report()
    return result.error.error_class, result.error.message


def test_an_access_outside_the_targets_window_is_rma_range():
    """§12.3: erroneous; reported at the call, nothing written (Open MPI 5.0.11 reports
    MPI_ERR_RMA_RANGE, MPICH 5.0.2 does not check)."""
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        yield mpi.win_fence(win=win)
        yield mpi.put(np.ones(2), target=1 - mpi.rank, target_disp=3, win=win)

    cls, message = error_of(program)
    assert cls == "MPI_ERR_RMA_RANGE" and "bytes 24..39" in message


def test_origin_and_target_of_different_sizes_are_a_type_error():
    def program(mpi):
        win = yield mpi.win_allocate(32, disp_unit=8)
        yield mpi.win_fence(win=win)
        yield mpi.put(np.ones(2), target=0, target_count=3, win=win)

    assert error_of(program)[0] == "MPI_ERR_TYPE"


def test_user_ops_and_no_op_in_accumulate_are_op_errors():
    """§12.3.4: predefined ops only; MPI_NO_OP only where the call fetches."""
    for op in (lambda a, b: a, ms.NO_OP):
        def program(mpi, op=op):
            win = yield mpi.win_allocate(32, disp_unit=8)
            yield mpi.win_fence(win=win)
            yield mpi.accumulate(np.ones(1), target=0, op=op, win=win)

        assert error_of(program)[0] == "MPI_ERR_OP"


@pytest.mark.parametrize("make, cls", [
    (lambda mpi: mpi.win_allocate(-1), "MPI_ERR_SIZE"),
    (lambda mpi: mpi.win_allocate(8, disp_unit=0), "MPI_ERR_DISP"),
    (lambda mpi: mpi.win_create(np.zeros(2), size=17), "MPI_ERR_SIZE"),
])
def test_a_bad_window_is_refused_at_its_creation(make, cls):
    def program(mpi):
        yield make(mpi)

    assert error_of(program)[0] == cls


def test_a_freed_window_is_win_error():
    def program(mpi):
        win = yield mpi.win_allocate(8)
        yield mpi.win_free(win)
        yield mpi.win_fence(win=win)

    assert error_of(program)[0] == "MPI_ERR_WIN"


def test_shared_memory_needs_one_node():
    """§12.2.3: MPI_Win_allocate_shared over processes of two nodes."""
    def program(mpi):
        yield mpi.win_allocate_shared(8)

    result = ms.run(program, ranks=2, network={**NET, "ranks_per_node": 1})
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_RMA_SHARED"


def test_a_shared_window_is_one_allocation_in_rank_order():
    def program(mpi):
        win = yield mpi.win_allocate_shared(8 * (mpi.rank + 1), disp_unit=8)
        parts = [mpi.win_shared_query(win, r) for r in range(mpi.size)]
        addresses = [mpi.get_address(m) if m.size else 0 for m, _ in parts]
        yield mpi.win_free(win)
        return [m.size for m, _ in parts], addresses

    sizes, addresses = run(program, ranks=3)[0]
    assert sizes == [8, 16, 24]
    assert addresses[1] - addresses[0] == 8 and addresses[2] - addresses[1] == 16


def test_the_window_attributes():
    def program(mpi):
        mem = np.zeros(3)
        win = yield mpi.win_create(mem, disp_unit=8)
        attrs = [mpi.win_get_attr(win, k) for k in (ms.WIN_BASE, ms.WIN_SIZE, ms.WIN_DISP_UNIT,
                                                    ms.WIN_CREATE_FLAVOR, ms.WIN_MODEL)]
        group = mpi.win_get_group(win)
        yield mpi.win_free(win)
        return attrs == [mpi.get_address(mem), 24, 8, ms.WIN_FLAVOR_CREATE, ms.WIN_UNIFIED], \
            list(group.members)

    assert run(program) == [(True, [0, 1])] * 2
