"""The calls of the rank handle ``mpi``, one table: what the handle offers, what a scenario op
may give each, what an op binds and how the scenario interpreter runs it.

The handle (:class:`mpisim.handle.rank.Rank` and the modules that lend it methods), the scenario
parser (:mod:`mpisim.scenario.ops`) and interpreter (:mod:`mpisim.scenario.interpret`) all
read this table, and a test walks it: every entry is a method of the handle named after its
MPI function (``buffer_attach`` is MPI_Buffer_attach), every argument an op may give is a
parameter of that method by the same name, and the handle has no other public call. Adding
a call: its method, then its row here (with ``op`` if scenarios may use it).

``yields`` names the parts of the value a call's ``yield`` gives (``("flag", "status")`` for
MPI_Test); the interpreter binds the parts an op names (``flag: f``, ``status: {...}``,
``size: n``) by these names, so no op needs code of its own to read its result.

``op`` says how an op runs (one runner of the interpreter per kind, not per call):

- ``send``: dest, tag, count + datatype (or ``bytes``), comm; a nonblocking one stores its
  Request (``binds`` ``request``);
- ``recv``: source, tag, count + datatype (or ``bytes``), comm; a status or a request;
- ``probe``: source, tag, comm; its status (and flag);
- ``request`` / ``requests``: one request, or a list (``r[*]``);
- ``buffer``: the process's buffer, or with ``comm:`` that communicator's
  (``comm_<verb>_buffer``); attach also takes ``count`` + ``datatype`` + ``messages``;
- ``local``: the arguments as given (barrier, compute);
- ``level``: the thread level (init_thread's ``required`` a level's name), its value bound
  by the name of its OUT argument (``provided``, ``flag``);
- ``comm``: makes or frees a communicator, named by ``as``;
- ``topology``: makes a Cartesian communicator (``dims``, ``periods`` lists), named by ``as``;
- ``query``: a local call whose value's parts the op binds by name (``cart_shift``'s
  ``source`` and ``dest``);
- ``window``: makes a window (size, disp_unit, comm), named by ``as``; ``rma``: an
  operation (target, target_disp, count + datatype or ``bytes``, op) or a synchronization
  (target, lock_type, assertion) on the window named by ``win``;
- ``collective``: count + datatype (or ``bytes``), root, comm, algorithm; ``split``: the
  same, the send buffer one item per rank (scatter, alltoall, reduce_scatter_block);
  ``vector``: a count per rank (``sendcounts`` or ``recvcounts``: a list, or an expression
  of ``peer``), datatype (``sendtypes`` for alltoallw), root, comm, algorithm. The
  nonblocking collectives (``ibcast``...) take their blocking form's arguments and store
  their Request (``binds`` ``request``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["CALLS", "LOCAL", "OPS", "YIELD", "Call", "mpi_name"]

YIELD, LOCAL = "yield", "local"
"""How a program makes the call: yields its event (the value of the ``yield`` is the call's
OUT result), or gets its value at once (local calls: comm_rank, type_size, ...)."""


class Call(NamedTuple):
    """One call of the handle."""

    name: str
    runs: str = YIELD
    op: str | None = None             # how a scenario op runs it; None: not a scenario op
    args: tuple[str, ...] = ()        # the handle's parameters an op may give, by name
    binds: tuple[str, ...] = ()       # what an op may bind from the result
    yields: tuple[str, ...] = ()      # the parts of the value the call yields, by name


def mpi_name(name: str) -> str:
    """The C name of a handle call: ``buffer_attach`` -> ``MPI_Buffer_attach``."""
    return "MPI_" + name[0].upper() + name[1:]


_P2P = ("count", "datatype", "tag", "comm")
_SEND = ("dest", *_P2P)
_RECV = ("source", *_P2P)
_COLL = ("count", "datatype", "comm", "algorithm")
_ROOTED = ("root", *_COLL)


def _family(names: str, **fields: Any) -> list[Call]:
    return [Call(name, **fields) for name in names.split()]


_STORES_REQUEST: dict[str, Any] = {"binds": ("request",), "yields": ("request",)}
"""A nonblocking call's op stores its Request (``request: r``)."""

