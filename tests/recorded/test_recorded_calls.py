"""A recorded call in the handle's terms (mpisim.recorded.calls): the names the replay and
--to-yaml know come from the handle's table, and a recorded call's arguments are the
handle's keyword arguments, by the handle's parameter names."""

from __future__ import annotations

import inspect

from mpisim.handle.calltable import CALLS, mpi_name
from mpisim.handle.rank import Rank
from mpisim.mpi.constants import ANY_SOURCE, ANY_TAG
from mpisim.recorded import calls
from mpisim.recorded.calls import handle_args
from mpisim.recorded.read.records import Call
from mpisim.recorded.read.trace import MADE_AS_SPLIT
from mpisim.recorded.replayer.objects import PERSISTENT_COLLECTIVES
from mpisim.recorded.replayer.program import _CALLS
from mpisim.recorded.toyaml.write import _WRITERS

RECORDER_OWN = {"Init", "Finalize", "Abort", "Comm_set_errhandler", "Testany", "Testsome",
                "Session_finalize", "Group_from_session_pset", "Type_commit", "Type_free",
                "Op_create", "Op_free", "Cancel", *PERSISTENT_COLLECTIVES, *calls.ISENDRECVS}
"""What the recorder logs that the handle has no call for (the communicator makers of
MADE_AS_SPLIT are the handle's cart_create, comm_create, comm_split_type...; a session's
groups are made from their members, its end is local; a datatype's and an op's life, a
cancel and the persistent collectives are the replay's own, mpisim.recorded.replayer.objects;
MPI_Isendrecv[_replace] an irecv and an isend under one request, MPI 4.1 §3.10)."""


def test_every_call_the_replay_knows_is_a_handle_call_by_its_mpi_name_or_the_recorder_s():
    handle = {mpi_name(name).removeprefix("MPI_") for name in CALLS}
    assert set(_CALLS) - handle == RECORDER_OWN
    assert set(MADE_AS_SPLIT) <= set(_CALLS) & handle
    assert set(_WRITERS) <= set(_CALLS)  # --to-yaml writes a part of what the replay runs


def test_the_families_are_the_handle_s():
    assert calls.SENDS == ("Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend",
                           "Irsend")
    blocking = {"Bcast", "Reduce", "Allreduce", "Gather", "Scatter", "Allgather", "Alltoall",
                "Reduce_scatter_block", "Scan", "Exscan", "Gatherv", "Allgatherv", "Scatterv",
                "Alltoallv", "Alltoallw", "Reduce_scatter"}
    assert set(calls.COLLECTIVES) == {*blocking, "Ibarrier", *("I" + n.lower() for n in blocking)}
    assert set(calls.VECTORS) == {"Scatterv", "Alltoallv", "Alltoallw", "Reduce_scatter",
                                  "Iscatterv", "Ialltoallv", "Ialltoallw", "Ireduce_scatter"}
    assert set(calls.PERSISTENT) == {"Send_init", "Bsend_init", "Ssend_init", "Rsend_init",
                                     "Recv_init"}
    assert calls.COMM_BUFFERS["Comm_iflush_buffer"] == "Buffer_iflush"


def test_a_recorded_call_s_arguments_are_the_handle_s_keyword_arguments():
    recv = Call(1, "Recv", 0.0, {"n": 4, "T": 1}, 1)
    assert handle_args(recv) == {"source": ANY_SOURCE, "tag": ANY_TAG, "count": 4,
                                 "datatype": 1, "comm": 0}
    send = Call(2, "Ibsend", 0.0, {"dest": 1, "n": 2, "T": 3, "comm": 2}, 2)
    assert list(handle_args(send).items()) == [("dest", 1), ("tag", 0), ("count", 2),
                                               ("datatype", 3), ("comm", 2)]
    both = Call(3, "Sendrecv", 0.0, {"dest": 1, "tag": 5, "n": 2, "T": 1, "src": 0, "rn": 3,
                                     "rT": 2}, 3)
    assert handle_args(both, calls.SENDRECVS["Sendrecv"]) == {
        "dest": 1, "source": 0, "sendtag": 5, "recvtag": ANY_TAG, "sendcount": 2,
        "recvcount": 3, "sendtype": 1, "recvtype": 2, "comm": 0}


def test_the_parameters_given_are_the_handle_s_own():
    given = [(name, params) for name, params in calls.SENDRECVS.items()]
    given += [(name, calls.SEND_ARGS) for name in calls.PERSISTENT if name != "Recv_init"]
    given += [("Recv_init", calls.RECV_ARGS), ("Gatherv", calls.DATA_ARGS)]
    for name, params in given:
        signature = inspect.signature(getattr(Rank, calls.handle_name(name)))
        assert set(params) <= set(signature.parameters), name
