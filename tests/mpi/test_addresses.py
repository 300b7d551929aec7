"""Addresses (4.1.5): get_address, aint_add, aint_diff, and BOTTOM transfers that never
read memory outside the arrays whose addresses were taken."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from mpisim.mpi.addresses import AddressSpace, aint_add, aint_diff
from mpisim.mpi.datatypes import C_DOUBLE_COMPLEX, CHAR, DOUBLE, INT, Datatype, pack
from mpisim.mpi.errors import ErrArg, ErrCount, ErrTruncate, ErrType


def test_the_standards_fortran_example_4_1_5() -> None:
    """4.1.5: for REAL A(100,100), DIFF = A(10,10) - A(1,1) is 909*sizeofreal."""
    space = AddressSpace()
    a = np.zeros((100, 100), dtype=np.float32, order="F")
    i1 = space.get_address(a, (0, 0))
    i2 = space.get_address(a, (9, 9))
    assert aint_diff(i2, i1) == 909 * 4


def test_addresses_follow_the_arrays_memory_order_4_1_5() -> None:
    """A(10,20) is 9 + 19*100 elements after A(1,1) in Fortran order, 9*100 + 19 in C."""
    space = AddressSpace()
    f = np.zeros((100, 100), dtype=np.float32, order="F")
    c = np.zeros((100, 100), dtype=np.float32)
    assert aint_diff(space.get_address(f, (9, 19)), space.get_address(f)) == 1909 * 4
    assert aint_diff(space.get_address(c, (9, 19)), space.get_address(c)) == 919 * 4


def test_get_address_is_the_real_address_of_the_element() -> None:
    space = AddressSpace()
    x = np.arange(10, dtype=np.float64)
    base = x.__array_interface__["data"][0]
    assert space.get_address(x) == base
    assert space.get_address(x, 3) == base + 24
    assert space.get_address(x, -1) == base + 72  # negative counts from the end, as numpy
    assert space.get_address(x[4:], 1) == space.get_address(x, 5)
    assert space.get_address(x[::-1], 0) == space.get_address(x, 9)
    m = np.zeros((3, 4), dtype=np.int16)
    assert space.get_address(m, 2) == space.get_address(m, (2, 0))  # a row, like m[2]


def test_aint_add_and_aint_diff_4_1_5() -> None:
    """4.1.5: MPI_AINT_ADD(base, disp) is base + disp; MPI_AINT_DIFF the signed distance."""
    space = AddressSpace()
    x = np.zeros(8, dtype=np.float64)
    first, fifth = space.get_address(x, 0), space.get_address(x, 4)
    assert aint_add(first, 32) == fifth
    assert aint_add(fifth, -32) == first
    assert aint_diff(first, fifth) == -32 == -aint_diff(fifth, first)
    with pytest.raises(ErrArg):
        aint_add(first, 1.5)
    with pytest.raises(ErrArg):
        aint_diff("0x10", first)


def test_get_address_refuses_what_is_not_an_element() -> None:
    space = AddressSpace()
    x = np.zeros((2, 3))
    with pytest.raises(ErrArg, match="numpy array"):
        space.get_address([1.0, 2.0])
    with pytest.raises(ErrArg, match="out of range"):
        space.get_address(x, (2, 0))
    with pytest.raises(ErrArg, match="more entries"):
        space.get_address(x, (0, 0, 0))
    with pytest.raises(ErrArg, match="integers"):
        space.get_address(x, (0, 1.0))
    with pytest.raises(ErrArg, match="objects"):
        space.get_address(np.array([None, 1]))


def scattered_struct(space: AddressSpace, x: np.ndarray, y: np.ndarray,
                     z: np.ndarray) -> Datatype:
    """{3 doubles from x[1], 2 ints from y[0], 1 complex from z[2]} at absolute addresses."""
    disps = [space.get_address(x, 1), space.get_address(y), space.get_address(z, 2)]
    return Datatype.create_struct([3, 2, 1], disps, [DOUBLE, INT, C_DOUBLE_COMPLEX]).commit()


def test_bottom_send_gathers_a_struct_of_three_scattered_arrays_4_1_5() -> None:
    """4.1.5: with MPI_BOTTOM as buf, the type map's displacements are absolute addresses;
    the data of three separate arrays goes out as one message and arrives intact."""
    sender = AddressSpace()
    x = np.arange(5, dtype=np.float64) * 1.5
    y = np.array([-7, 11, 13], dtype=np.int32)
    z = np.array([1 + 2j, 3 - 4j, 5 + 6j])
    packed = sender.gather(1, scattered_struct(sender, x, y, z))
    assert packed.size == 3 * 8 + 2 * 4 + 16
    assert packed.tobytes() == x[1:4].tobytes() + y[:2].tobytes() + z[2:].tobytes()

    receiver = AddressSpace()
    x2, y2, z2 = np.zeros(5), np.zeros(3, dtype=np.int32), np.zeros(3, dtype=complex)
    receiver.scatter(packed, 1, scattered_struct(receiver, x2, y2, z2))
    assert x2.tolist() == [0.0, *x[1:4].tolist(), 0.0]
    assert y2.tolist() == [-7, 11, 0]
    assert z2.tolist() == [0, 0, 5 + 6j]


def test_bottom_with_count_steps_by_the_extent() -> None:
    """Element i of a BOTTOM type lies at its absolute displacements + i * extent."""
    space = AddressSpace()
    x = np.arange(6, dtype=np.float64)
    every_other = Datatype.create_struct([1], [space.get_address(x)], [DOUBLE])
    every_other = every_other.create_resized(every_other.lb, 16).commit()
    assert space.gather(3, every_other).view(np.float64).tolist() == [0.0, 2.0, 4.0]


def test_bottom_reaches_anywhere_in_the_object_whose_address_was_taken() -> None:
    """Addresses are valid anywhere in the same object (4.1.5, AINT_ADD): taking the
    address of a view covers the whole array it views."""
    space = AddressSpace()
    whole = np.arange(10, dtype=np.float64)
    view_addr = space.get_address(whole[5:7])
    t = Datatype.create_struct([1], [aint_add(view_addr, -40)], [DOUBLE]).commit()
    assert space.gather(1, t).view(np.float64).tolist() == [0.0]


def test_bottom_refuses_an_address_in_no_array_taken_4_1_5() -> None:
    """An address outside every array whose address was taken is MPI_ERR_ARG: mpisim
    never reads raw memory."""
    space = AddressSpace()
    x = np.zeros(4, dtype=np.float64)
    elsewhere = np.zeros(4, dtype=np.float64)  # its address was never taken
    space.get_address(x)
    outside = Datatype.create_struct([1], [elsewhere.__array_interface__["data"][0]], [DOUBLE])
    with pytest.raises(ErrArg, match="lies in no array whose address was taken"):
        space.gather(1, outside.commit())
    # straddling the end of x: the last 4 bytes lie past it
    straddle = Datatype.create_struct([1], [aint_add(space.get_address(x, 3), 4)], [DOUBLE])
    with pytest.raises(ErrArg, match="lies in no array"):
        space.gather(1, straddle.commit())
    # a relative type with BOTTOM means address zero
    with pytest.raises(ErrArg, match="0x0 lies in no array"):
        space.gather(1, DOUBLE)
    with pytest.raises(ErrArg, match="lies in no array"):
        AddressSpace().scatter(np.zeros(8, dtype=np.uint8), 1, straddle)


def test_the_space_keeps_arrays_alive_so_addresses_stay_valid() -> None:
    """An address once handed out keeps pointing at the same data, even if the program
    drops its own reference to the array."""
    space = AddressSpace()
    x = np.arange(4, dtype=np.float64) + 0.5
    t = Datatype.create_struct([4], [space.get_address(x)], [DOUBLE]).commit()
    del x
    gc.collect()
    assert space.gather(1, t).view(np.float64).tolist() == [0.5, 1.5, 2.5, 3.5]


def test_bottom_type_from_many_arrays_matches_a_relative_pack() -> None:
    """Gathering through absolute addresses of one array equals packing the array
    through the same layout relative to its start."""
    space = AddressSpace()
    data = np.arange(40, dtype=np.int32)
    base = space.get_address(data)
    arrays = [np.arange(3, dtype=np.int32) + 100 * k for k in range(20)]  # other arrays too
    for a in arrays:
        space.get_address(a)
    disps = [0, 12, 40, 100]
    relative = INT.create_hindexed([2, 1, 3, 1], disps).commit()
    absolute = INT.create_hindexed([2, 1, 3, 1], [aint_add(base, d) for d in disps]).commit()
    assert np.array_equal(space.gather(1, absolute), pack(data, 1, relative))


def test_bottom_receive_checks_the_message_like_any_receive() -> None:
    space = AddressSpace()
    x = np.zeros(2, dtype=np.float64)
    t = Datatype.create_struct([2], [space.get_address(x)], [DOUBLE]).commit()
    with pytest.raises(ErrTruncate):
        space.scatter(np.zeros(24, dtype=np.uint8), 1, t)
    with pytest.raises(ErrType):
        space.scatter(np.zeros(5, dtype=np.uint8), 1, t)
    space.scatter(np.array([9.0]).view(np.uint8), 1, t)  # a short message: one double
    assert x.tolist() == [9.0, 0.0]


def test_bottom_refuses_uncommitted_types_bad_counts_and_read_only_memory() -> None:
    space = AddressSpace()
    x = np.zeros(2, dtype=np.float64)
    t = Datatype.create_struct([1], [space.get_address(x)], [DOUBLE])
    with pytest.raises(ErrType, match="not committed"):
        space.gather(1, t)
    t.commit()
    with pytest.raises(ErrCount):
        space.gather(-1, t)
    ro = np.zeros(2, dtype=np.float64)
    ro.flags.writeable = False
    rt = Datatype.create_struct([1], [space.get_address(ro)], [CHAR.create_contiguous(8)])
    with pytest.raises(ErrArg, match="read-only"):
        space.scatter(np.zeros(8, dtype=np.uint8), 1, rt.commit())


def test_arrays_sharing_memory_are_all_readable() -> None:
    """Two arrays over one block of memory (a part taken first, then the whole): every
    byte of the whole is reachable, including those after the part."""
    space = AddressSpace()
    memory = bytearray(range(32))
    part = np.frombuffer(memory, dtype=np.uint8, offset=8, count=8)
    whole = np.frombuffer(memory, dtype=np.uint8)
    space.get_address(part)
    start = space.get_address(whole)
    t = CHAR.create_hindexed([4, 4, 4], [aint_add(start, d) for d in (0, 12, 28)]).commit()
    assert space.gather(1, t).tolist() == [0, 1, 2, 3, 12, 13, 14, 15, 28, 29, 30, 31]


def test_a_bottom_struct_sent_through_a_simulation_arrives_intact_4_1_5() -> None:
    """End to end: rank 0 sends three scattered arrays with BOTTOM, rank 1 receives them
    into three arrays of its own with BOTTOM."""
    import mpisim as ms

    def layout(mpi, x, y, z) -> Datatype:
        disps = [mpi.get_address(x, 1), mpi.get_address(y), mpi.get_address(z, 2)]
        return Datatype.create_struct([3, 2, 1], disps, [DOUBLE, INT, C_DOUBLE_COMPLEX]).commit()

    def program(mpi):
        if mpi.rank == 0:
            x, y = np.arange(5) * 1.5, np.array([-7, 11, 13], dtype=np.int32)
            z = np.array([1 + 2j, 3 - 4j, 5 + 6j])
            yield mpi.send(buf=ms.BOTTOM, count=1, datatype=layout(mpi, x, y, z), dest=1)
        else:
            x, y, z = np.zeros(5), np.zeros(3, dtype=np.int32), np.zeros(3, dtype=complex)
            status = yield mpi.recv(buf=ms.BOTTOM, count=1, datatype=layout(mpi, x, y, z),
                                    source=0, tag=0)
            return x.tolist(), y.tolist(), z.tolist(), status.count

    result = ms.run(program, ranks=2)
    assert result.outcome == ms.Outcome.COMPLETED
    assert result.returned[1] == ([0.0, 1.5, 3.0, 4.5, 0.0], [-7, 11, 0], [0, 0, 5 + 6j], 48)


def test_a_bottom_send_from_a_bad_address_ends_the_run_with_mpi_err_arg() -> None:
    import mpisim as ms

    def program(mpi):
        if mpi.rank == 0:
            x = np.zeros(2)
            past_the_end = mpi.aint_add(mpi.get_address(x, 1), 8)
            t = Datatype.create_struct([1], [past_the_end], [DOUBLE]).commit()
            yield mpi.send(buf=ms.BOTTOM, count=1, datatype=t, dest=1)
        else:
            yield mpi.recv(count=1, datatype=DOUBLE, source=0)

    result = ms.run(program, ranks=2)
    assert result.outcome == ms.Outcome.ERROR
    assert (result.error.rank, result.error.error_class) == (0, "MPI_ERR_ARG")
    assert "lies in no array whose address was taken" in result.error.message
