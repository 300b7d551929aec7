"""The handle of a spawned process (MPI 4.1 §11.8): :class:`SpawnedRank`.

A spawned process has its own MPI_COMM_WORLD, not the run's first one. The point-to-point
calls read ``comm=None`` as the run's first MPI_COMM_WORLD on their fast path (a world rank
is a process number there); a spawned process's handle names its own world instead, so
``dest=0`` is rank 0 of the children, matched in their world's context.
"""

from __future__ import annotations

from typing import Any

from .rank import Rank

__all__ = ["SpawnedRank"]


class SpawnedRank(Rank):
    """The handle of a process started by ``comm_spawn`` (see the module)."""

    __slots__ = ()

    def _send(self, call: str, mode: str, buf: Any, count: Any, datatype: Any, dest: Any,
              tag: Any, blocking: bool, comm: Any = None, req: Any = None) -> Any:
        return super()._send(call, mode, buf, count, datatype, dest, tag, blocking,
                             self.comm_world if comm is None else comm, req)

    def _post_recv(self, call: str, buf: Any, count: Any, datatype: Any, source: Any,
                   tag: Any, comm: Any = None, persistent: Any = None) -> Any:
        return super()._post_recv(call, buf, count, datatype, source, tag,
                                  self.comm_world if comm is None else comm, persistent)

    def _probed(self, source: Any, tag: Any, comm: Any) -> Any:
        return super()._probed(source, tag, self.comm_world if comm is None else comm)

    def __repr__(self) -> str:
        return f"<mpi process {self.rank}: rank {self.comm_world.rank} of {self.size} (spawned)>"
