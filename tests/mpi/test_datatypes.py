"""Datatypes: sizes, bounds and extents (4.1), type_size (4.1.5), pack/unpack, commit."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mpisim.mpi import datatypes as dt
from mpisim.mpi.constants import INT_MAX, UNDEFINED
from mpisim.mpi.datatypes import (
    BYTE,
    CHAR,
    DOUBLE,
    FLOAT,
    INT,
    ORDER_C,
    ORDER_FORTRAN,
    SHORT,
    Datatype,
    check_committed,
    check_message_size,
    datatype_of,
    pack,
    pack_size,
    type_size,
    type_size_x,
    unpack,
)
from mpisim.mpi.errors import ErrArg, ErrCount, ErrTruncate, ErrType


def bounds(t: Datatype) -> tuple[int, int, int, int, int]:
    return t.size, t.lb, t.extent, t.true_lb, t.true_extent


# -- basic types ---------------------------------------------------------------------------

@pytest.mark.parametrize(("t", "size"), [
    (dt.CHAR, 1), (dt.SHORT, 2), (dt.INT, 4), (dt.LONG, 8), (dt.LONG_LONG, 8), (dt.FLOAT, 4),
    (dt.DOUBLE, 8), (dt.LONG_DOUBLE, 16), (dt.C_BOOL, 1), (dt.WCHAR, 4),
    (dt.C_DOUBLE_COMPLEX, 16), (dt.INTEGER, 4), (dt.REAL, 4), (dt.DOUBLE_PRECISION, 8),
    (dt.COMPLEX, 8), (dt.DOUBLE_COMPLEX, 16), (dt.LOGICAL, 4), (dt.CHARACTER, 1),
    (dt.AINT, 8), (dt.COUNT, 8), (dt.PACKED, 1), (dt.BYTE, 1),
])
def test_basic_sizes_are_lp64(t: Datatype, size: int) -> None:
    assert bounds(t) == (size, 0, size, 0, size)
    assert t.committed
    assert t.numpy_dtype is None or t.numpy_dtype.itemsize == size


def test_every_predefined_numpy_dtype_has_the_types_size() -> None:
    for name, t in dt.BASIC_TYPES.items():
        if t.numpy_dtype is not None:
            assert t.numpy_dtype.itemsize == t.extent, name


@pytest.mark.parametrize(("np_type", "expected"), [
    (np.float64, DOUBLE), (np.float32, FLOAT), (np.int32, INT), (np.int16, SHORT),
    (np.uint8, BYTE), ("S1", CHAR), (">f8", DOUBLE), (np.complex128, dt.C_DOUBLE_COMPLEX),
    (np.bool_, dt.C_BOOL), (np.int64, dt.LONG),
])
def test_datatype_of_maps_numpy_dtypes(np_type: object, expected: Datatype) -> None:
    assert datatype_of(np_type) is expected


def test_datatype_of_refuses_what_mpi_has_no_type_for() -> None:
    with pytest.raises(ErrType, match="no MPI datatype"):
        datatype_of(object)
    with pytest.raises(ErrType, match="not a numpy dtype"):
        datatype_of(3.5)


def test_pair_types_are_laid_out_like_their_c_structs() -> None:
    """MPI_DOUBLE_INT is struct {double; int}: 12 bytes of data, extent 16 (4.1 epsilon)."""
    assert bounds(dt.DOUBLE_INT) == (12, 0, 16, 0, 12)
    assert bounds(dt.SHORT_INT) == (6, 0, 8, 0, 8)
    assert bounds(dt.TWOINT) == (8, 0, 8, 0, 8)
    values = np.zeros(3, dtype=dt.DOUBLE_INT.numpy_dtype)
    values["value"], values["index"] = [1.5, 2.5, 3.5], [7, 8, 9]
    packed = pack(values, 3, dt.DOUBLE_INT)
    assert packed.size == 3 * 12
    back = np.zeros_like(values)
    unpack(packed, back, 3, dt.DOUBLE_INT)
    assert back.tolist() == values.tolist()


def test_predefined_types_pickle_by_name() -> None:
    """Process pools pickle datatypes: a predefined one comes back as the same object."""
    for t in (DOUBLE, INT, dt.DOUBLE_INT):
        assert pickle.loads(pickle.dumps(t)) is t


def test_derived_types_pickle_with_their_layout() -> None:
    t = DOUBLE.create_vector(3, 2, 5).create_resized(-8, 100).commit()
    back = pickle.loads(pickle.dumps(t))
    assert bounds(back) == bounds(t) and back.committed and back.name == t.name
    data = np.arange(100, dtype=np.float64)
    assert np.array_equal(pack(data, 2, back), pack(data, 2, t))


# -- sizes, bounds, extents of derived types, by hand --------------------------------------

def test_contiguous_4_1_2() -> None:
    assert bounds(INT.create_contiguous(5)) == (20, 0, 20, 0, 20)
    assert bounds(INT.create_contiguous(0)) == (0, 0, 0, 0, 0)


def test_vector_extent_ends_at_its_last_block_4_1_2() -> None:
    """vector(2, 1, 3) of DOUBLE: data at bytes 0 and 24; extent 32 (not 2*3*8 = 48)."""
    assert bounds(DOUBLE.create_vector(2, 1, 3)) == (16, 0, 32, 0, 32)
    assert bounds(INT.create_vector(3, 2, 4)) == (24, 0, 40, 0, 40)


def test_vector_with_negative_stride_has_negative_lb_4_1_2() -> None:
    # blocks of 2 ints at bytes 0, -16, -32
    assert bounds(INT.create_vector(3, 2, -4)) == (24, -32, 40, -32, 40)


def test_hvector_copies_carry_the_old_types_padding() -> None:
    """hvector(3, 1, 3 bytes) of struct{double; char} (extent 16): copies at 0, 3, 6, each
    with its ub 16 after its start: ub = 22."""
    s = Datatype.create_struct([1, 1], [0, 8], [DOUBLE, CHAR])
    assert bounds(s.create_hvector(3, 1, 3)) == (27, 0, 22, 0, 15)


def test_indexed_and_hindexed_4_1_2() -> None:
    # floats at bytes 0, 4 and 16
    assert bounds(FLOAT.create_indexed([2, 1], [0, 4])) == (12, 0, 20, 0, 20)
    # shorts at bytes 6..9 and 0..3: lb 0, ub 10
    assert bounds(SHORT.create_indexed_block(2, [3, 0])) == (8, 0, 10, 0, 10)
    assert bounds(DOUBLE.create_hindexed([1, 1], [8, 0])) == (16, 0, 16, 0, 16)
    assert bounds(DOUBLE.create_hindexed_block(2, [-16, 40])) == (32, -16, 72, -16, 72)
    # a zero-length block adds neither data nor bounds
    assert bounds(INT.create_indexed([0, 1], [100, 2])) == (4, 8, 4, 8, 4)


def test_struct_extent_is_padded_to_the_largest_alignment_4_1_epsilon() -> None:
    """4.1: the extent is rounded up to a multiple of the largest alignment (epsilon)."""
    assert bounds(Datatype.create_struct([1, 1], [0, 8], [DOUBLE, CHAR])) == (9, 0, 16, 0, 9)
    assert bounds(Datatype.create_struct([1, 1], [0, 4], [CHAR, INT])) == (5, 0, 8, 0, 8)
    assert bounds(Datatype.create_struct([2], [0], [CHAR])) == (2, 0, 2, 0, 2)
    assert bounds(Datatype.create_struct([1, 1, 1], [0, 8, 16], [INT, DOUBLE, CHAR])) == (
        13, 0, 24, 0, 17)
    # complex doubles align to 8, not 16: struct {double complex; char} is 24 bytes
    assert Datatype.create_struct([1, 1], [0, 16], [dt.C_DOUBLE_COMPLEX, CHAR]).extent == 24


def test_nested_types_by_hand() -> None:
    s = Datatype.create_struct([1, 1], [0, 8], [DOUBLE, CHAR])  # size 9, extent 16
    assert bounds(s.create_contiguous(3)) == (27, 0, 48, 0, 41)
    assert bounds(INT.create_contiguous(3).create_vector(2, 1, 2)) == (24, 0, 36, 0, 36)
    # a struct of a vector (extent 32) and an int at 40: align 8 -> ub 48
    v = DOUBLE.create_vector(2, 1, 3)
    nested = Datatype.create_struct([1, 1], [0, 40], [v, INT])
    assert bounds(nested) == (20, 0, 48, 0, 44)
    assert bounds(nested.create_vector(2, 1, 2)) == (40, 0, 144, 0, 140)


def test_resized_sets_lb_and_extent_but_not_the_data_4_1_7() -> None:
    r = DOUBLE.create_resized(-4, 16)
    assert bounds(r) == (8, -4, 16, 0, 8)
    assert r.ub == 12
    assert bounds(r.create_contiguous(2)) == (16, -4, 32, 0, 24)


def test_resized_markers_are_sticky_in_a_struct_4_1_6() -> None:
    """4.1.6: once a member carries ub/lb markers, the markers alone give lb and ub: the
    DOUBLE at byte 32 lies beyond the extent, and no epsilon is added."""
    r = INT.create_resized(0, 6)
    s = Datatype.create_struct([1, 1], [0, 32], [r, DOUBLE])
    assert bounds(s) == (12, 0, 6, 0, 40)


def test_subarray_in_c_and_fortran_order_4_1_3() -> None:
    """A 2x3 block at (1, 1) of a 4x5 INT array: lb 0 and extent the whole array."""
    c = INT.create_subarray([4, 5], [2, 3], [1, 1], ORDER_C)
    assert bounds(c) == (24, 0, 80, 24, 32)  # elements 6..8 and 11..13
    f = INT.create_subarray([4, 5], [2, 3], [1, 1], ORDER_FORTRAN)
    assert bounds(f) == (24, 0, 80, 20, 40)  # column-major: elements 5..6, 9..10, 13..14
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    assert pack(a, 1, c).view(np.int32).tolist() == a[1:3, 1:4].ravel().tolist()
    af = np.asfortranarray(a)
    assert pack(af, 1, f).view(np.int32).tolist() == a[1:3, 1:4].ravel(order="F").tolist()


def test_subarray_of_three_dimensions_packs_the_block() -> None:
    a = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
    t = DOUBLE.create_subarray([4, 5, 6], [2, 2, 3], [1, 3, 2]).commit()
    assert np.array_equal(pack(a, 1, t).view(np.float64), a[1:3, 3:5, 2:5].ravel())


# -- type_size, pack_size ------------------------------------------------------------------

def test_type_size_is_undefined_when_it_does_not_fit_an_int_4_1_5() -> None:
    """4.1.5: if the OUT parameter cannot express the size it is set to MPI_UNDEFINED;
    MPI_TYPE_SIZE_X (an MPI_Count) still gives the exact value."""
    huge = DOUBLE.create_contiguous(2**12).create_contiguous(2**20)
    assert type_size(huge) == UNDEFINED
    assert type_size_x(huge) == 2**35
    assert type_size(BYTE.create_contiguous(INT_MAX)) == INT_MAX
    assert type_size(BYTE.create_contiguous(INT_MAX + 1)) == UNDEFINED


def test_type_size_counts_data_not_holes_4_1_5() -> None:
    """4.1.5: the size of the type signature: holes are not counted, repeats are."""
    assert type_size(DOUBLE.create_vector(4, 1, 10)) == 32
    assert type_size(DOUBLE.create_indexed_block(1, [0, 0, 0])) == 24
    with pytest.raises(ErrType):
        type_size("DOUBLE")


def test_pack_size_is_exactly_count_times_size() -> None:
    """mpisim packs without a header: the bound is exact, whatever the holes."""
    v = DOUBLE.create_vector(3, 1, 7)
    assert pack_size(5, v) == 5 * 24
    assert pack_size(0, v) == 0
    with pytest.raises(ErrCount):
        pack_size(-1, DOUBLE)
    with pytest.raises(ErrCount):
        pack_size(2.5, DOUBLE)


# -- constructor arguments -----------------------------------------------------------------

def test_bad_constructor_arguments_are_mpi_errors() -> None:
    with pytest.raises(ErrCount):
        DOUBLE.create_contiguous(-1)
    with pytest.raises(ErrArg, match="blocklength"):
        DOUBLE.create_vector(2, -1, 3)
    with pytest.raises(ErrArg, match="as many"):
        DOUBLE.create_indexed([1, 2], [0])
    with pytest.raises(ErrArg, match="as many"):
        Datatype.create_struct([1], [0, 8], [DOUBLE, INT])
    with pytest.raises(ErrType):
        Datatype.create_struct([1], [0], ["DOUBLE"])
    with pytest.raises(ErrArg, match="does not fit"):
        INT.create_subarray([4, 5], [2, 3], [3, 0])
    with pytest.raises(ErrArg, match="order"):
        INT.create_subarray([4], [2], [0], order=3)
    with pytest.raises(ErrArg, match="integer"):
        DOUBLE.create_hindexed([1], [0.5])


# -- commit --------------------------------------------------------------------------------

def test_uncommitted_derived_type_is_refused_in_communication_4_1_9() -> None:
    """4.1.9: a datatype must be committed before it is used in communication."""
    v = DOUBLE.create_vector(2, 1, 3)
    assert not v.committed
    with pytest.raises(ErrType, match="not committed"):
        check_committed(v)
    assert v.commit() is v and check_committed(v) is v
    assert check_committed(DOUBLE) is DOUBLE
    with pytest.raises(ErrType, match="not a datatype"):
        check_committed(42)


# -- pack / unpack -------------------------------------------------------------------------

def test_pack_reads_through_the_type_map() -> None:
    """The classic column type: vector(3, 1, 4) resized to one double packs a 3x4 matrix
    column by column."""
    col = DOUBLE.create_vector(3, 1, 4).create_resized(0, 8).commit()
    m = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(pack(m, 4, col).view(np.float64), m.T.ravel())


def test_pack_follows_type_map_order_not_address_order() -> None:
    t = DOUBLE.create_hindexed([1, 1], [8, 0])
    assert pack(np.array([1.0, 2.0]), 1, t).view(np.float64).tolist() == [2.0, 1.0]
    s = Datatype.create_struct([1, 1], [4, 0], [INT, INT])
    assert pack(np.array([5, 6], dtype=np.int32), 1, s).view(np.int32).tolist() == [6, 5]


def test_pack_and_unpack_large_counts_without_a_python_loop() -> None:
    x = np.arange(2_000_000, dtype=np.float64)
    every_other = DOUBLE.create_resized(0, 16).commit()
    packed = pack(x, 1_000_000, every_other)
    assert np.array_equal(packed.view(np.float64), x[::2])
    y = np.full_like(x, -1.0)
    unpack(packed, y, 1_000_000, every_other)
    assert np.array_equal(y[::2], x[::2]) and np.all(y[1::2] == -1.0)


def test_pack_refuses_a_buffer_too_small_for_the_type_map() -> None:
    v = DOUBLE.create_vector(2, 1, 3)
    with pytest.raises(ErrArg, match="too small"):
        pack(np.zeros(3), 1, v)  # needs bytes 0..31
    with pytest.raises(ErrArg, match="too small"):
        pack(np.zeros(8), 1, DOUBLE.create_vector(2, 1, -1))  # reaches before the buffer
    assert pack(np.zeros(4), 1, v).size == 16


def test_pack_refuses_what_is_not_plain_contiguous_data() -> None:
    with pytest.raises(ErrArg, match="numpy array"):
        pack([1.0, 2.0], 2, DOUBLE)
    with pytest.raises(ErrArg, match="contiguous"):
        pack(np.zeros(10)[::2], 2, DOUBLE)
    with pytest.raises(ErrArg, match="objects"):
        pack(np.array([None, 1]), 1, BYTE)
    with pytest.raises(ErrType):
        pack(np.zeros(2), 1, "DOUBLE")


def test_unpack_a_short_message_fills_only_the_elements_sent_3_3_1() -> None:
    """3.3.1: the message may be shorter than the receive; the rest is left as it was."""
    v = DOUBLE.create_vector(2, 1, 3).commit()
    out = np.full(8, -1.0)
    unpack(np.array([1.0, 2.0, 3.0]).view(np.uint8), out, 2, v)
    assert out.tolist() == [1.0, -1, -1, 2.0, 3.0, -1, -1, -1]


def test_unpack_a_longer_message_is_a_truncation_error_3_2_4() -> None:
    with pytest.raises(ErrTruncate, match="larger than the receive buffer"):
        unpack(np.zeros(12, dtype=np.uint8), np.zeros(4, dtype=np.int32), 2, INT)


def test_message_ending_inside_a_basic_element_is_a_type_error_3_3_1() -> None:
    """3.3.1: the sent signature must match a prefix of the received one, element by
    element; six bytes cannot be ints, and ten bytes end inside the int of {double; int}."""
    with pytest.raises(ErrType, match="ends inside a basic element"):
        unpack(np.zeros(6, dtype=np.uint8), np.zeros(4, dtype=np.int32), 2, INT)
    pair = Datatype.create_struct([1, 1], [0, 8], [DOUBLE, INT])
    with pytest.raises(ErrType):
        check_message_size(10, 2, pair)
    check_message_size(8, 2, pair)  # the double alone: a prefix of the signature
    check_message_size(12 + 8, 2, pair)
    check_message_size(4, 1, INT.create_contiguous(3))  # one int of three


def test_unpack_refuses_a_read_only_or_too_small_buffer() -> None:
    ro = np.zeros(4)
    ro.flags.writeable = False
    with pytest.raises(ErrArg, match="read-only"):
        unpack(np.zeros(8, dtype=np.uint8), ro, 1, DOUBLE)
    with pytest.raises(ErrArg, match="too small"):
        unpack(np.zeros(8, dtype=np.uint8), np.zeros(1), 2, DOUBLE)


# -- a random type tree, packed and unpacked -----------------------------------------------

BASICS = [BYTE, CHAR, SHORT, INT, FLOAT, DOUBLE, dt.C_DOUBLE_COMPLEX]


def build(spec: tuple) -> tuple[Datatype, list[int]]:
    """Build a type from a spec and, independently of mpisim's flattening, the byte
    offsets of its data in type-map order, by direct recursion over the definitions."""
    kind, *args = spec
    if kind == "basic":
        return args[0], list(range(args[0].size))
    if kind == "struct":
        children, disps, bls = args
        built = [build(c) for c in children]
        offsets = [d + j * t.extent + o for (t, offs), d, n in zip(built, disps, bls, strict=True)
                   for j in range(n) for o in offs]
        return Datatype.create_struct(bls, disps, [t for t, _ in built]), offsets
    old, offs = build(args[0])
    rest = args[1:]

    def runs(starts_and_counts: list[tuple[int, int]]) -> list[int]:
        return [d + j * old.extent + o for d, n in starts_and_counts for j in range(n)
                for o in offs]

    if kind == "contiguous":
        return old.create_contiguous(*rest), runs([(0, rest[0])])
    if kind == "vector":
        count, bl, stride = rest
        return old.create_vector(*rest), runs([(i * stride * old.extent, bl) for i in range(count)])
    if kind == "hvector":
        count, bl, stride = rest
        return old.create_hvector(*rest), runs([(i * stride, bl) for i in range(count)])
    if kind == "indexed":
        bls, disps = rest
        return (old.create_indexed(bls, disps),
                runs([(d * old.extent, n) for n, d in zip(bls, disps, strict=True)]))
    if kind == "hindexed":
        bls, disps = rest
        return old.create_hindexed(bls, disps), runs(list(zip(disps, bls, strict=True)))
    assert kind == "resized"
    return old.create_resized(*rest), offs


small = st.integers(0, 3)
leaf = st.sampled_from(BASICS).map(lambda t: ("basic", t))


def blocks(scale: int) -> st.SearchStrategy:
    pairs = st.lists(st.tuples(small, st.integers(-4, 6)), min_size=1, max_size=3)
    return pairs.map(lambda ps: ([p[0] for p in ps], [p[1] * scale for p in ps]))


def trees(depth: int) -> st.SearchStrategy:
    if depth == 0:
        return leaf
    sub = trees(depth - 1)
    member = st.tuples(sub, st.integers(-32, 64), small)
    return st.one_of(
        leaf,
        st.tuples(st.just("contiguous"), sub, small),
        st.tuples(st.just("vector"), sub, small, small, st.integers(-3, 4)),
        st.tuples(st.just("hvector"), sub, small, small, st.integers(-24, 40)),
        st.tuples(sub, blocks(1)).map(lambda a: ("indexed", a[0], *a[1])),
        st.tuples(sub, blocks(5)).map(lambda a: ("hindexed", a[0], *a[1])),
        st.tuples(st.just("resized"), sub, st.integers(-16, 16), st.integers(1, 48)),
        st.lists(member, min_size=1, max_size=3).map(
            lambda ms: ("struct", [m[0] for m in ms], [m[1] for m in ms], [m[2] for m in ms])),
    )


@settings(max_examples=150, deadline=None)
@given(trees(3), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_pack_then_unpack_returns_the_data_for_random_type_trees(
        spec: tuple, count: int, seed: int) -> None:
    t, offsets = build(spec)
    assume(len(offsets) * count <= 20_000)
    t.commit()
    assert t.size == len(offsets)
    if offsets:
        assert t.true_lb == min(offsets) and t.true_extent == max(offsets) + 1 - min(offsets)
    # place the buffer so that every element's data lies inside it
    starts = [i * t.extent for i in range(count)]
    lo = min((s + o for s in starts for o in offsets), default=0)
    hi = max((s + o + 1 for s in starts for o in offsets), default=0)
    shift = -lo
    placed = t.create_hindexed([1], [shift]).commit()
    rng = np.random.default_rng(seed)
    buf = rng.integers(0, 256, size=hi - lo + 3, dtype=np.uint8)

    packed = pack(buf, count, placed)
    expected = [buf[shift + s + o] for s in starts for o in offsets]
    assert packed.size == count * t.size == pack_size(count, t)
    assert packed.tolist() == [int(v) for v in expected]

    out = np.zeros_like(buf)
    unpack(packed, out, count, placed)
    touched = sorted({shift + s + o for s in starts for o in offsets})
    assert out[touched].tolist() == buf[touched].tolist()
    untouched = np.ones(buf.size, dtype=bool)
    untouched[touched] = False
    assert not out[untouched].any()
    assert np.array_equal(pack(out, count, placed), packed)


# -- through a simulation ------------------------------------------------------------------

def test_derived_types_in_communication_move_count_times_size_bytes_4_1_11() -> None:
    """4.1.11: a send of count elements of a derived type carries count x size bytes, which
    the receiver scatters through its own datatype; a message that does not fit is
    MPI_ERR_TRUNCATE, one that ends inside a basic element MPI_ERR_TYPE."""
    import mpisim as ms

    col = DOUBLE.create_vector(3, 1, 4).commit()
    cols = col.create_resized(0, 8).commit()

    def program(mpi):
        m = np.arange(12.0).reshape(3, 4)
        if mpi.rank == 0:
            yield mpi.send(buf=m, count=1, datatype=col, dest=1, tag=0)
            yield mpi.send(buf=m, count=2, datatype=cols, dest=1, tag=1)
            yield mpi.send(buf=m, count=2, datatype=cols, dest=1, tag=2)
            yield mpi.send(buf=np.zeros(3, dtype=np.int16), count=3, datatype=SHORT, dest=1, tag=3)
            return None
        out = np.full((3, 4), -1.0)
        s1 = yield mpi.recv(buf=out, count=1, datatype=col, source=0, tag=0)
        flat = np.zeros(6)
        s2 = yield mpi.recv(buf=flat, count=6, datatype=DOUBLE, source=0, tag=1)
        errors = []
        for tag, buf, count, datatype in ((2, np.zeros(12), 1, col),
                                          (3, np.zeros(2, dtype=np.int32), 2, INT)):
            try:
                yield mpi.recv(buf=buf, count=count, datatype=datatype, source=0, tag=tag)
            except ms.MPIError as e:
                errors.append(e.error_class)
        return out, s1.count, flat.tolist(), s2.count, errors

    result = ms.run(program, ranks=2)
    assert result.outcome == ms.Outcome.COMPLETED
    out, n1, flat, n2, errors = result.returned[1]
    m = np.arange(12.0).reshape(3, 4)
    assert out[:, 0].tolist() == m[:, 0].tolist() and np.all(out[:, 1:] == -1.0)
    assert (n1, n2) == (24, 48)
    assert flat == m[:, :2].T.ravel().tolist()
    assert errors == ["MPI_ERR_TRUNCATE", "MPI_ERR_TYPE"]