_VECTORS = [
    Call("gatherv", op="collective", args=_ROOTED),
    Call("allgatherv", op="collective", args=_COLL),
    Call("scatterv", op="vector", args=("sendcounts", *_ROOTED)),
    Call("alltoallv", op="vector", args=("sendcounts", *_COLL)),
    Call("alltoallw", op="vector", args=("sendcounts", "sendtypes", "comm", "algorithm")),
    Call("reduce_scatter", op="vector", args=("recvcounts", "datatype", "comm", "algorithm")),
]
"""The v and w forms (MPI 4.1 §6.5 to §6.8, §6.10.2): gatherv and allgatherv give each
rank's own ``count``; the others a count per rank (see :mod:`mpisim.scenario.ops`)."""


def _nonblocking(names: str) -> list[Call]:
    """The nonblocking form of each named collective op (6.12): its arguments, and the
    Request it stores."""
    return [Call("i" + name, op=_OP_OF[name], args=_ARGS_OF[name], **_STORES_REQUEST)
            for name in names.split()]


_BLOCKING = [
    Call("bcast", op="collective", args=_ROOTED),
    Call("reduce", op="collective", args=_ROOTED),
    Call("allreduce", op="collective", args=_COLL),
    Call("gather", op="collective", args=_ROOTED),
    Call("scatter", op="split", args=_ROOTED),
    Call("allgather", op="collective", args=_COLL),
    Call("alltoall", op="split", args=_COLL),
    Call("reduce_scatter_block", op="split", args=_COLL),
    Call("scan", op="collective", args=_COLL),
    Call("exscan", op="collective", args=_COLL),
]
"""The blocking collectives a scenario has had an op for since the first version."""
_OP_OF = {c.name: c.op for c in (*_BLOCKING, *_VECTORS)}
_ARGS_OF = {c.name: c.args for c in (*_BLOCKING, *_VECTORS)}

_RMA = ("count", "datatype", "target", "target_disp", "win")
_WINDOWS = [
    *_family("win_allocate win_create", op="window", args=("size", "disp_unit", "comm"),
             binds=("as",)),
    Call("put", op="rma", args=_RMA),
    Call("get", op="rma", args=_RMA),
    Call("accumulate", op="rma", args=(*_RMA, "op")),
    Call("win_fence", op="rma", args=("assertion", "win")),
    Call("win_lock", op="rma", args=("target", "lock_type", "assertion", "win")),
    Call("win_unlock", op="rma", args=("target", "win")),
    Call("win_flush", op="rma", args=("target", "win")),
    Call("win_lock_all", op="rma", args=("assertion", "win")),
    Call("win_unlock_all", op="rma", args=("win",)),
    Call("win_free", op="rma", args=("win",)),
]
"""One-sided communication (MPI 4.1 §12; sizes only, no data): a window made with ``as``
(``window``), then named by ``win`` in its operations and synchronization calls (``rma``)."""

