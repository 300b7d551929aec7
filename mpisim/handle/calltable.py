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
- ``comm``: makes or frees a communicator, named by ``as``;
- ``collective``: count + datatype (or ``bytes``), root, comm, algorithm; ``split``: the
  same, the send buffer one item per rank (scatter, alltoall, reduce_scatter_block).
"""

from __future__ import annotations

from typing import NamedTuple

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


def _family(names: str, **fields: object) -> list[Call]:
    return [Call(name, **fields) for name in names.split()]


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
    Call("comm_dup", op="comm", args=("comm",), binds=("as",)),
    Call("comm_split", op="comm", args=("color", "key", "comm"), binds=("as",)),
    Call("comm_free", op="comm", args=("comm",)),
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
    # -- the handle's other calls -------------------------------------------------------
    *_family("buffer_iflush sendrecv sendrecv_replace recv_init send_init bsend_init "
             "ssend_init rsend_init start startall"),
    *_family("comm_attach_buffer comm_detach_buffer comm_flush_buffer comm_iflush_buffer "
             "session_attach_buffer session_detach_buffer session_flush_buffer "
             "session_iflush_buffer session_init comm_create_from_group"),
    *_family("ibarrier ibcast ireduce iallreduce gatherv igather igatherv iallgather "
             "allgatherv iallgatherv iscatter scatterv iscatterv ialltoall alltoallv "
             "ialltoallv ireduce_scatter_block iscan iexscan"),
    *_family("comm_rank comm_size comm_set_name type_size type_size_x pack_size get_address "
             "aint_add aint_diff", runs=LOCAL),
]

CALLS: dict[str, Call] = {c.name: c for c in _TABLE}
"""Every call of the handle, by name."""

OPS: dict[str, Call] = {c.name: c for c in _TABLE if c.op is not None}
"""The calls a scenario op may make, in the order the scenario language lists them."""
