"""Which processes are connected, for MPI_Finalize (MPI 4.1 §11.2.2, §11.10.4).

MPI_Finalize is collective over the connected processes (§11.2.2), so a process whose
program has ended waits in it only for the unfinished processes it is connected to.
§11.10.4 defines "connected": two processes are if they both belong to a communicator, or
have belonged to one that was freed with MPI_Comm_free rather than MPI_Comm_disconnect
(or share a window's or a file's group), and the relation is transitive.

What counts here:

- every process's MPI_COMM_WORLD: the run's ranks are one world, the processes one
  MPI_Comm_spawn started another (a world cannot be disconnected, so its members are
  always connected);
- every communicator whose members span several worlds, whatever made it: a spawn's
  intercommunicator, an accept/connect one, and those derived from them (a merge, a
  duplicate, a split, a creation from a group), until every member has called
  MPI_Comm_disconnect on it. A communicator freed with MPI_Comm_free still connects (that
  is the standard's rule), and so does a spawn's parent intercommunicator that a child
  never looked at (comm_get_parent) nor disconnected.

Not counted apart: windows and files, whose groups are those of the communicators they
were made over (a window over a merged communicator that was later disconnected would
still connect its members in MPI; that case is not modelled).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["connections"]


def connections(comms: Any) -> Callable[[int], int]:
    """The connected set of each process, as a key (equal keys: connected), from the run's
    communicators (:class:`~mpisim.mpi.comm.Communicators`: its worlds and bridges)."""
    world_of: dict[int, int] = comms.world_of
    root: dict[int, int] = {}

    def find(world: int) -> int:
        while root.get(world, world) != world:
            world = root[world]
        return world

    for members in comms.bridges.values():
        worlds = {find(world_of.get(w, 0)) for w in members}
        first = min(worlds)
        for world in worlds:
            root[world] = first
    return lambda process: find(world_of.get(process, 0))
