"""Communicators and sessions (MPI 4.1 §6, §11.3): what matching keys on.

A communicator is a group of processes (its ranks index the group, whose entries are world
ranks) and a context: messages on one communicator never match receives on another (3.5,
6.1). Each communicator has two contexts, as MPICH gives it: ``context`` for point-to-point
traffic and ``context + 1`` for the messages of its collectives, so a collective's traffic
never matches a user's receive. Ranks in reports, the trace and the JSON are world ranks.

A :class:`Comm` is one process's handle (MPI_Comm); the handles of one communicator share
its :class:`CommInfo`. MPI_COMM_WORLD has context 0; the MPI_COMM_SELF of every process
shares context 2 (each talks only to itself).

``comm_dup``, ``comm_split`` and ``comm_create_from_group`` are collective: each member's
call waits until every member has made its matching call (the k-th such call of a process
on a communicator matches the k-th of every other member, as MPI requires collectives to be
called in the same order), then every member gets its handle after the time of an
allgather of (color, key) by recursive doubling: ceil(log2 p) rounds of latency.
``comm_free`` is local here (MPI makes it collective but lets it return early); a freed
handle refuses further use with MPI_ERR_COMM, and a buffer still attached to it is detached
first, waiting for its messages as MPI_Comm_detach_buffer would (MPI 4.1 leaves this to the
implementation; MPICH detaches it).

A :class:`Session` (MPI 4.1 §11.3) is the minimal object that session buffers need:
``session_init`` makes one per process; ``comm_create_from_group(session, tag)`` makes a
communicator over every process (the "mpi://WORLD" process set) that belongs to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .constants import UNDEFINED

__all__ = ["Comm", "CommInfo", "Communicators", "Session"]

WORLD_CONTEXT = 0
SELF_CONTEXT = 2


class CommInfo:
    """What every process's handle of one communicator shares.

    An intercommunicator (MPI 4.1 §7.6) has one CommInfo per side, both with the same
    ``context``: ``group`` is the side's own (local) group, ``remote`` the other side's
    group, ``local`` the intracommunicator of the local group that its collectives use
    (MPICH keeps one too), ``other`` the other side's CommInfo. ``topo`` is the process
    topology (MPI 4.1 §8: a :class:`~mpisim.mpi.topology.Cart`, ``Graph`` or ``DistGraph``),
    or None.
    """

    __slots__ = ("context", "group", "index", "local", "name", "other", "remote",
                 "remote_index", "topo")

    def __init__(self, context: int, group: Any, name: str, topo: Any = None,
                 remote: Any = None) -> None:
        self.context = context
        self.group = group                     # world rank of each rank (a range for world)
        self.name = name
        self.index: dict[int, int] | None = (
            None if isinstance(group, range) and group.start == 0 else
            {w: r for r, w in enumerate(group)})
        self.topo = topo
        self.remote: tuple[int, ...] | None = None if remote is None else tuple(remote)
        self.remote_index: dict[int, int] | None = (
            None if remote is None else {w: r for r, w in enumerate(remote)})
        self.local: CommInfo | None = None
        self.other: CommInfo | None = None

    def rank_of(self, world: int) -> int:
        """This communicator's (local group's) rank of world rank ``world`` (it must be a
        member).

        Parameters
        ----------
        world
            A rank in MPI_COMM_WORLD.
        """
        index = self.index
        return world if index is None else index[world]

    @property
    def everyone(self) -> tuple[int, ...]:
        """Every process of the communicator, both groups of an intercommunicator: the
        members a collective over it waits for."""
        return tuple(self.group) + (self.remote or ())


class Session:
    """One process's MPI session (MPI_Session): what a session buffer belongs to.

    ``yield mpi.session_init()`` makes one.

    Parameters
    ----------
    name
        Its name, as reports show it.
    """

    __slots__ = ("buffer", "finalized", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.buffer: Any = None
        self.finalized = False

    def __repr__(self) -> str:
        return f"<Session {self.name}>"


class Comm:
    """One process's handle of a communicator (MPI_Comm).

    The handle's calls make them (``comm_split``, ``comm_dup``, ``cart_create``...); a
    program passes them as ``comm=`` and reads ``size``, ``rank``, ``name``.

    Parameters
    ----------
    info
        What every member's handle of this communicator shares (its group, context,
        name).
    rank
        The calling process's rank in it.
    session
        The Session it was made from (MPI 4.1 §11.3), or None.
    """

    __slots__ = ("attrs", "buffer", "calls", "colls", "freed", "hints", "info", "label", "rank",
                 "session")

    def __init__(self, info: CommInfo, rank: int, session: Session | None = None) -> None:
        self.info = info
        self.rank = rank              # the calling process's rank in this communicator
        self.session = session
        self.buffer: Any = None       # the buffer attached to it (MPI 4.1), if any
        self.calls = 0                # collective creation calls made on it (matching order)
        self.colls = 0                # collective calls made on it (their messages' tag)
        self.label: str | None = None  # the program's name for it (a scenario's ``as:``)
        self.freed = False
        self.attrs: dict[Any, Any] | None = None  # its attributes (MPI 4.1 §7.7), by keyval
        self.hints: Any = None  # its info hints (MPI_Comm_set_info), an Info or None

    @property
    def context(self) -> int:
        """Its point-to-point context id: messages match only within one context (its
        collectives use the next one, so they never match a user's receive)."""
        return self.info.context

    @property
    def group(self) -> Any:
        """Its members as world ranks, in the order of their ranks in it."""
        return self.info.group

    @property
    def name(self) -> str:
        """MPI's name for it (``MPI_COMM_WORLD``, ``comm#3``...), as reports print it."""
        return self.info.name

    @property
    def label_or_name(self) -> str:
        """What reports call it: the program's name for it, else MPI's."""
        return self.label or self.info.name

    @property
    def size(self) -> int:
        """MPI_Comm_size: how many processes it holds (its local group's, for an
        intercommunicator)."""
        return len(self.info.group)

    @property
    def topo(self) -> Any:
        """Its process topology (MPI 4.1 §8), or None."""
        return self.info.topo

    @property
    def is_inter(self) -> bool:
        """MPI_Comm_test_inter: whether it is an intercommunicator (MPI 4.1 §7.6)."""
        return self.info.remote is not None

    @property
    def peers(self) -> int:
        """How many ranks a point-to-point call may name: its size, or the remote group's
        for an intercommunicator (whose peers are remote ranks, MPI 4.1 §7.6)."""
        remote = self.info.remote
        return len(self.info.group) if remote is None else len(remote)

    def rank_of(self, world: int) -> int:
        """The rank, as a peer, of the process of world rank ``world``: in this
        communicator, or in the remote group of an intercommunicator.

        Parameters
        ----------
        world
            A rank in MPI_COMM_WORLD.
        """
        remote = self.info.remote_index
        return self.info.rank_of(world) if remote is None else remote[world]

    def world(self, rank: int) -> int:
        """The world rank of peer ``rank``: this communicator's rank, or a remote rank of an
        intercommunicator.

        Parameters
        ----------
        rank
            A rank in this communicator (the remote group's, for an intercommunicator).
        """
        remote = self.info.remote
        return self.info.group[rank] if remote is None else remote[rank]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Comm) and other.info is self.info

    def __hash__(self) -> int:
        return hash(self.info.context)

    def __repr__(self) -> str:
        return f"<Comm {self.name}: rank {self.rank} of {self.size}>"


