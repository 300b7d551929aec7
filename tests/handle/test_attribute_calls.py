"""Attributes, info objects and node-aware splits in the ``mpi`` handle (MPI 4.1 §7.4.2,
§7.7, §9.1.2, §10; mpisim.handle.attributes, mpisim.handle.comms)."""

from __future__ import annotations

import pytest

import mpisim as ms
from mpisim.mpi import attributes as attr
from mpisim.mpi.constants import (
    ANY_SOURCE,
    COMM_TYPE_HW_GUIDED,
    COMM_TYPE_SHARED,
    PROC_NULL,
    UNDEFINED,
)
from mpisim.mpi.errors import ErrInfoKey, ErrInfoNokey, ErrKeyval


def run(program, ranks=2, **kwargs):
    out: dict = {}
    result = ms.run(lambda mpi: program(mpi, out), ranks=ranks, **kwargs)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return out


def predefined(mpi, out):
    dup = yield mpi.comm_dup()
    out[mpi.rank] = {comm: {name: mpi.comm_get_attr(k, comm=c) for name, k in
                            attr.PREDEFINED.items()}
                     for comm, c in (("world", None), ("self", mpi.comm_self), ("dup", dup))}


def test_predefined_attributes_have_mpich_5_0_2_s_values_on_every_communicator():
    got = run(predefined, 4, mpi={"profile": "mpich-5.0"})[0]
    expected = {"TAG_UB": 2**29 - 1, "HOST": PROC_NULL, "IO": ANY_SOURCE,
                "WTIME_IS_GLOBAL": 0, "UNIVERSE_SIZE": None, "LASTUSEDCODE": 0x3FFFFFFF,
                "APPNUM": 0}
    assert got == {"world": expected, "self": expected, "dup": expected}


def test_predefined_attributes_have_open_mpi_5_0_11_s_values_on_world_and_its_duplicates():
    got = run(predefined, 4, mpi={"profile": "openmpi-5.0"})[0]
    expected = {"TAG_UB": 2**31 - 1, "HOST": None, "IO": ANY_SOURCE, "WTIME_IS_GLOBAL": 0,
                "UNIVERSE_SIZE": 4, "LASTUSEDCODE": 92, "APPNUM": 0}
    assert got["world"] == expected and got["dup"] == expected
    assert set(got["self"].values()) == {None}  # Open MPI sets none on MPI_COMM_SELF


def test_7_7_2_a_new_keyval_never_takes_a_live_or_freed_keyvals_number():
    """7.7.2: MPI_Comm_free_keyval frees only the freed keyval; one made after it is a new
    keyval, whose attributes are its own (a number given again once replaced a live one)."""

    def program(mpi, out):
        first, second = mpi.comm_create_keyval(), mpi.comm_create_keyval()
        mpi.comm_set_attr(first, "first")
        mpi.comm_set_attr(second, "second")
        mpi.comm_free_keyval(first)
        third = mpi.comm_create_keyval()
        out[mpi.rank] = (len({first, second, third}), mpi.comm_get_attr(second),
                         mpi.comm_get_attr(third))
        yield mpi.barrier()

    assert run(program)[0] == (3, "second", None)


def test_user_attributes_are_copied_by_their_keyval_and_deleted_on_free():
    deleted = []

    def program(mpi, out):
        copied = mpi.comm_create_keyval(copy_fn=lambda c, k, v: v + 1,
                                        delete_fn=lambda c, k, v: deleted.append(v))
        kept = mpi.comm_create_keyval()  # not copied by comm_dup
        mpi.comm_set_attr(copied, 10)
        mpi.comm_set_attr(kept, "x")
        dup = yield mpi.comm_dup()
        out[mpi.rank] = (mpi.comm_get_attr(copied, comm=dup), mpi.comm_get_attr(kept, comm=dup))
        yield mpi.comm_free(dup)
        mpi.comm_delete_attr(copied)
        with pytest.raises(ErrKeyval):
            mpi.comm_set_attr(attr.TAG_UB, 1)
        assert mpi.comm_free_keyval(kept) == attr.KEYVAL_INVALID
    assert run(program, 1) == {0: (11, None)}
    assert deleted == [11, 10]  # the duplicate's, when freed; the world's, when deleted


def test_info_objects_keep_the_order_keys_were_set():
    def program(mpi, out):
        info = mpi.info_create()
        mpi.info_set(info, "b", "2")
        mpi.info_set(info, "a", "1")
        copy = mpi.info_dup(info)
        mpi.info_delete(info, "b")
        with pytest.raises(ErrInfoNokey):
            mpi.info_delete(info, "b")
        with pytest.raises(ErrInfoKey):
            mpi.info_set(info, "k" * 256, "v")
        dup = yield mpi.comm_dup_with_info(copy)
        hints = mpi.comm_get_info(dup)
        out[mpi.rank] = (mpi.info_get_nkeys(info), mpi.info_get(info, "b"),
                         [mpi.info_get_nthkey(copy, i) for i in range(2)],
                         mpi.info_get(hints, "a"))
    assert run(program, 1) == {0: (1, None, ["b", "a"], "1")}


def test_split_type_shared_groups_the_ranks_of_a_node():
    def program(mpi, out):
        node = yield mpi.comm_split_type(COMM_TYPE_SHARED, key=-mpi.rank)
        none = yield mpi.comm_split_type(UNDEFINED)
        info = mpi.info_create()
        mpi.info_set(info, "mpi_hw_resource_type", "mpi_shared_memory")
        guided = yield mpi.comm_split_type(COMM_TYPE_HW_GUIDED, info=info)
        out[mpi.rank] = (node.size, node.rank, none, guided.size)
    # one node when the network says nothing (every rank of an mpiexec on one machine)
    assert run(program, 4)[1] == (4, 2, None, 4)
    out = run(program, 4, network={"ranks_per_node": 2})
    assert out[1] == (2, 0, None, 2) and out[2] == (2, 1, None, 2)
