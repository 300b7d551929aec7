"""Opening, closing and deleting files (MPI 4.1 §14.2): the access modes and their errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mpisim as ms
from mpisim.io import (
    MODE_APPEND,
    MODE_CREATE,
    MODE_DELETE_ON_CLOSE,
    MODE_EXCL,
    MODE_RDONLY,
    MODE_RDWR,
    MODE_SEQUENTIAL,
    MODE_WRONLY,
)


def _error(program, ranks=1):
    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.ERROR, result.report()
    return result.error


def test_open_creates_the_file_relative_to_the_working_directory_14_2_1(tmp_path):
    def program(mpi):
        fh = yield mpi.file_open("sub.bin", MODE_WRONLY | MODE_CREATE)
        yield mpi.file_write_at(fh, mpi.rank, np.array([65 + mpi.rank], np.uint8))
        yield mpi.file_close(fh)

    assert ms.run(program, ranks=3).outcome is ms.Outcome.COMPLETED
    assert (tmp_path / "sub.bin").read_bytes() == b"ABC"


@pytest.mark.parametrize("amode", [MODE_RDONLY | MODE_CREATE, MODE_RDONLY | MODE_EXCL,
                                   MODE_RDWR | MODE_SEQUENTIAL, MODE_CREATE,
                                   MODE_RDWR | MODE_WRONLY, 1 << 20])
def test_an_amode_against_the_rules_of_14_2_1_is_mpi_err_amode(amode):
    def program(mpi):
        yield mpi.file_open("x.bin", amode)

    assert _error(program).error_class == "MPI_ERR_AMODE"
    assert not Path("x.bin").exists()


def test_open_without_create_of_a_missing_file_is_mpi_err_no_such_file_14_2_1():
    def program(mpi):
        yield mpi.file_open("missing.bin", MODE_RDONLY)

    assert _error(program, 2).error_class == "MPI_ERR_NO_SUCH_FILE"


def test_create_excl_of_an_existing_file_is_mpi_err_file_exists_14_2_1():
    Path("there.bin").write_bytes(b"x")

    def program(mpi):
        yield mpi.file_open("there.bin", MODE_RDWR | MODE_CREATE | MODE_EXCL)

    assert _error(program, 2).error_class == "MPI_ERR_FILE_EXISTS"


def test_a_write_to_a_read_only_file_and_a_read_of_a_write_only_file_are_refused_14_7():
    Path("f.bin").write_bytes(b"abcd")

    def writes(mpi):
        fh = yield mpi.file_open("f.bin", MODE_RDONLY)
        yield mpi.file_write(fh, np.zeros(1, np.uint8))

    def reads(mpi):
        fh = yield mpi.file_open("f.bin", MODE_WRONLY)
        yield mpi.file_read(fh, np.zeros(1, np.uint8))

    assert _error(writes).error_class == "MPI_ERR_READ_ONLY"
    assert _error(reads).error_class == "MPI_ERR_ACCESS"
    assert Path("f.bin").read_bytes() == b"abcd"


def test_delete_on_close_removes_the_file_once_all_have_closed_14_2_1():
    seen = []

    def program(mpi):
        fh = yield mpi.file_open("tmp.bin", MODE_RDWR | MODE_CREATE | MODE_DELETE_ON_CLOSE)
        yield mpi.file_write_at_all(fh, mpi.rank, np.array([1], np.uint8))
        seen.append(Path("tmp.bin").exists())
        yield mpi.file_close(fh)

    assert ms.run(program, ranks=2).outcome is ms.Outcome.COMPLETED
    assert seen == [True, True] and not Path("tmp.bin").exists()


def test_append_starts_both_pointers_at_the_end_of_file_14_2_1():
    Path("log.bin").write_bytes(b"head")

    def program(mpi):
        fh = yield mpi.file_open("log.bin", MODE_WRONLY | MODE_APPEND)
        start = (mpi.file_get_position(fh), mpi.file_get_position_shared(fh))
        yield mpi.file_write_ordered(fh, np.array([48 + mpi.rank], np.uint8))
        yield mpi.file_close(fh)
        return start

    result = ms.run(program, ranks=2)
    assert result.returned == [(4, 4), (4, 4)]
    assert Path("log.bin").read_bytes() == b"head01"


def test_delete_removes_a_file_and_a_missing_one_is_mpi_err_no_such_file_14_2_3():
    Path("gone.bin").write_bytes(b"x")

    def program(mpi):
        yield mpi.file_delete("gone.bin")
        yield mpi.file_delete("gone.bin")

    assert _error(program).error_class == "MPI_ERR_NO_SUCH_FILE"
    assert not Path("gone.bin").exists()


def test_a_closed_file_is_no_file_any_more_mpi_err_file():
    def program(mpi):
        fh = yield mpi.file_open("c.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_close(fh)
        yield mpi.file_sync(fh)

    assert _error(program).error_class == "MPI_ERR_FILE"


def test_the_members_must_open_the_same_file_mpi_err_not_same_14_2_1():
    def program(mpi):
        yield mpi.file_open(f"f{mpi.rank}.bin", MODE_RDWR | MODE_CREATE)

    assert _error(program, 2).error_class == "MPI_ERR_NOT_SAME"


def test_amode_group_and_info_are_what_open_was_given_14_2_7():
    def program(mpi):
        comm = yield mpi.comm_split(color=mpi.rank % 2, key=0)
        fh = yield mpi.file_open(f"g{mpi.rank % 2}.bin", MODE_RDWR | MODE_CREATE, comm=comm)
        group = mpi.file_get_group(fh)
        out = (mpi.file_get_amode(fh), group.members, mpi.file_get_info(fh).nkeys())
        yield mpi.file_close(fh)
        return out

    result = ms.run(program, ranks=4)
    amode = MODE_RDWR | MODE_CREATE
    assert result.returned == [(amode, (0, 2), 0), (amode, (1, 3), 0), (amode, (0, 2), 0),
                               (amode, (1, 3), 0)]