_FILE = ("fh",)
_AT = ("fh", "offset", "count", "datatype")
_POINTER = ("fh", "count", "datatype")
_FILES = [
    Call("file_open", op="file", args=("filename", "amode", "comm"), binds=("as",)),
    Call("file_close", op="file", args=_FILE),
    Call("file_delete", op="file", args=("filename",)),
    *_family("file_set_size file_preallocate", op="file", args=(*_FILE, "size")),
    Call("file_set_view", op="file", args=(*_FILE, "disp", "etype", "filetype")),
    *_family("file_read_at file_write_at file_read_at_all file_write_at_all", op="file",
             args=_AT, binds=("status",), yields=("status",)),
    *_family("file_iread_at file_iwrite_at file_iread_at_all file_iwrite_at_all", op="file",
             args=_AT, **_STORES_REQUEST),
    *_family("file_read file_write file_read_all file_write_all file_read_shared "
             "file_write_shared file_read_ordered file_write_ordered", op="file",
             args=_POINTER, binds=("status",), yields=("status",)),
    *_family("file_iread file_iwrite file_iread_all file_iwrite_all file_iread_shared "
             "file_iwrite_shared", op="file", args=_POINTER, **_STORES_REQUEST),
    *_family("file_seek_shared", op="file", args=(*_FILE, "offset", "whence")),
    *_family("file_sync", op="file", args=_FILE),
    *_family("file_set_info file_set_atomicity file_read_at_all_begin file_read_at_all_end "
             "file_write_at_all_begin file_write_at_all_end file_read_all_begin "
             "file_read_all_end file_write_all_begin file_write_all_end "
             "file_read_ordered_begin file_read_ordered_end file_write_ordered_begin "
             "file_write_ordered_end"),
    *_family("file_seek file_get_position file_get_byte_offset file_get_position_shared "
             "file_get_size file_get_amode file_get_group file_get_info file_get_view "
             "file_get_type_extent file_get_atomicity register_datarep", runs=LOCAL),
]
"""MPI-IO (MPI 4.1 §14): a file opened with ``as`` (``file_open``, collective), then named
by ``fh`` in the calls on it (``file``: data accesses of ``count`` + ``datatype`` or
``bytes``, zeros written, nothing kept of what is read; views; pointers; sync; close)."""

