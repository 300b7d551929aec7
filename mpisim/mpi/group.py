"""Process groups (MPI 4.1 §7.2, §7.3): ordered sets of processes, made and compared
locally.

A :class:`Group` is an immutable tuple of world ranks: its rank i is the process
``members[i]``. Every group operation of §7.3.2 is local (no process waits for another) and
gives a new group; ``rank`` is the calling process's rank in it, or MPI_UNDEFINED. Groups
compare (MPI_Group_compare, §7.3.1) as MPI_IDENT (same members, same order), MPI_SIMILAR
(same members, another order) or MPI_UNEQUAL. The values of IDENT, CONGRUENT, SIMILAR and
UNEQUAL are MPICH's; programs compare them by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .constants import PROC_NULL, UNDEFINED
from .errors import ErrArg, ErrGroup, ErrRank

__all__ = ["CONGRUENT", "EMPTY", "IDENT", "SIMILAR", "UNEQUAL", "Group", "compare"]

IDENT, CONGRUENT, SIMILAR, UNEQUAL = 0, 1, 2, 3
"""MPI_Group_compare and MPI_Comm_compare's answers (MPICH's values)."""


class Group:
    """An ordered set of processes (MPI_Group), as world ranks; ``me`` is the world rank of
    the process holding it (its ``rank`` is MPI_UNDEFINED when it is not a member).

    ``mpi.comm_group(comm)`` and the group calls make them.

    Parameters
    ----------
    members
        The processes, as world ranks, in the group's rank order (each at most once, else
        MPI_ERR_GROUP).
    me
        The world rank of the process holding the handle.
    """

    __slots__ = ("_index", "freed", "me", "members")

    def __init__(self, members: Iterable[int], me: int) -> None:
        self.members = tuple(members)
        self.me = me
        self.freed = False  # MPI_Group_free was called on it
        self._index = {w: r for r, w in enumerate(self.members)}
        if len(self._index) != len(self.members):
            raise ErrGroup(f"a group cannot hold a process twice: {list(self.members)}")

    @property
    def size(self) -> int:
        """MPI_Group_size."""
        return len(self.members)

    @property
    def rank(self) -> int:
        """MPI_Group_rank: the holder's rank in the group, or MPI_UNDEFINED."""
        return self._index.get(self.me, UNDEFINED)

    def rank_of(self, world: int) -> int:
        """The group rank of world rank ``world`` (MPI_UNDEFINED if not a member).

        Parameters
        ----------
        world
            A rank in MPI_COMM_WORLD.
        """
        return self._index.get(world, UNDEFINED)

    def __contains__(self, world: object) -> bool:
        return world in self._index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Group) and other.members == self.members

    def __hash__(self) -> int:
        return hash(self.members)

    def __repr__(self) -> str:
        return f"<Group {list(self.members)}>"

    def _made(self, members: Iterable[int]) -> Group:
        return Group(members, self.me)

    def _ranks(self, ranks: Sequence[int], call: str) -> list[int]:
        ranks = list(ranks)
        for r in ranks:
            if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < self.size:
                raise ErrRank(f"{call}: {r!r} is not a rank of the group (size {self.size})")
        if len(set(ranks)) != len(ranks):
            raise ErrRank(f"{call}: ranks {ranks} are not distinct")
        return ranks

    # -- §7.3.2: group constructors ---------------------------------------------------------
    def incl(self, ranks: Sequence[int]) -> Group:
        """MPI_Group_incl: the processes of ``ranks``, in that order.

        Parameters
        ----------
        ranks
            Ranks in this group (each once; MPI_ERR_RANK otherwise).
        """
        return self._made(self.members[r] for r in self._ranks(ranks, "group_incl"))

    def excl(self, ranks: Sequence[int]) -> Group:
        """MPI_Group_excl: the others, in their order.

        Parameters
        ----------
        ranks
            Ranks in this group (each once; MPI_ERR_RANK otherwise).
        """
        gone = set(self._ranks(ranks, "group_excl"))
        return self._made(w for r, w in enumerate(self.members) if r not in gone)

    def range_incl(self, ranges: Sequence[Sequence[int]]) -> Group:
        """MPI_Group_range_incl: the ranks of each (first, last, stride) triplet, in order.

        Parameters
        ----------
        ranges
            ``(first, last, stride)`` triplets of ranks in this group, ``last`` included
            (a negative stride counts down; a pair has stride 1).
        """
        return self.incl(_expand(ranges, self.size, "group_range_incl"))

    def range_excl(self, ranges: Sequence[Sequence[int]]) -> Group:
        """MPI_Group_range_excl.

        Parameters
        ----------
        ranges
            ``(first, last, stride)`` triplets of ranks in this group, ``last`` included
            (a negative stride counts down; a pair has stride 1).
        """
        return self.excl(_expand(ranges, self.size, "group_range_excl"))

    def union(self, other: Group) -> Group:
        """MPI_Group_union: this group's processes, then the other's not in it.

        Parameters
        ----------
        other
            The other group.
        """
        return self._made((*self.members, *(w for w in other.members if w not in self)))

    def intersection(self, other: Group) -> Group:
        """MPI_Group_intersection: this group's processes that are in the other, in this
        group's order.

        Parameters
        ----------
        other
            The other group.
        """
        return self._made(w for w in self.members if w in other)

    def difference(self, other: Group) -> Group:
        """MPI_Group_difference: this group's processes not in the other.

        Parameters
        ----------
        other
            The other group.
        """
        return self._made(w for w in self.members if w not in other)

    def translate(self, ranks: Sequence[int], other: Group | None) -> list[int]:
        """MPI_Group_translate_ranks: the rank in ``other`` of each of ``ranks`` of this
        group (MPI_UNDEFINED if absent; MPI_PROC_NULL stays MPI_PROC_NULL).

        Parameters
        ----------
        ranks
            Ranks in this group.
        other
            The group to translate into; None: give world ranks (MPI_COMM_WORLD's).
        """
        out = []
        for r in ranks:
            if r == PROC_NULL:
                out.append(PROC_NULL)
                continue
            world = self.members[self._ranks([r], "group_translate_ranks")[0]]
            out.append(world if other is None else other.rank_of(world))
        return out


EMPTY = Group((), -1)
"""MPI_GROUP_EMPTY (its holder does not matter: nobody is a member)."""


def compare(a: Group, b: Group) -> int:
    """MPI_Group_compare: IDENT, SIMILAR or UNEQUAL."""
    if a.members == b.members:
        return IDENT
    return SIMILAR if set(a.members) == set(b.members) else UNEQUAL


def _expand(ranges: Sequence[Sequence[int]], size: int, call: str) -> list[int]:
    out: list[int] = []
    for triplet in ranges:
        first, last, stride = (*triplet, 1) if len(triplet) == 2 else triplet
        if stride == 0:
            raise ErrArg(f"{call}: stride 0 in {tuple(triplet)}")
        if (last - first) * stride < 0:
            raise ErrArg(f"{call}: {tuple(triplet)} walks away from its last rank")
        out.extend(range(first, last + (1 if stride > 0 else -1), stride))
    for r in out:
        if not 0 <= r < size:
            raise ErrRank(f"{call}: rank {r} is outside the group (size {size})")
    return out
