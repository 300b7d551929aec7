"""Intercommunicators in the stand-in (MPI 4.1 §7.6): ``Intracomm.Create_intercomm`` and
the methods of mpi4py's ``Intercomm`` (composed in :mod:`.comm`).

Each is a call of the rank's ``mpi`` handle (:mod:`mpisim.handle.groups`). Point-to-point
calls on an intercommunicator name ranks of the remote group and its collectives join both
groups (``Bcast`` with ``root=MPI.ROOT`` at the root, ``MPI.PROC_NULL`` at the rest of its
group): the inherited methods of ``Comm`` do both, the handle knows the communicator is
one.
"""

from __future__ import annotations

from typing import Any

from ..bridge import current
from .group import Group

__all__ = ["IntercommMaker", "IntercommMethods"]


class IntercommMaker:
    """Intracomm.Create_intercomm (MPI_Intercomm_create)."""

    def Create_intercomm(self, local_leader: int, peer_comm: Any, remote_leader: int,
                         tag: int = 0) -> Any:
        """The intercommunicator between this communicator's group and the group whose
        leader is ``remote_leader`` of ``peer_comm`` (significant at the leaders)."""
        ctx = current()
        mpi = ctx.mpi
        local = self._comm(mpi)  # type: ignore[attr-defined]
        peer = peer_comm._comm(mpi) if peer_comm else None
        made = ctx.call(lambda: mpi.intercomm_create(local, int(local_leader), peer,
                                                     int(remote_leader), int(tag)),
                        self._key())  # type: ignore[attr-defined]
        return self._wrap(made)  # type: ignore[attr-defined]


class IntercommMethods:
    """mpi4py's Intercomm: the remote group and MPI_Intercomm_merge. Every collective MPI
    defines over one (all but scans) works over it, as in :mod:`.collective`."""

    def _holds(self, comm: Any) -> bool:
        return comm.Is_inter()

    def Get_remote_size(self) -> int:
        mpi = current().plain()
        return mpi.comm_remote_size(self._comm(mpi))  # type: ignore[attr-defined]

    remote_size = property(Get_remote_size)

    def Get_remote_group(self) -> Group:
        mpi = current().plain()
        return Group._of(mpi.comm_remote_group(self._comm(mpi)))  # type: ignore[attr-defined]

    remote_group = property(Get_remote_group)

    def Merge(self, high: bool = False) -> Any:
        """MPI_Intercomm_merge: the intracommunicator of both groups, the group that gave
        ``high`` false first."""
        made = self._p2p("intercomm_merge", True, high=bool(high))  # type: ignore[attr-defined]
        return self._wrap(made)  # type: ignore[attr-defined]

    @classmethod
    def Create_from_groups(cls, local_group: Group, local_leader: int, remote_group: Group,
                           remote_leader: int, stringtag: str = "org.mpi4py",
                           info: Any = None, errhandler: Any = None) -> Any:
        """MPI_Intercomm_create_from_groups (MPI 4.1 §7.6.2)."""
        ctx = current()
        made = ctx.call(lambda: ctx.mpi.intercomm_create_from_groups(
            local_group._g(), int(local_leader), remote_group._g(), int(remote_leader),
            str(stringtag)))
        return cls._made("handle", made)  # type: ignore[attr-defined]
