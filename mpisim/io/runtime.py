"""The MPI-IO state of one run and its time model.

A run has one :class:`FileIO`, made with the run's first file call and kept in the run's
state (:class:`~mpisim.handle.run.RunState`) where every rank's handle finds it, as the
one-sided state is. It holds the file system's settings (``mpi.io_latency``, ``mpi.io_bandwidth``),
the files the run has opened (a delete of a file some process has open is
MPI_ERR_FILE_IN_USE) and the data representations each process registered.

**Time.** An access that moves ``n`` bytes takes ``io_latency + n / io_bandwidth`` (plus the
network's per-call ``overhead``); a call that moves none but touches the file system
(open, close, delete, set_size, preallocate, sync) takes ``io_latency``. A collective call
first synchronizes the file's processes (``ceil(log2 p)`` network latencies once the last
has called, as a creation collective does), then takes the largest of the members' times:
every process gets the file system's whole bandwidth (contention between processes is not
modelled), and every member returns at the same instant.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FileIO"]


class FileIO:
    """The run's MPI-IO (see the module)."""

    def __init__(self, env: Any, comms: Any, config: Any) -> None:
        self.env = env
        self.comms = comms
        self.latency: float = config.io_latency
        self.inv_bw: float = 1.0 / config.io_bandwidth
        self.opened = 0                      # files opened (their numbers)
        self.open_paths: dict[str, int] = {}  # real path -> how many opens hold it
        self.datareps: dict[int, set[str]] = {}  # world rank -> names it registered

    def cost(self, nbytes: int) -> float:
        """Simulated seconds of one access of ``nbytes`` bytes (latency included)."""
        return self.latency + nbytes * self.inv_bw

    def sync_time(self, members: int) -> float:
        """Time the members of a collective call take to meet once the last has called."""
        return self.comms.rounds_time(members)

    def opening(self, path: str) -> None:
        self.open_paths[path] = self.open_paths.get(path, 0) + 1

    def closing(self, path: str) -> None:
        left = self.open_paths.get(path, 0) - 1
        if left > 0:
            self.open_paths[path] = left
        else:
            self.open_paths.pop(path, None)
