"""``MPI.Group`` of the stand-in (MPI 4.1 §7.3): mpi4py's group object over the handle's
:class:`mpisim.mpi.group.Group`, and the group methods of ``Comm``.

Group operations are local: each method is a local call of the rank's ``mpi`` handle
(:mod:`mpisim.handle.groups`), its MPI error raised as MPI.Exception. As in mpi4py,
``MPI.Group()`` is a null group equal to MPI.GROUP_NULL, ``Free`` turns the object into a
null group, MPI.GROUP_NULL and MPI.GROUP_EMPTY pickle as themselves and another group
cannot be pickled (ValueError). The set operations and ``Compare``/``Translate_ranks`` are
called either way mpi4py allows: ``MPI.Group.Union(a, b)`` or ``a.Union(b)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...mpi.errors import MPIError
from ...mpi.group import EMPTY
from ...mpi.group import Group as _Group
from ..bridge import current
from ..datatypes.integers import c_int, c_ints, sized, unpacked
from ..exceptions import Exception as MPIException
from ..exceptions import as_exception, unsupported

__all__ = ["GROUP_EMPTY", "GROUP_NULL", "Group", "GroupMethods"]


def _local(call: str, *args: Any) -> Any:
    """A local call of the handle; its MPI error as MPI.Exception."""
    try:
        return getattr(current().plain(), call)(*args)
    except MPIError as e:
        raise as_exception(e) from None


class Group:
    """mpi4py's MPI.Group."""

    _group: _Group | None = None   # the handle's group (None: MPI_GROUP_NULL)

    def __init__(self, group: Any = None) -> None:
        if group is None:
            return
        if not isinstance(group, Group):
            raise TypeError(f"expecting a group, got {type(group).__name__}")
        self._group = group._group

    @classmethod
    def _of(cls, group: _Group | None) -> Group:
        made = cls.__new__(cls)
        made._group = group
        return made

    def _g(self) -> _Group:
        if self._group is None:
            raise MPIException("invalid group (MPI_GROUP_NULL)", None, "MPI_ERR_GROUP")
        return self._group

    def __reduce__(self) -> Any:
        if self is GROUP_NULL:
            return "GROUP_NULL"
        if self is GROUP_EMPTY:
            return "GROUP_EMPTY"
        if self._group is None or self._group is EMPTY:
            return (_restored, (self._group is EMPTY,))
        raise ValueError(f"cannot serialize {self!r}")

    def __bool__(self) -> bool:
        return self._group is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Group):
            return NotImplemented
        return self._group is other._group or (
            self._group is not None and other._group is not None
            and self._group.members == other._group.members and not self._group.members)

    def __hash__(self) -> int:
        return id(self._group)

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Group {list(self._group.members) if self._group else 'null'}>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Group", name)

    # -- accessors -------------------------------------------------------------------------
    def Get_size(self) -> int:
        return _local("group_size", self._g())

    def Get_rank(self) -> int:
        return _local("group_rank", self._g())

    size = property(Get_size)
    rank = property(Get_rank)

    def Translate_ranks(self, ranks: Sequence[int] | None = None,
                        group: Group | None = None) -> list[int]:
        """The rank in ``group`` of each of ``ranks`` (default: all) of this group; without
        ``group``, their ranks in MPI_COMM_WORLD's group."""
        mine = self._g()
        ranks = list(range(mine.size)) if ranks is None else c_ints(ranks)
        other = _Group(range(current().mpi.size), mine.me) if group is None else group._g()
        return _local("group_translate_ranks", mine, ranks, other)

    def Compare(self, group: Group) -> int:
        return _local("group_compare", self._g(), group._g())

    # -- constructors ----------------------------------------------------------------------
    def Dup(self) -> Group:
        g = self._g()
        return Group._of(g if g is EMPTY else _Group(g.members, g.me))

    def Union(self, group: Group) -> Group:
        return Group._of(_local("group_union", self._g(), group._g()))

    def Intersection(self, group: Group) -> Group:
        return Group._of(_local("group_intersection", self._g(), group._g()))

    Intersect = Intersection

    def Difference(self, group: Group) -> Group:
        return Group._of(_local("group_difference", self._g(), group._g()))

    def Incl(self, ranks: Sequence[int]) -> Group:
        return Group._of(_local("group_incl", self._g(), c_ints(ranks)))

    def Excl(self, ranks: Sequence[int]) -> Group:
        return Group._of(_local("group_excl", self._g(), c_ints(ranks)))

    def Range_incl(self, ranks: Sequence[Sequence[int]]) -> Group:
        return Group._of(_local("group_range_incl", self._g(), _ranges(ranks)))

    def Range_excl(self, ranks: Sequence[Sequence[int]]) -> Group:
        return Group._of(_local("group_range_excl", self._g(), _ranges(ranks)))

    def Free(self) -> None:
        """MPI_Group_free: the object becomes MPI.GROUP_NULL (MPI.GROUP_EMPTY stays)."""
        if self is GROUP_EMPTY:
            return
        _local("group_free", self._g())
        self._group = None


def _ranges(ranks: Any) -> list[tuple[int, int, int]]:
    """Range_incl's and Range_excl's (first, last, stride) triples as mpi4py converts them:
    measured, each unpacked in three (Cython's "need more than 2 values to unpack"), each
    value a C int."""
    sized(ranks)
    return [tuple(c_int(x) for x in unpacked(r, 3)) for r in ranks]  # type: ignore[misc]


def _restored(empty: bool) -> Group:
    return Group._of(EMPTY if empty else None)


GROUP_NULL = Group()
GROUP_EMPTY = Group._of(EMPTY)


class GroupMethods:
    """The group methods of mpi4py's Comm and Intracomm (MPI 4.1 §7.3, §7.4)."""

    def Get_group(self) -> Group:
        mpi = current().plain()
        return Group._of(mpi.comm_group(self._comm(mpi)))  # type: ignore[attr-defined]

    group = property(Get_group)

    def Compare(self, comm: Any) -> int:
        """MPI_Comm_compare: MPI.IDENT, CONGRUENT, SIMILAR or UNEQUAL."""
        mpi = current().plain()
        return _local("comm_compare", self._comm(mpi), comm._comm(mpi))  # type: ignore[attr-defined]

    def Create(self, group: Group) -> Any:
        """MPI_Comm_create: the communicator of ``group`` (MPI.COMM_NULL outside it)."""
        made = self._p2p("comm_create", True, group=group._g())  # type: ignore[attr-defined]
        return self._wrap(made)  # type: ignore[attr-defined]

    def Create_group(self, group: Group, tag: int = 0) -> Any:
        """MPI_Comm_create_group: collective over ``group``'s members only."""
        made = self._p2p("comm_create_group", True,  # type: ignore[attr-defined]
                         group=group._g(), tag=c_int(tag))
        return self._wrap(made)  # type: ignore[attr-defined]

    @classmethod
    def Create_from_group(cls, group: Group, stringtag: str = "org.mpi4py",
                          info: Any = None, errhandler: Any = None) -> Any:
        """MPI_Comm_create_from_group (MPI 4.1 §7.4.2): collective over ``group``'s
        members, matched by ``stringtag``."""
        ctx = current()
        made = ctx.call(lambda: ctx.mpi.comm_create_from_group(group._g(), str(stringtag)))
        return cls._made("handle", made)  # type: ignore[attr-defined]