class _Pending:
    """A collective creation call that waits for the other members."""

    __slots__ = ("arrived", "members", "name")

    def __init__(self, name: str, members: Any) -> None:
        self.name = name
        self.members = members
        self.arrived: dict[int, tuple[Any, Callable[[Any], None]]] = {}

    def waits_for(self) -> list[int]:
        return [w for w in self.members if w not in self.arrived]

    def reason(self) -> str:
        return f"waits in {self.name} for the members that have not called it"


class Communicators:
    """The run's communicators: contexts, and the agreement of collective creations."""

    def __init__(self, size: int, latency: float) -> None:
        self.size = size
        self.latency = latency
        self.world = CommInfo(WORLD_CONTEXT, range(size), "MPI_COMM_WORLD")
        self._self_infos: dict[int, CommInfo] = {}
        self._next = SELF_CONTEXT + 2
        self._pending: dict[tuple[Any, ...], _Pending] = {}
        self.created = 0
        # what MPI_Finalize's connectivity reads (mpisim.runs.connected, MPI 4.1 §11.10.4):
        # each spawned process's MPI_COMM_WORLD (its context), and every communicator
        # whose members span several worlds (context -> members) not disconnected
        self.world_of: dict[int, int] = {}
        self.bridges: dict[int, tuple[int, ...]] = {}

    def self_info(self, rank: int) -> CommInfo:
        info = self._self_infos.get(rank)
        if info is None:
            info = self._self_infos[rank] = CommInfo(SELF_CONTEXT, (rank,), "MPI_COMM_SELF")
        return info

    def _context(self) -> int:
        ctx, self._next = self._next, self._next + 2
        return ctx

    def spawned_world(self, group: tuple[int, ...]) -> CommInfo:
        """The MPI_COMM_WORLD of processes started together by MPI_Comm_spawn (MPI 4.1
        §11.8.2): their own group and context."""
        info = CommInfo(self._context(), group, "MPI_COMM_WORLD")
        self.world_of.update(dict.fromkeys(group, info.context))
        return info

    def _bridge(self, info: CommInfo) -> None:
        """Keep ``info`` if its members belong to more than one MPI_COMM_WORLD (only
        spawned processes make that possible): it connects their worlds (§11.10.4)."""
        world_of = self.world_of
        members = info.everyone
        if len({world_of.get(w, WORLD_CONTEXT) for w in members}) > 1:
            self.bridges[info.context] = members

    def disconnected(self, info: CommInfo) -> None:
        """Every member called MPI_Comm_disconnect on it: it connects no one any more
        (§11.10.4; a communicator freed with MPI_Comm_free still does)."""
        self.bridges.pop(info.context, None)

    def rounds_time(self, members: int) -> float:
        """An allgather of small values by recursive doubling: ceil(log2 p) latencies."""
        return self.latency * math.ceil(math.log2(members)) if members > 1 else 0.0

    def agree(self, key: tuple[Any, ...], call: str, members: Any, world: int, arg: Any,
              done: Callable[[Any], None], make: Callable[[dict[int, Any]], dict[int, Any]],
              grow: bool = False) -> _Pending:
        """Member ``world`` made the collective call ``key`` with ``arg``; once every
        member has, ``make({world: arg})`` gives each member's result and ``done`` of each
        is called with its own. Returns what the caller waits on (for deadlock reports).
        ``grow``: the members are the union of what the callers name (a caller of an
        intercommunicator's creation knows its own group and the remote leader)."""
        pending = self._pending.get(key)
        if pending is None:
            pending = self._pending[key] = _Pending(call, members)
        elif grow:  # each caller knows part of the members (its side of an intercomm)
            pending.members = (*pending.members,
                               *(w for w in members if w not in pending.members))
        pending.arrived[world] = (arg, done)
        if len(pending.arrived) == len(pending.members):
            del self._pending[key]
            results = make({w: a for w, (a, _) in pending.arrived.items()})
            if self.world_of:  # (spawned processes: a new communicator may span worlds)
                for made in {id(r[0]): r[0] for r in results.values()
                             if isinstance(r, tuple) and isinstance(r[0], CommInfo)}.values():
                    self._bridge(made)
            for w, (_, callback) in pending.arrived.items():
                callback(results[w])
        return pending

    def dup(self, parent: Comm) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Comm_dup: one new communicator, same group, same topology
        (MPI 4.1 §7.4.2); an intercommunicator's duplicate is one too."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            self.created += 1
            name = f"dup({parent.name})#{self.created}"
            if parent.is_inter:
                side = parent.info
                mine, theirs = self.intercomm(side.group, side.remote, name)
                return {w: ((mine if w in side.group else theirs), None) for w in args}
            info = CommInfo(self._context(), parent.group, name, parent.topo)
            return {w: (info, parent.session) for w in args}
        return make

    def split(self, parent: Comm, topo: Any = None, what: str = "split"
              ) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Comm_split: one communicator per color, ranked by (key, rank
        in the parent); UNDEFINED gets None (MPI_COMM_NULL). ``topo``: the topology each
        gets (MPI_Cart_sub's); ``what``: the call named in its name."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            colors: dict[int, list[tuple[int, int, int]]] = {}
            for w, (color, key) in args.items():
                if color != UNDEFINED:
                    colors.setdefault(color, []).append((key, parent.info.rank_of(w), w))
            results: dict[int, Any] = dict.fromkeys(args)
            for color in sorted(colors):
                self.created += 1
                group = tuple(w for _, _, w in sorted(colors[color]))
                info = CommInfo(self._context(), group,
                                f"{what}({parent.name}, color={color})#{self.created}", topo)
                for w in group:
                    results[w] = (info, parent.session)
            return results
        return make

    def placed(self, parent: Comm, what: str) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Cart_create and MPI_Graph_create (every member gave the same
        topology): the parent's first ``topo.size`` ranks, in their order, since MPICH 5.0.2
        and Open MPI 5.0.11 both ignore ``reorder``; the others get None (MPI_COMM_NULL)."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            topo = args[parent.world(0)]
            self.created += 1
            group = tuple(parent.world(r) for r in range(topo.size))
            info = CommInfo(self._context(), group, f"{what}({parent.name})#{self.created}",
                            topo)
            return {w: ((info, parent.session) if w in group else None) for w in args}
        return make

    def created_from(self, parent: Comm, what: str
                     ) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of a creation whose every member gives the group it joins
        (MPI_Comm_create, MPI_Comm_create_group; §7.4.2: disjoint groups make one
        communicator each), as world ranks, or None (MPI_COMM_NULL)."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            groups = {tuple(g): None for g in args.values() if g is not None}
            results: dict[int, Any] = dict.fromkeys(args)
            for group in groups:
                self.created += 1
                info = CommInfo(self._context(), group, f"{what}({parent.name})#{self.created}")
                for w in group:
                    if w in results:
                        results[w] = (info, parent.session)
            return results
        return make

    def distributed(self, parent: Comm, what: str, topo: Callable[[dict[int, Any]], Any]
                    ) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Dist_graph_create[_adjacent]: the parent's group, ranks kept,
        with the topology ``topo`` builds from every member's argument (by world rank)."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            self.created += 1
            info = CommInfo(self._context(), parent.group,
                            f"{what}({parent.name})#{self.created}", topo(args))
            return {w: (info, parent.session) for w in args}
        return make

    def intercomm(self, group_a: Any, group_b: Any, name: str) -> tuple[CommInfo, CommInfo]:
        """A new intercommunicator between two disjoint groups (MPI 4.1 §7.6.2): one
        CommInfo per side, one context for the messages between them, and each side's
        local intracommunicator for its collectives."""
        ctx = self._context()
        a = CommInfo(ctx, tuple(group_a), name, remote=group_b)
        b = CommInfo(ctx, tuple(group_b), name, remote=group_a)
        a.other, b.other = b, a
        for side in (a, b):
            side.local = CommInfo(self._context(), side.group, f"local({name})")
        if self.world_of:
            self._bridge(a)
        return a, b

    def merged(self, parent: Comm) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Intercomm_merge: the group whose members gave ``high`` false
        first (MPI 4.1 §7.6.2); when both sides gave the same, the side holding the lower
        world rank first."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            sides = [parent.info.group, parent.info.remote]
            sides.sort(key=lambda g: (bool(args[g[0]]), min(g)))
            self.created += 1
            info = CommInfo(self._context(), (*sides[0], *sides[1]),
                            f"merge({parent.name})#{self.created}")
            return {w: (info, None) for w in args}
        return make

    def inter_split(self, parent: Comm) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Comm_split over an intercommunicator (§7.4.2): per color, an
        intercommunicator between the members of that color on each side (ranked by key,
        then rank), MPI_COMM_NULL when either side has none of it."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            results: dict[int, Any] = dict.fromkeys(args)
            near, far = parent.info.group, parent.info.remote or ()
            colors = sorted({c for c, _ in args.values() if c != UNDEFINED})
            for color in colors:
                mine, theirs = [tuple(w for _, _, w in sorted(
                    (args[w][1], r, w) for r, w in enumerate(g) if args[w][0] == color))
                    for g in (near, far)]
                if not (mine and theirs):
                    continue
                self.created += 1
                a, b = self.intercomm(mine, theirs, f"split({parent.name}, color={color})"
                                                    f"#{self.created}")
                for side in (a, b):
                    for w in side.group:
                        results[w] = (side, None)
            return results
        return make

    def inter_create(self, parent: Comm) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Comm_create over an intercommunicator (MPI 4.1 §7.4.2): each
        side gives a subgroup of its own local group (every member of a side the same); the
        result is an intercommunicator between the two subgroups for their members, and
        MPI_COMM_NULL for the others and for everyone when either subgroup is empty."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            results: dict[int, Any] = dict.fromkeys(args)
            near, far = parent.info.group, parent.info.remote or ()
            mine, theirs = [next((tuple(args[w]) for w in side if args.get(w) is not None), ())
                            for side in (near, far)]
            if not (mine and theirs):
                return results
            self.created += 1
            a, b = self.intercomm(mine, theirs, f"create({parent.name})#{self.created}")
            for side in (a, b):
                for w in side.group:
                    results[w] = (side, None)
            return results
        return make

    def from_group(self, tag: str) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """MPI_Comm_create_from_group over the "mpi://WORLD" process set of sessions."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            self.created += 1
            info = CommInfo(self._context(), range(self.size),
                            f"from_group({tag})#{self.created}")
            return {w: (info, session) for w, session in args.items()}
        return make
