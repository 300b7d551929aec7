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
    """What every process's handle of one communicator shares."""

    __slots__ = ("context", "group", "index", "name")

    def __init__(self, context: int, group: Any, name: str) -> None:
        self.context = context
        self.group = group                     # world rank of each rank (a range for world)
        self.name = name
        self.index: dict[int, int] | None = (
            None if isinstance(group, range) and group.start == 0 else
            {w: r for r, w in enumerate(group)})

    def rank_of(self, world: int) -> int:
        """This communicator's rank of world rank ``world`` (it must be a member)."""
        index = self.index
        return world if index is None else index[world]


class Session:
    """One process's MPI session (MPI_Session): what a session buffer belongs to."""

    __slots__ = ("buffer", "finalized", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.buffer: Any = None
        self.finalized = False

    def __repr__(self) -> str:
        return f"<Session {self.name}>"


class Comm:
    """One process's handle of a communicator (MPI_Comm)."""

    __slots__ = ("buffer", "calls", "colls", "freed", "info", "label", "rank", "session")

    def __init__(self, info: CommInfo, rank: int, session: Session | None = None) -> None:
        self.info = info
        self.rank = rank              # the calling process's rank in this communicator
        self.session = session
        self.buffer: Any = None       # the buffer attached to it (MPI 4.1), if any
        self.calls = 0                # collective creation calls made on it (matching order)
        self.colls = 0                # collective calls made on it (their messages' tag)
        self.label: str | None = None  # the program's name for it (a scenario's ``as:``)
        self.freed = False

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
        """MPI_Comm_size: how many processes it holds."""
        return len(self.info.group)

    def rank_of(self, world: int) -> int:
        """The rank in this communicator of the process of world rank ``world``."""
        return self.info.rank_of(world)

    def world(self, rank: int) -> int:
        """The world rank of this communicator's ``rank``."""
        return self.info.group[rank]

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
        self._pending: dict[tuple, _Pending] = {}
        self.created = 0

    def self_info(self, rank: int) -> CommInfo:
        info = self._self_infos.get(rank)
        if info is None:
            info = self._self_infos[rank] = CommInfo(SELF_CONTEXT, (rank,), "MPI_COMM_SELF")
        return info

    def _context(self) -> int:
        ctx, self._next = self._next, self._next + 2
        return ctx

    def rounds_time(self, members: int) -> float:
        """An allgather of small values by recursive doubling: ceil(log2 p) latencies."""
        return self.latency * math.ceil(math.log2(members)) if members > 1 else 0.0

    def agree(self, key: tuple, call: str, members: Any, world: int, arg: Any,
              done: Callable[[Any], None], make: Callable[[dict[int, Any]], dict[int, Any]]
              ) -> _Pending:
        """Member ``world`` made the collective call ``key`` with ``arg``; once every
        member has, ``make({world: arg})`` gives each member's result and ``done`` of each
        is called with its own. Returns what the caller waits on (for deadlock reports)."""
        pending = self._pending.get(key)
        if pending is None:
            pending = self._pending[key] = _Pending(call, members)
        pending.arrived[world] = (arg, done)
        if len(pending.arrived) == len(members):
            del self._pending[key]
            results = make({w: a for w, (a, _) in pending.arrived.items()})
            for w, (_, callback) in pending.arrived.items():
                callback(results[w])
        return pending

    def dup(self, parent: Comm) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Comm_dup: one new communicator, same group."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            self.created += 1
            info = CommInfo(self._context(), parent.group, f"dup({parent.name})#{self.created}")
            return {w: (info, parent.session) for w in args}
        return make

    def split(self, parent: Comm) -> Callable[[dict[int, Any]], dict[int, Any]]:
        """The results of MPI_Comm_split: one communicator per color, ranked by (key, rank
        in the parent); UNDEFINED gets None (MPI_COMM_NULL)."""
        def make(args: dict[int, Any]) -> dict[int, Any]:
            colors: dict[int, list[tuple[int, int, int]]] = {}
            for w, (color, key) in args.items():
                if color != UNDEFINED:
                    colors.setdefault(color, []).append((key, parent.rank_of(w), w))
            results: dict[int, Any] = dict.fromkeys(args)
            for color in sorted(colors):
                self.created += 1
                group = tuple(w for _, _, w in sorted(colors[color]))
                info = CommInfo(self._context(), group,
                                f"split({parent.name}, color={color})#{self.created}")
                for w in group:
                    results[w] = (info, parent.session)
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
