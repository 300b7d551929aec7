"""The handle's MPI-IO calls that no other test names, each against MPI 4.1 §14: the
collective, shared, ordered, nonblocking and split reads, the info and atomicity of a file,
and what its view says (tests/io holds the chapter's rules; these hold each call)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mpisim as ms
from mpisim.io import MODE_CREATE, MODE_RDWR, SEEK_SET


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def _run(program, ranks):
    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result.returned


def _written(mpi, values):
    """Open d.bin with a view of ints, each rank writing ``values`` at rank * len."""
    fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
    yield mpi.file_set_view(fh, 0, ms.INT)
    yield mpi.file_write_at_all(fh, mpi.rank * len(values), np.asarray(values, np.int32))
    return fh


def test_collective_reads_at_offsets_and_at_the_pointer_read_what_all_wrote_14_4_2():
    def program(mpi):
        fh = yield from _written(mpi, [mpi.rank, mpi.rank + 10])
        at = np.zeros(2, np.int32)
        yield mpi.file_read_at_all(fh, 2 * (1 - mpi.rank), at)  # the other rank's part
        whole = np.zeros(4, np.int32)
        status = yield mpi.file_read_all(fh, whole)  # from the individual pointer, 0
        yield mpi.file_close(fh)
        return at.tolist(), whole.tolist(), status.count

    assert _run(program, 2) == [([1, 11], [0, 10, 1, 11], 16), ([0, 10], [0, 10, 1, 11], 16)]


def test_nonblocking_reads_complete_at_their_wait_and_move_the_pointer_14_4_3():
    def program(mpi):
        fh = yield from _written(mpi, [7, 8, 9])
        a = np.zeros(1, np.int32)
        r1 = yield mpi.file_iread_at(fh, 2, a)
        b = np.zeros(2, np.int32)
        r2 = yield mpi.file_iread(fh, b)
        s1 = yield mpi.wait(r1)
        s2 = yield mpi.wait(r2)
        c = np.zeros(2, np.int32)
        r3 = yield mpi.file_iread_all(fh, c)  # the pointer moved past b's 2 ints
        yield mpi.wait(r3)
        position = mpi.file_get_position(fh)
        yield mpi.file_close(fh)
        return a.tolist(), b.tolist(), c.tolist(), s1.count, s2.count, position

    assert _run(program, 1) == [([9], [7, 8], [9, 0], 4, 8, 3)]


def test_nonblocking_collective_writes_land_by_their_wait_14_4_2():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.INT)
        req = yield mpi.file_iwrite_at_all(fh, mpi.rank, np.array([mpi.rank + 1], np.int32))
        yield mpi.wait(req)
        mpi.file_seek(fh, 2, SEEK_SET)
        req = yield mpi.file_iwrite_all(fh, np.array([40 + mpi.rank], np.int32))
        yield mpi.wait(req)
        yield mpi.file_close(fh)

    _run(program, 2)
    assert np.frombuffer(Path("d.bin").read_bytes(), np.int32).tolist() == [1, 2, 41]


def test_shared_pointer_reads_and_nonblocking_shared_accesses_take_turns_14_4_4():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.INT)
        yield mpi.compute((mpi.rank + 1) * 1e-3)  # rank 0 first, then rank 1
        req = yield mpi.file_iwrite_shared(fh, np.array([mpi.rank + 5], np.int32))
        yield mpi.wait(req)
        yield mpi.barrier()
        yield mpi.file_seek_shared(fh, 0, SEEK_SET)
        yield mpi.compute((mpi.rank + 1) * 1e-3)
        got = np.zeros(1, np.int32)
        yield mpi.file_read_shared(fh, got)  # rank 0 reads the first, rank 1 the next
        yield mpi.barrier()
        yield mpi.file_seek_shared(fh, 0, SEEK_SET)
        again = np.zeros(1, np.int32)
        req = yield mpi.file_iread_shared(fh, again)
        yield mpi.wait(req)
        yield mpi.file_close(fh)
        return got.tolist(), again.tolist()

    got = _run(program, 2)
    assert [g for g, _ in got] == [[5], [6]]
    assert sorted(a[0] for _, a in got) == [5, 6]  # each read one, in some order


def test_ordered_read_goes_by_rank_14_4_4():
    def program(mpi):
        fh = yield from _written(mpi, [mpi.rank * 2, mpi.rank * 2 + 1])
        yield mpi.file_seek_shared(fh, 0, SEEK_SET)
        got = np.zeros(mpi.rank + 1, np.int32)  # rank 0 one int, rank 1 the next two
        yield mpi.file_read_ordered(fh, got)
        yield mpi.file_close(fh)
        return got.tolist()

    assert _run(program, 2) == [[0], [1, 2]]


def test_a_split_read_at_offset_fills_its_buffer_by_its_end_14_4_5():
    def program(mpi):
        fh = yield from _written(mpi, [3, 4])
        got = np.zeros(2, np.int32)
        yield mpi.file_read_at_all_begin(fh, 2 * (1 - mpi.rank), got)
        status = yield mpi.file_read_at_all_end(fh)
        mpi.file_seek(fh, 0, SEEK_SET)
        yield mpi.file_write_at_all_begin(fh, 4 + mpi.rank, np.array([9], np.int32))
        yield mpi.file_write_at_all_end(fh)
        yield mpi.file_close(fh)
        return got.tolist(), status.count

    assert _run(program, 2) == [([3, 4], 8)] * 2
    assert np.frombuffer(Path("d.bin").read_bytes(), np.int32).tolist() == [3, 4, 3, 4, 9, 9]


def test_split_collectives_at_the_pointer_and_ordered_14_4_5():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.INT)
        yield mpi.file_write_all_begin(fh, np.array([mpi.rank], np.int32))
        yield mpi.file_write_all_end(fh)  # both at the individual pointer, 0: one wins
        yield mpi.file_write_ordered_begin(fh, np.array([20 + mpi.rank], np.int32))
        yield mpi.file_write_ordered_end(fh)
        yield mpi.file_seek_shared(fh, 0, SEEK_SET)
        got = np.zeros(1, np.int32)
        yield mpi.file_read_ordered_begin(fh, got)
        yield mpi.file_read_ordered_end(fh)
        yield mpi.file_close(fh)
        return got.tolist()

    assert _run(program, 2) == [[20], [21]]


def test_info_atomicity_view_and_extent_of_a_file_14_2_8_14_6_1_14_3():
    def program(mpi):
        fh = yield mpi.file_open("d.bin", MODE_RDWR | MODE_CREATE)
        before = mpi.file_get_atomicity(fh)
        yield mpi.file_set_atomicity(fh, True)  # collective (§14.6.1)
        info = mpi.info_create()
        mpi.info_set(info, "access_style", "read_once")
        yield mpi.file_set_info(fh, info)  # collective (§14.2.8)
        mpi.info_free(info)
        yield mpi.file_set_view(fh, 8, ms.INT, ms.INT)
        disp, etype, filetype, rep = mpi.file_get_view(fh)
        extent = mpi.file_get_type_extent(fh, ms.DOUBLE)
        after = mpi.file_get_atomicity(fh)
        yield mpi.file_close(fh)
        return before, after, disp, etype is ms.INT, filetype is ms.INT, rep, extent

    # "native" representation: a type's extent in the file is its extent in memory
    assert _run(program, 2) == [(False, True, 8, True, True, "native", 8)] * 2