_TABLE: list[Call] = [
    # -- scenario ops, in the order the scenario language lists them --------------------
    *_family("send bsend ssend rsend", op="send", args=_SEND),
    *_family("isend ibsend issend irsend", op="send", args=_SEND, binds=("request",),
             yields=("request",)),
    Call("irecv", op="recv", args=_RECV, binds=("request",), yields=("request",)),
    Call("recv", op="recv", args=_RECV, binds=("status",), yields=("status",)),
    Call("probe", op="probe", args=("source", "tag", "comm"), binds=("status",),
         yields=("status",)),
    Call("iprobe", op="probe", args=("source", "tag", "comm"), binds=("status", "flag"),
         yields=("flag", "status")),
    Call("wait", op="request", args=("request",), binds=("status",), yields=("status",)),
    Call("waitall", op="requests", args=("requests",), yields=("statuses",)),
    Call("waitany", op="requests", args=("requests",), binds=("index", "status"),
         yields=("index", "status")),
    Call("waitsome", op="requests", args=("requests",), binds=("outcount",),
         yields=("indices", "statuses")),  # outcount: how many indices
    Call("testall", op="requests", args=("requests",), binds=("flag",),
         yields=("flag", "statuses")),
    Call("test", op="request", args=("request",), binds=("status", "flag"),
         yields=("flag", "status")),
    Call("request_free", op="request", args=("request",)),
    Call("buffer_attach", op="buffer", args=("size",)),
    Call("buffer_detach", op="buffer", binds=("size",), yields=("address", "size")),
    Call("buffer_flush", op="buffer"),
    Call("barrier", op="local", args=("comm",)),
    Call("compute", op="local", args=("seconds",)),
    Call("init_thread", runs=LOCAL, op="level", args=("required",), binds=("provided",),
         yields=("provided",)),  # MPI_Init_thread's level (11.2.1)
    Call("query_thread", runs=LOCAL, op="level", binds=("provided",),
         yields=("provided",)),  # MPI_Query_thread (11.6.2)
    Call("is_thread_main", runs=LOCAL, op="level", binds=("flag",),
         yields=("flag",)),  # MPI_Is_thread_main (11.6.2)
    Call("spawn_thread", runs=LOCAL),  # a thread of the rank (not an MPI call)
    Call("current_thread", runs=LOCAL),  # the calling thread (not an MPI call)
    Call("comm_dup", op="comm", args=("comm",), binds=("as",)),
    Call("comm_split", op="comm", args=("color", "key", "comm"), binds=("as",)),
    Call("comm_free", op="comm", args=("comm",)),
    Call("cart_create", op="topology", args=("dims", "periods", "reorder", "comm"),
         binds=("as",)),
    Call("cart_shift", runs=LOCAL, op="query", args=("direction", "disp", "comm"),
         binds=("source", "dest"), yields=("source", "dest")),
    *_BLOCKING,
    *_VECTORS,
    Call("ibarrier", op="collective", args=("comm", "algorithm"), **_STORES_REQUEST),
    *_nonblocking("bcast reduce allreduce gather scatter allgather alltoall "
                  "reduce_scatter_block scan exscan"),
    *_nonblocking(" ".join(c.name for c in _VECTORS)),
    *_WINDOWS,
    # -- the handle's other calls -------------------------------------------------------
    *_family("buffer_iflush sendrecv sendrecv_replace recv_init send_init bsend_init "
             "ssend_init rsend_init start startall"),
    *_family("mprobe improbe mrecv imrecv"),  # matched probes (3.8.2) and their receives
    *_family("comm_attach_buffer comm_detach_buffer comm_flush_buffer comm_iflush_buffer "
             "session_attach_buffer session_detach_buffer session_flush_buffer "
             "session_iflush_buffer session_init comm_create_from_group"),
    *_family("comm_rank comm_size comm_set_name type_size type_size_x pack_size get_address "
             "aint_add aint_diff", runs=LOCAL),
    Call("reduce_local", runs=LOCAL),  # MPI_Reduce_local (6.9.7)
    # -- communicators (MPI 4.1 §7.4), attributes (§7.7), info (§10) -------------------------
    *_family("comm_dup_with_info comm_idup comm_idup_with_info comm_split_type"),
    *_family("comm_create_keyval comm_free_keyval comm_set_attr comm_get_attr comm_delete_attr "
             "comm_set_info comm_get_info info_create info_set info_get info_delete "
             "info_get_nkeys info_get_nthkey info_dup info_free", runs=LOCAL),
    # -- groups and intercommunicators (MPI 4.1 §7.2-§7.6): mpisim.handle.groups ------------
    *_family("comm_create comm_create_group intercomm_create intercomm_create_from_groups "
             "intercomm_merge"),
    *_family("comm_group comm_remote_group comm_remote_size comm_test_inter comm_compare "
             "group_size group_rank group_translate_ranks group_compare group_incl group_excl "
             "group_range_incl group_range_excl group_union group_intersection "
             "group_difference group_free", runs=LOCAL),
    # -- dynamic processes (MPI 4.1 §11.8-§11.10): mpisim.handle.dynamic --------------------
    *_family("comm_spawn comm_spawn_multiple comm_accept comm_connect comm_disconnect "
             "comm_join"),
    *_family("comm_get_parent open_port close_port publish_name unpublish_name lookup_name",
             runs=LOCAL),
    # -- process topologies (MPI 4.1 §8): mpisim.handle.topology ---------------------------
    *_family("cart_sub graph_create dist_graph_create_adjacent dist_graph_create "
             "neighbor_allgather ineighbor_allgather neighbor_allgatherv ineighbor_allgatherv "
             "neighbor_alltoall ineighbor_alltoall neighbor_alltoallv ineighbor_alltoallv "
             "neighbor_alltoallw ineighbor_alltoallw"),
    *_family("dims_create topo_test cartdim_get cart_get cart_coords cart_rank cart_map "
             "graphdims_get graph_get graph_neighbors_count graph_neighbors graph_map "
             "dist_graph_neighbors_count dist_graph_neighbors", runs=LOCAL),
    # -- one-sided communication (MPI 4.1 §12): mpisim.handle.rma ---------------------------
    *_family("win_allocate_shared win_create_dynamic get_accumulate fetch_and_op "
             "compare_and_swap rput rget raccumulate rget_accumulate win_start win_complete "
             "win_post win_wait win_test win_flush_all win_flush_local win_flush_local_all "
             "win_sync"),
    *_family("win_shared_query win_attach win_detach win_get_attr win_get_group win_set_name "
             "win_get_name win_set_info win_get_info", runs=LOCAL),
    # -- MPI-IO (MPI 4.1 §14): mpisim.handle.io ---------------------------------------------
    *_FILES,
]

CALLS: dict[str, Call] = {c.name: c for c in _TABLE}
"""Every call of the handle, by name."""

OPS: dict[str, Call] = {c.name: c for c in _TABLE if c.op is not None}
"""The calls a scenario op may make, in the order the scenario language lists them."""
