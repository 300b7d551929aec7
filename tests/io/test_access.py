"""Data access (MPI 4.1 §14.4): explicit offsets, the individual and the shared file
pointers, the collective, nonblocking and split forms, and the end of file."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import mpisim as ms
from mpisim.io import MODE_CREATE, MODE_RDWR, SEEK_CUR, SEEK_END, SEEK_SET


def _ints() -> np.ndarray:
    return np.frombuffer(Path("d.bin").read_bytes(), dtype=np.int32)


def _run(program, ranks):
    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result


def test_explicit_offsets_count_etypes_of_the_view_14_4_2():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 8, ms.INT)  # skip 8 bytes; offsets count ints
        yield mpi.file_write_at(fh, 2 * mpi.rank, np.array([10, 11], np.int32) + mpi.rank)
        yield mpi.file_close(fh)

    _run(program, 2)
    assert _ints().tolist() == [0, 0, 10, 11, 11, 12]


def test_the_individual_pointer_moves_past_what_each_access_moved_14_4_3():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.INT)
        positions = []
        yield mpi.file_write(fh, np.arange(5, dtype=np.int32))
        positions.append(mpi.file_get_position(fh))
        mpi.file_seek(fh, -2, SEEK_CUR)
        got = np.zeros(4, np.int32)
        status = yield mpi.file_read(fh, got)
        positions.append(mpi.file_get_position(fh))
        mpi.file_seek(fh, 1, SEEK_SET)
        positions.append(mpi.file_get_position(fh))
        yield mpi.file_close(fh)
        return positions, status.count, got.tolist()

    result = _run(program, 1)
    # 2 ints left before the end of file: the read moves 8 bytes and the pointer by 2
    assert result.returned == [([5, 5, 1], 8, [3, 4, 0, 0])]


def test_shared_pointer_accesses_follow_one_another_and_ordered_goes_by_rank_14_4_4():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.INT)
        yield mpi.compute((2 - mpi.rank) * 1e-3)  # rank 2 writes first, then 1, 0
        yield mpi.file_write_shared(fh, np.full(1, mpi.rank, np.int32))
        yield mpi.barrier()
        yield mpi.file_write_ordered(fh, np.full(mpi.rank + 1, 10 + mpi.rank, np.int32))
        after = mpi.file_get_position_shared(fh)
        yield mpi.file_close(fh)
        return after

    result = _run(program, 3)
    assert _ints().tolist() == [2, 1, 0, 10, 11, 11, 12, 12, 12]
    assert result.returned == [9, 9, 9]


def test_nonblocking_forms_return_a_request_that_wait_completes_14_4_2():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        req = yield mpi.file_iwrite_at(fh, 4 * mpi.rank, np.array([mpi.rank + 5], np.int32))
        flag, _ = yield mpi.test(req)
        yield mpi.wait(req)
        all_req = yield mpi.file_iread_at_all(fh, 0, got := np.zeros(2, np.int32))
        status = yield mpi.wait(all_req)
        yield mpi.file_close(fh)
        return flag, status.count, got.tolist()

    # the write's request is not complete when it is made (io_latency later it is); the
    # collective read meets once both writes are done
    assert _run(program, 2).returned == [(False, 8, [5, 6])] * 2


def test_a_split_collective_moves_its_data_by_its_end_14_4_5():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.INT)
        yield mpi.file_write_ordered_begin(fh, np.array([mpi.rank * 3], np.int32))
        status = yield mpi.file_write_ordered_end(fh)
        yield mpi.file_seek_shared(fh, 0, SEEK_SET)
        yield mpi.file_read_all_begin(fh, got := np.zeros(3, np.int32))
        yield mpi.file_read_all_end(fh)
        yield mpi.file_close(fh)
        return status.count, got.tolist()

    result = _run(program, 3)
    assert result.returned == [(4, [0, 3, 6])] * 3


def test_an_end_without_its_begin_is_an_error_14_4_5():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_read_all_end(fh)

    result = ms.run(program, ranks=1)
    assert result.outcome is ms.Outcome.ERROR and "no MPI_File_read_all_begin" in \
        result.error.message


def test_set_size_cuts_preallocate_only_grows_and_seek_end_counts_from_there_14_2_4():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_write_at(fh, 0, np.arange(40, dtype=np.uint8))
        yield mpi.file_set_size(fh, 10)
        sizes = [mpi.file_get_size(fh)]
        yield mpi.file_preallocate(fh, 4)
        sizes.append(mpi.file_get_size(fh))
        yield mpi.file_preallocate(fh, 16)
        sizes.append(mpi.file_get_size(fh))
        yield mpi.file_set_view(fh, 0, ms.INT)
        mpi.file_seek(fh, -1, SEEK_END)
        sizes.append(mpi.file_get_position(fh))
        yield mpi.file_close(fh)
        return sizes

    assert _run(program, 2).returned == [[10, 10, 16, 3]] * 2
    assert Path("d.bin").read_bytes() == bytes(range(10)) + bytes(6)


def test_a_size_that_is_not_whole_etypes_is_mpi_err_io_as_mpich():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.INT)
        yield mpi.file_write(fh, np.zeros(3, np.uint8))

    result = ms.run(program, ranks=1)
    assert result.error.error_class == "MPI_ERR_IO"
