"""Replaying the communicator makers of a recording (MPI 4.1 §7, §8) and the
neighbourhood collectives (§8.6): one function per recorded call, as :mod:`.program`'s.

A recording made by today's recorder carries each maker's own arguments (:mod:`.trace`):
the replay makes the same call (``cart_create`` with the recorded dims and periods,
``comm_create`` with the recorded group, ``intercomm_create``...), so the replayed
communicator has its topology, its remote group, its node split, and a program's later
queries and neighbourhood collectives work on it. A recording made before those arguments
were logged has the split of the parent that makes the same communicator, and is replayed
as that split. Where the replay's communicator differs from the recording's (another size
or rank: a library that reordered, another node layout for MPI_Comm_split_type), the
difference is a divergence note, never hidden.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from ...mpi.constants import COMM_TYPE_SHARED, UNDEFINED
from ..calls import Unsupported
from ..read.records import Call

__all__ = ["MAKERS", "NEIGHBORS", "REPLAYED", "registered"]

Gen = Generator[Any, Any, None]


def _registered(r: Any, call: Call, made: Any) -> None:
    """The new communicator under the recording's id (and named after it), with a note
    when its size or this process's rank in it differs from the recording's."""
    new = call.out.get("new")
    if made is None or new is None or new < 0:
        return
    differ = [(what, got, recorded) for what, recorded, got in (
        ("size", call.out.get("size"), made.size), ("rank", call.out.get("rank"), made.rank))
        if recorded is not None and recorded != got]
    if differ:
        r.note(call, "made a communicator of " + ", ".join(
            f"{what} {got} (the recording's: {recorded})" for what, got, recorded in differ))
    r.mpi.comm_set_name(made, f"comm{new}")
    r.comms[new] = made


registered = _registered
"""(public: the other call families' communicators are registered so too)"""


def _as_split(r: Any, call: Call, parent: Any) -> Gen:
    """An older recording: the split of the parent that makes the same communicator."""
    color, key = call.split()
    made = yield r.mpi.comm_split(color, key, comm=parent)
    _registered(r, call, made)


def _weights(call: Call, key: str) -> list[int] | None:
    return call.args.get(key)


def maker(r: Any, call: Call) -> Gen:
    """Cart_create, Cart_sub, Graph_create, Dist_graph_create[_adjacent], Comm_create,
    Comm_create_group, Comm_split_type: the recorded call, or its split."""
    mpi, a = r.mpi, call.args
    parent = r.comm(call)
    make = _MAKE.get(call.name)
    if make is None or not make[0] <= a.keys():
        yield from _as_split(r, call, parent)
        return
    groups: list[Any] = []
    made = yield make[1](mpi, a, parent, groups)
    for group in groups:  # the replay's own groups, not the program's: freed (no leak)
        mpi.group_free(group)
    _registered(r, call, made)


def _group(mpi: Any, parent: Any, ranks: list[int], groups: list[Any]) -> Any:
    """The group of ``ranks`` of ``parent`` (kept in ``groups``, freed after the call)."""
    whole = mpi.comm_group(parent)
    part = mpi.group_incl(whole, ranks)
    mpi.group_free(whole)
    groups.append(part)
    return part


def _split_type(value: Any) -> int:
    """The recorded split type: S (MPI_COMM_TYPE_SHARED), U (MPI_UNDEFINED) or a number."""
    named = {"S": COMM_TYPE_SHARED, "U": UNDEFINED}
    return named[value] if value in named else int(value)


_MAKE: dict[str, tuple[set[str], Any]] = {
    "Cart_create": ({"dims"}, lambda mpi, a, p, g: mpi.cart_create(
        a["dims"], [bool(x) for x in a.get("periods", [])], bool(a.get("reorder")), comm=p)),
    "Cart_sub": ({"remain"}, lambda mpi, a, p, g: mpi.cart_sub(
        [bool(x) for x in a["remain"]], comm=p)),
    "Graph_create": ({"index", "edges"}, lambda mpi, a, p, g: mpi.graph_create(
        a["index"], a["edges"], bool(a.get("reorder")), comm=p)),
    "Dist_graph_create_adjacent": ({"ins", "outs"}, lambda mpi, a, p, g:
                                   mpi.dist_graph_create_adjacent(
        a["ins"], a["outs"], a.get("sw"), a.get("dw"), reorder=bool(a.get("reorder")),
        comm=p)),
    "Dist_graph_create": ({"srcs", "degs", "dsts"}, lambda mpi, a, p, g: mpi.dist_graph_create(
        a["srcs"], a["degs"], a["dsts"], a.get("wts"), reorder=bool(a.get("reorder")),
        comm=p)),
    "Comm_create": ({"grp"}, lambda mpi, a, p, g: mpi.comm_create(_group(mpi, p, a["grp"], g),
                                                               comm=p)),
    "Comm_create_group": ({"grp"}, lambda mpi, a, p, g: mpi.comm_create_group(
        _group(mpi, p, a["grp"], g), a.get("tag", 0), comm=p)),
    "Comm_split_type": ({"type"}, lambda mpi, a, p, g: mpi.comm_split_type(
        _split_type(a["type"]), a.get("key", 0), comm=p)),
}
"""Each maker: the recorded keys that say its arguments were logged, and its replay."""


def intercomm(r: Any, call: Call) -> Gen:
    """Intercomm_create (the leader's peer, remote leader and tag at the leaders) and
    Intercomm_merge."""
    mpi, a = r.mpi, call.args
    local = r.comm(call)
    if call.name == "Intercomm_merge":
        made = yield mpi.intercomm_merge(local if local is not None else mpi.comm_world,
                                         bool(a.get("high")))
    else:
        peer = r.comm(call, a["peer"]) if "peer" in a else None
        made = yield mpi.intercomm_create(local, a.get("ll", 0), peer, a.get("rl", 0),
                                          a.get("tag", 0))
    if made is not None and call.out.get("rsize") not in (None, mpi.comm_remote_size(made)
                                                          if made.is_inter else None):
        r.note(call, f"made an intercommunicator with a remote group of "
                     f"{mpi.comm_remote_size(made)}; the recording's had {call.out['rsize']}")
    _registered(r, call, made)


def neighbor(r: Any, call: Call) -> Gen:
    """A neighbourhood collective: what this process sends to each out-neighbour (its
    sizes only; the replay's buffers are its own)."""
    mpi, a = r.mpi, call.args
    comm = r.comm(call)
    name = call.name[0].lower() + call.name[1:]
    target = comm if comm is not None else mpi.comm_world
    outs = len(target.topo.neighbors(target.rank)[1]) if target.topo is not None else 0
    kwargs: dict[str, Any] = {"comm": comm}
    if "ns" in a:  # v and w forms: a count (and type) per out-neighbour
        types = [r.datatype(call, t) for t in a.get("Ts", [])] or \
            [r.datatype(call, a.get("T", 0))] * len(a["ns"])
        kwargs["sendbuf"] = [np.empty(c * t.size, dtype=np.uint8)
                             for c, t in zip(a["ns"], types, strict=False)]
    else:
        kwargs["count"], kwargs["datatype"] = a.get("n", 0), r.datatype(call, a.get("T", 0))
        if "alltoall" in name:
            kwargs["sendbuf"] = [None] * outs
    result = yield getattr(mpi, name)(**kwargs)
    if "r" in call.out:
        r.reqs[call.out["r"]] = result


def group(r: Any, call: Call) -> Gen:
    """MPI_Comm_group, MPI_Group_incl, MPI_Group_excl, MPI_Group_from_session_pset: the
    group the recording names by its members' world ranks (``wr=``), made from the world's
    group (a group is local, MPI 4.1 §7.3: whatever call made it, its members are what
    counts); MPI_Group_free frees it."""
    mpi = r.mpi
    if call.name == "Group_free":
        made = r.groups.pop(call.args.get("gid", -1), None)
        if made is not None:
            mpi.group_free(made)
        return
    members = call.out.get("wr")
    if members is not None and "gid" in call.out:
        world = mpi.comm_group(mpi.comm_world)
        r.groups[call.out["gid"]] = mpi.group_incl(world, members)
        mpi.group_free(world)
    return
    yield


def session(r: Any, call: Call) -> Gen:
    """MPI_Session_init (the replay's session under the recording's id) and
    MPI_Session_finalize (local in mpisim: its session's communicators were freed)."""
    if call.name == "Session_init":
        made = yield r.mpi.session_init()
        if "sid" in call.out:
            r.sessions[call.out["sid"]] = made
    else:
        made = r.sessions.pop(call.args.get("sid", -1), None)
        if made is not None:
            made.finalized = True


def from_group(r: Any, call: Call) -> Gen:
    """MPI_Comm_create_from_group of a recorded group, matched by its string tag."""
    made_group = r.groups.get(call.args.get("gid", -1))
    if made_group is None:
        raise Unsupported(f"{call.where()}: MPI_Comm_create_from_group of a group made by a "
                          "call the recorder does not log")
    made = yield r.mpi.comm_create_from_group(made_group, str(call.args.get("stag", "")))
    _registered(r, call, made)


def idup(r: Any, call: Call) -> Gen:
    """MPI_Comm_idup: its request; the new communicator is the request's once it completed
    (taken by the replay's ``comm`` when a later call names it)."""
    request = yield r.mpi.comm_idup(comm=r.comm(call))
    if "r" in call.out:
        r.reqs[call.out["r"]] = request
    if call.out.get("new", -1) >= 0:
        r.idups[call.out["new"]] = request


MAKERS = tuple(_MAKE)
NEIGHBORS = tuple(f"{i}eighbor_{kind}" for i in ("N", "In") for kind in
                  ("allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"))
REPLAYED: dict[str, Any] = {**dict.fromkeys(MAKERS, maker),
                            "Intercomm_create": intercomm, "Intercomm_merge": intercomm,
                            **dict.fromkeys(NEIGHBORS, neighbor),
                            **dict.fromkeys(("Comm_group", "Group_incl", "Group_excl",
                                             "Group_free", "Group_from_session_pset"), group),
                            "Session_init": session, "Session_finalize": session,
                            "Comm_create_from_group": from_group, "Comm_idup": idup}
"""The recorded calls this module replays, by name."""
