"""Groups and intercommunicators in the ``mpi`` handle (MPI 4.1 §7.2-§7.6).

Groups (:class:`mpisim.mpi.group.Group`) are made and compared locally (``comm_group``,
``group_incl``... give their value at once). Communicators made from groups are collective,
as ``comm_split`` is (:mod:`mpisim.mpi.comm`): ``comm_create`` over the parent (each
member gives the group it joins: disjoint groups make one communicator each, §7.4.2),
``comm_create_group`` over the group's members only (matched by ``tag``),
``intercomm_create`` over both local communicators (§7.6.2: the leaders know each other
through ``peer_comm``; the others learn the remote leader from their own, then both groups
agree), ``intercomm_create_from_groups`` over both groups (matched by ``tag``) and
``intercomm_merge`` over both groups of the intercommunicator.

On an intercommunicator, point-to-point ranks are ranks of the remote group (§7.6.1):
``send(dest=0, comm=inter)`` goes to the other side's rank 0, and a receive's status names
the source by its rank there.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from simpy.events import Event

from ..engine.clock import failed, fire_at, pending
from ..mpi.comm import Comm
from ..mpi.errors import ErrArg, ErrComm, ErrGroup, ErrRank, MPIError
from ..mpi.group import CONGRUENT, EMPTY, IDENT, UNEQUAL, Group, compare
from .base import HandleBase

__all__ = ["GroupCalls"]


class GroupCalls(HandleBase):
    """MPI 4.1 §7.2-§7.6: groups, communicators made from them, intercommunicators."""

    __slots__ = ()

    # -- groups of communicators (local) ---------------------------------------------------
    def comm_group(self, comm: Comm | None = None) -> Group:
        """MPI_Comm_group: the communicator's (local) group.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._group_made(Group(self._comm(comm).group, self.rank), "MPI_Comm_group")

    def comm_remote_group(self, comm: Comm | None = None) -> Group:
        """MPI_Comm_remote_group: an intercommunicator's remote group.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._group_made(Group(_remote(self._comm(comm), "comm_remote_group"),
                                      self.rank), "MPI_Comm_remote_group")

    def _group_made(self, group: Group, call: str) -> Group:
        """A new group handed to the program: a leak if it is never freed."""
        if group is not EMPTY:
            self._made("group", group, call)
        return group

    def comm_remote_size(self, comm: Comm | None = None) -> int:
        """MPI_Comm_remote_size: the size of an intercommunicator's remote group.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return len(_remote(self._comm(comm), "comm_remote_size"))

    def comm_test_inter(self, comm: Comm | None = None) -> bool:
        """MPI_Comm_test_inter: whether ``comm`` is an intercommunicator.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._comm(comm).is_inter

    def comm_compare(self, comm1: Comm | None, comm2: Comm | None) -> int:
        """MPI_Comm_compare (§7.4.1): ``ms.IDENT`` (the same communicator), ``ms.CONGRUENT``
        (same groups in the same order), ``ms.SIMILAR`` (same members) or ``ms.UNEQUAL``.

        Parameters
        ----------
        comm1
            The first communicator.
        comm2
            The second communicator.
        """
        a, b = self._comm(comm1), self._comm(comm2)
        if a.info is b.info:
            return IDENT
        if a.is_inter != b.is_inter:
            return UNEQUAL
        local = compare(Group(a.group, self.rank), Group(b.group, self.rank))
        remote = compare(Group(a.info.remote or (), 0), Group(b.info.remote or (), 0))
        worst = max(local, remote)
        return CONGRUENT if worst == IDENT else worst

    # -- §7.3: group accessors and constructors (local) --------------------------------------
    def group_size(self, group: Group) -> int:
        """MPI_Group_size.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        """
        return _group(group).size

    def group_rank(self, group: Group) -> int:
        """MPI_Group_rank: this process's rank in ``group``, or ``ms.UNDEFINED``.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        """
        return _group(group).rank

    def group_translate_ranks(self, group1: Group, ranks: Sequence[int],
                              group2: Group | None) -> list[int]:
        """MPI_Group_translate_ranks: the rank in ``group2`` of each of ``ranks`` of
        ``group1`` (``ms.UNDEFINED`` if not a member).

        Parameters
        ----------
        group1
            The first group.
        ranks
            Ranks in ``group1``.
        group2
            The group to translate into; None: give the ranks in MPI_COMM_WORLD.
        """
        return _group(group1).translate(ranks, None if group2 is None else _group(group2))

    def group_compare(self, group1: Group, group2: Group) -> int:
        """MPI_Group_compare: ``ms.IDENT``, ``ms.SIMILAR`` or ``ms.UNEQUAL``.

        Parameters
        ----------
        group1
            The first group.
        group2
            The second group.
        """
        return compare(_group(group1), _group(group2))

    def group_incl(self, group: Group, ranks: Sequence[int]) -> Group:
        """MPI_Group_incl: the processes of ``ranks``, in that order.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        ranks
            Ranks in ``group``.
        """
        return self._group_made(_group(group).incl(ranks), "MPI_Group_incl")

    def group_excl(self, group: Group, ranks: Sequence[int]) -> Group:
        """MPI_Group_excl: the processes not in ``ranks``, in their order.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        ranks
            Ranks in ``group``.
        """
        return self._group_made(_group(group).excl(ranks), "MPI_Group_excl")

    def group_range_incl(self, group: Group, ranges: Sequence[Sequence[int]]) -> Group:
        """MPI_Group_range_incl: the ranks of (first, last, stride) triplets.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        ranges
            (first, last, stride) triplets of ranks in ``group``.
        """
        return self._group_made(_group(group).range_incl(ranges), "MPI_Group_range_incl")

    def group_range_excl(self, group: Group, ranges: Sequence[Sequence[int]]) -> Group:
        """MPI_Group_range_excl.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        ranges
            (first, last, stride) triplets of ranks in ``group``.
        """
        return self._group_made(_group(group).range_excl(ranges), "MPI_Group_range_excl")

    def group_union(self, group1: Group, group2: Group) -> Group:
        """MPI_Group_union: group1's processes, then group2's others.

        Parameters
        ----------
        group1
            The first group.
        group2
            The second group.
        """
        return self._group_made(_group(group1).union(_group(group2)), "MPI_Group_union")

    def group_intersection(self, group1: Group, group2: Group) -> Group:
        """MPI_Group_intersection: group1's processes that are in group2.

        Parameters
        ----------
        group1
            The first group.
        group2
            The second group.
        """
        return self._group_made(_group(group1).intersection(_group(group2)),
                                "MPI_Group_intersection")

    def group_difference(self, group1: Group, group2: Group) -> Group:
        """MPI_Group_difference: group1's processes not in group2.

        Parameters
        ----------
        group1
            The first group.
        group2
            The second group.
        """
        return self._group_made(_group(group1).difference(_group(group2)),
                                "MPI_Group_difference")

    def group_free(self, group: Group) -> None:
        """MPI_Group_free (local): the group may no longer be used (MPI_GROUP_EMPTY stays
        valid).

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        """
        if _group(group) is not EMPTY:
            group.freed = True

    # -- §7.4.2: communicators from groups (collective) ---------------------------------------
    def comm_create(self, group: Group, comm: Comm | None = None) -> Event:
        """MPI_Comm_create (collective over ``comm``): yields the communicator of ``group``
        for its members, None (MPI_COMM_NULL) for the others; members giving disjoint
        groups get one communicator each.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        try:
            g = _group(group)
            parent = self._comm(comm)
            own = parent.group if parent.is_inter else parent.info.everyone
            if any(w not in own for w in g.members):
                side = " local group" if parent.is_inter else ""
                raise ErrGroup(f"comm_create: {g} is not a subgroup of {parent.name}'s{side}")
        except MPIError as e:
            self._enter("MPI_Comm_create")
            return failed(self._env, e)
        if parent.is_inter:  # §7.4.2: an intercommunicator between the two sides' subgroups
            return self._create("MPI_Comm_create", parent, tuple(g.members),
                                lambda p: self._comms.inter_create(p))
        mine = g.members if self.rank in g else None
        return self._create("MPI_Comm_create", parent, mine,
                            lambda p: self._comms.created_from(p, "create"))

    def comm_create_group(self, group: Group, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Comm_create_group (collective over ``group``'s members only, matched by
        ``tag``): yields the communicator of ``group``.

        Parameters
        ----------
        group
            The group (MPI_Group), e.g. from ``comm_group``.
        tag
            A tag that tells this creation apart from others made at once, 0 by
            default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        try:
            g = _group(group)
            parent = self._comm(comm)
            if self.rank not in g:
                raise ErrGroup(f"comm_create_group: rank {self.rank} is not in {g}")
        except MPIError as e:
            self._enter("MPI_Comm_create_group")
            return failed(self._env, e)
        return self._create("MPI_Comm_create_group", parent, g.members,
                            lambda p: self._comms.created_from(p, "create_group"),
                            ("create_group", parent.context, int(tag), g.members), g.members)

    # -- §7.6.2: intercommunicators (collective) ---------------------------------------------
    def intercomm_create(self, local_comm: Comm | None, local_leader: int,
                         peer_comm: Comm | None, remote_leader: int, tag: int = 0) -> Event:
        """MPI_Intercomm_create (collective over both local communicators): yields the
        intercommunicator between this process's local group and the group whose leader
        is ``remote_leader`` of ``peer_comm`` (significant at the leaders only).

        Parameters
        ----------
        local_comm
            This process's side: the intracommunicator of its group (None:
            MPI_COMM_WORLD).
        local_leader
            Rank, in the local group, of the leader of this side.
        peer_comm
            A communicator holding both leaders (significant at the local leader
            only; None: MPI_COMM_WORLD).
        remote_leader
            Rank of the other side's leader: in ``peer_comm`` (intercomm_create)
            or in ``remote_group``.
        tag
            Tag of the messages between the leaders, 0 by default.
        """
        call = "MPI_Intercomm_create"
        try:
            local = self._comm(local_comm)
            if local.is_inter:
                raise ErrComm(f"{call}: the local communicator must be an intracommunicator")
            if not 0 <= local_leader < local.size:
                raise ErrRank(f"{call}: local_leader {local_leader} is not a rank of "
                              f"{local.name}")
            leader = local.world(local_leader)
            mine = None
            if leader == self.rank:
                peer = self._comm(peer_comm)
                if not 0 <= remote_leader < peer.peers:
                    raise ErrRank(f"{call}: remote_leader {remote_leader} is not a rank of "
                                  f"{peer.name}")
                mine = (peer.world(remote_leader), int(tag))
                if mine[0] in local.group:
                    raise ErrArg(f"{call}: the remote leader is in the local group")
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        key = (local.context, local.calls)
        local.calls += 1
        proc = self._env.process(self._intercomm_steps(call, local, leader, key, mine,
                                                       self._site()))
        return proc

    def _intercomm_steps(self, call: str, local: Comm, leader: int, key: tuple,
                         mine: Any, where: Any = None) -> Generator[Event, Any, Comm]:
        """MPI_Intercomm_create in two agreements: the local group learns the remote leader
        from its own, then both groups (each knowing its members and the other's leader)
        agree on the new intercommunicator."""
        env, comms, me = self._env, self._comms, self.rank
        told = pending(env)
        waiting = comms.agree(key, call, local.group, me, mine,
                              lambda got: fire_at(told, env._now, got),
                              lambda args: dict.fromkeys(args, args[leader]))
        self._enter(call, obj=waiting)
        remote_leader, tag = yield told
        pair = frozenset((leader, remote_leader))
        calls = self._group_calls if self._group_calls is not None else {}
        self._group_calls = calls
        number = calls.get(("inter", pair, tag), 0)
        calls[("inter", pair, tag)] = number + 1
        made = pending(env)

        def make(args: dict[int, Any]) -> dict[int, Any]:
            first, second = dict.fromkeys(args.values())  # the two groups, in order
            a, b = comms.intercomm(first, second, f"intercomm#{comms.created + 1}")
            comms.created += 1
            return {w: (a if w in a.group else b) for w in args}

        waiting = comms.agree(("inter", pair, tag, number), call,
                              (*local.group, remote_leader), me, tuple(local.group),
                              lambda info: fire_at(made, env._now, info), make, grow=True)
        self._call_obj = waiting
        info = yield made
        members = len(info.group) + len(info.remote)
        rounds = comms.rounds_time(members)
        if rounds:
            yield env.timeout(rounds)
        new = Comm(info, info.rank_of(me))
        self._made("comm", new, call, where)
        return new

    def intercomm_create_from_groups(self, local_group: Group, local_leader: int,
                                     remote_group: Group, remote_leader: int,
                                     tag: str = "mpisim") -> Event:
        """MPI_Intercomm_create_from_groups (MPI 4.1 §7.6.2; collective over both groups,
        matched by ``tag``): yields the intercommunicator between them.

        Parameters
        ----------
        local_group
            This process's side (a ``Group``).
        local_leader
            Rank, in the local group, of the leader of this side.
        remote_group
            The other side (a ``Group``).
        remote_leader
            Rank of the other side's leader: in ``peer_comm`` (intercomm_create)
            or in ``remote_group``.
        tag
            A string that tells this creation apart from others made at once;
            ``"mpisim"`` by default.
        """
        call = "MPI_Intercomm_create_from_groups"
        try:
            lg, rg = _group(local_group), _group(remote_group)
            if self.rank not in lg or set(lg.members) & set(rg.members):
                raise ErrGroup(f"{call}: rank {self.rank} must be in the local group, and the "
                               "groups disjoint")
            for g, leader in ((lg, local_leader), (rg, remote_leader)):
                if not 0 <= leader < g.size:
                    raise ErrRank(f"{call}: leader {leader} is not a rank of {g}")
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        members = tuple(sorted((*lg.members, *rg.members)))

        def make(_parent: Comm) -> Any:
            def sides(args: dict[int, Any]) -> dict[int, Any]:
                first, second = dict.fromkeys(args.values())  # the two groups, in order
                a, b = self._comms.intercomm(first, second, f"from_groups({tag})#"
                                                            f"{self._comms.created + 1}")
                self._comms.created += 1
                return {w: ((a if w in a.group else b), None) for w in args}
            return sides
        return self._create(call, None, lg.members, make, ("from_groups", str(tag), members),
                            members)

    def intercomm_merge(self, comm: Comm, high: bool = False) -> Event:
        """MPI_Intercomm_merge (collective over both groups): yields the intracommunicator
        of both groups, the one whose members gave ``high`` false first.

        Parameters
        ----------
        comm
            The intercommunicator to merge.
        high
            Whether this side's processes come after the other's in the merged
            order (False by default).
        """
        try:
            _inter(self._comm(comm), "intercomm_merge")
        except MPIError as e:
            self._enter("MPI_Intercomm_merge")
            return failed(self._env, e)
        return self._create("MPI_Intercomm_merge", comm, bool(high), self._comms.merged)


def _group(group: Any) -> Group:
    if not isinstance(group, Group) or getattr(group, "freed", False):
        raise ErrGroup(f"{group!r} is not a valid group")
    return group


def _inter(comm: Comm, call: str) -> Comm:
    if not comm.is_inter:
        raise ErrComm(f"{call}: {comm.name} is not an intercommunicator")
    return comm


def _remote(comm: Comm, call: str) -> tuple[int, ...]:
    """The remote group's world ranks of an intercommunicator (MPI_ERR_COMM if not one)."""
    remote = _inter(comm, call).info.remote
    assert remote is not None  # (an intercommunicator's side knows the other)
    return remote

