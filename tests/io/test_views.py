"""File views (MPI 4.1 §14.3): where a process's data lie, with a strided filetype, and a
property: what a rank reads back through any view is what numpy computes from the bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mpisim as ms
from mpisim.io import MODE_CREATE, MODE_RDWR


def test_a_vector_filetype_interleaves_the_ranks_data_14_3():
    """Rank r's view: disp 4r bytes, etype INT, filetype 2 ints every 3 processes' worth
    (vector(2, 1, 3) resized to 6 ints): its ints land at 3k + r, its bytes nowhere else."""
    def program(mpi):
        tile = ms.INT.create_vector(2, 1, 3).create_resized(0, 24).commit()
        fh = yield mpi.file_open("v.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 4 * mpi.rank, ms.INT, tile)
        yield mpi.file_write_all(fh, np.arange(4, dtype=np.int32) + 10 * mpi.rank)
        offsets = [mpi.file_get_byte_offset(fh, k) for k in range(4)]
        yield mpi.file_close(fh)
        return offsets

    result = ms.run(program, ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    ints = np.frombuffer(Path("v.bin").read_bytes(), np.int32).tolist()
    assert ints == [0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23]
    assert result.returned[1] == [4, 16, 28, 40]


def test_set_view_resets_both_pointers_and_a_bad_filetype_is_refused_14_3():
    def program(mpi):
        fh = yield mpi.file_open("v.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_write(fh, np.zeros(8, np.uint8))
        yield mpi.file_write_shared(fh, np.zeros(4, np.uint8))
        yield mpi.file_set_view(fh, 0, ms.SHORT)
        reset = (mpi.file_get_position(fh), mpi.file_get_position_shared(fh))
        odd = ms.BYTE.create_contiguous(3).commit()
        try:
            yield mpi.file_set_view(fh, 0, ms.SHORT, odd)
        except ms.MPIError as e:
            return reset, e.error_class

    assert ms.run(program, ranks=1).returned == [((0, 0), "MPI_ERR_TYPE")]


def _expected(disp: int, blocks: list[tuple[int, int]], extent: int, start: int,
              nbytes: int, file: bytes) -> bytes:
    """The bytes a view gives, by walking it byte by byte (numpy, the slow way)."""
    where = []
    tile = 0
    while len(where) < start + nbytes:
        for off, length in blocks:
            where.extend(range(disp + tile * extent + off, disp + tile * extent + off + length))
        tile += 1
    index = np.array(where[start:start + nbytes], dtype=np.int64)
    data = np.frombuffer(file, np.uint8)
    return data[index[index < data.size]].tobytes()


@settings(max_examples=40, deadline=None)
@given(disp=st.integers(0, 40), gaps=st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6)),
                                               min_size=1, max_size=4),
       tail=st.integers(0, 7), offset=st.integers(0, 30), count=st.integers(0, 40))
def test_what_a_view_reads_is_what_numpy_computes_from_the_file(tmp_path_factory, disp, gaps,
                                                                tail, offset, count):
    """A random indexed filetype of bytes (holes, blocks), a random displacement, offset
    and count: file_read_at gives the bytes of the file where the view puts them, and a
    write through the view puts the data exactly there (§14.3, §14.4.2)."""
    folder = tmp_path_factory.mktemp("prop")
    path = folder / "p.bin"
    content = np.random.default_rng(len(gaps) + disp).integers(0, 256, 400, np.uint8)
    path.write_bytes(content.tobytes())
    displacements, lengths, at = [], [], 0
    for hole, length in gaps:
        displacements.append(at + hole)
        lengths.append(length)
        at += hole + length
    extent = at + tail
    blocks = list(zip(displacements, lengths, strict=True))
    data = np.arange(count, dtype=np.uint8) + 1

    def program(mpi):
        filetype = ms.BYTE.create_indexed(lengths, displacements).create_resized(0, extent)
        filetype.commit()
        fh = yield mpi.file_open(str(path), MODE_RDWR)
        yield mpi.file_set_view(fh, disp, ms.BYTE, filetype)
        got = np.zeros(count, np.uint8)
        status = yield mpi.file_read_at(fh, offset, got)
        yield mpi.file_write_at(fh, offset, data)
        yield mpi.file_close(fh)
        return got[:status.count].tobytes()

    result = ms.run(program, ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.returned[0] == _expected(disp, blocks, extent, offset, count,
                                           content.tobytes())
    after = path.read_bytes()
    assert _expected(disp, blocks, extent, offset, count, after) == data.tobytes()
    touched = set()
    for k in range(offset, offset + count):  # every byte outside the view kept its value
        tile, within = divmod(k, sum(lengths))
        for off, length in blocks:
            if within < length:
                touched.add(disp + tile * extent + off + within)
                break
            within -= length
    kept = [i for i in range(len(content)) if i not in touched]
    assert np.array_equal(np.frombuffer(after, np.uint8)[kept], content[kept])


@pytest.mark.parametrize("datarep", ["external32", "mine"])
def test_a_data_representation_other_than_native_is_unsupported_14_5(datarep):
    def program(mpi):
        if datarep == "mine":
            mpi.register_datarep("mine")
        fh = yield mpi.file_open("r.bin", MODE_RDWR | MODE_CREATE)
        yield mpi.file_set_view(fh, 0, ms.BYTE, ms.BYTE, datarep)

    result = ms.run(program, ranks=1)
    assert result.error.error_class == "MPI_ERR_UNSUPPORTED_DATAREP"
