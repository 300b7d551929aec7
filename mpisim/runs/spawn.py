"""Processes started during a run (MPI 4.1 §11.8): :class:`Spawns`.

MPI_Comm_spawn grows the simulation while it runs: each child gets a handle, a process, a
buffer of its own and a place in the run's per-process lists (finished, end times, returned
values), so reports, the deadlock analysis and the result cover it as any rank. Processes
are numbered in the order they start, the run's ranks first; the result's ``ranks`` lists
every process, a spawned one with ``spawned`` saying by whom, how and when (see
:class:`~mpisim.runs.result.RankSummary`).

How many processes a run may start: the universe (``mpi.universe``, MPI_UNIVERSE_SIZE,
§11.10.1), when the profile limits spawns to it (Open MPI's slots: MPI_ERR_SPAWN beyond
them); MPICH starts them whatever the universe size, as observed with MPICH 5.0.2. Beyond
either, a run holds at most its ranks (or its universe) plus :data:`SPAWN_SLOTS` processes.
"""

from __future__ import annotations

from typing import Any

from ..buffered.mode import BufferedMode
from ..engine.clock import fire_at, pending
from ..engine.process import RankProcess
from ..handle.access import bind_process, explore_races
from ..handle.dynamic import spawned_state
from ..handle.lifecycle import Lifecycle
from ..handle.spawned import SpawnedRank
from ..mpi.comm import CommInfo
from ..mpi.dynamic import ErrSpawn, Ports

__all__ = ["SPAWN_SLOTS", "Spawns", "capacity"]

SPAWN_SLOTS = 1024
"""Processes a run may start beyond its ranks (or its universe size, when larger)."""


def capacity(ranks: int, universe: int | None) -> int:
    """The most processes a run of ``ranks`` ranks may ever hold."""
    return max(ranks, universe or 0) + SPAWN_SLOTS


class _Child:
    """A spawned process's program: the rank program called with the spawn's arguments."""

    def __init__(self, program: Any, args: tuple[Any, ...]) -> None:
        self.program = program
        self.args = args
        self.__name__ = getattr(program, "__name__", "program")
        code = getattr(program, "__code__", None)
        if code is not None:
            self.__code__ = code

    def __call__(self, mpi: Any, **_params: Any) -> Any:
        return self.program(mpi, *self.args)


def _start(procs: list[RankProcess]) -> None:
    """The children's MPI_Init, at the spawn's time plus its latency."""
    for proc in procs:
        proc.start()


class Spawns:
    """One run's spawned processes and ports (the handle's
    :class:`~mpisim.handle.dynamic.Spawner`)."""

    def __init__(self, sim: Any) -> None:  # (the Simulation: an import would be a circle)
        self.sim = sim
        self.ports = Ports()
        self.first = sim.size  # the ranks the run started with
        self.spawned: dict[int, dict[str, Any]] = {}  # process -> how it was started
        self.spawns = 0

    def universe_size(self) -> int | None:
        """MPI_UNIVERSE_SIZE: the run's ``universe`` setting; else None under MPICH (its
        mpiexec sets none), the run's ranks under the others."""
        config = self.sim.config
        if config.universe is not None:
            return int(config.universe)
        return None if config.profile.collectives_family == "mpich" else self.first

    def spawn(self, call: str, jobs: list[tuple[Any, tuple[Any, ...], int]],
              parents: tuple[int, ...], latency: float) -> CommInfo:
        """Start the processes of ``jobs`` ((program, args, maxprocs) each) for the group
        ``parents``, ``latency`` from now; the parents' side of the intercommunicator."""
        sim = self.sim
        total = sum(n for _, _, n in jobs)
        self._check_room(call, total)
        first = len(sim.handles)
        group = tuple(range(first, first + total))
        sim.transport.grow(total)
        order = sim.transport.order  # a race exploration's: the children, and the parents
        if order is not None:        # once back, know every parent's past (see meet)
            order.meet(parents, (*parents, *group))
        world = sim.comms.spawned_world(group)
        self.spawns += 1
        mine, theirs = sim.comms.intercomm(parents, group, f"spawn#{self.spawns}")
        start = sim.env._now + latency
        procs = []
        rank = 0
        for appnum, (program, args, count) in enumerate(jobs):
            for _ in range(count):
                procs.append(self._add(first + rank, rank, total, program, args, world,
                                       theirs, appnum))
                self.spawned[first + rank] = {
                    "by": list(parents), "call": call, "time": start, "world_rank": rank,
                    "appnum": appnum, "program": getattr(program, "__name__", "program")}
                rank += 1
        started = pending(sim.env)
        started.callbacks.append(lambda _ev: _start(procs))
        fire_at(started, start)
        return mine

    def _check_room(self, call: str, total: int) -> None:
        sim = self.sim
        limit = self.universe_size() if sim.config.profile.universe_limit else None
        if limit is not None:
            alive = sum(1 for f in sim.finished if not f)
            if alive + total > limit:
                raise ErrSpawn(
                    f"{call}: {total} process{'es' if total > 1 else ''} asked for, "
                    f"{max(limit - alive, 0)} of the universe's {limit} free (MPI_UNIVERSE_SIZE,"
                    f" the run's mpi.universe; {sim.config.profile.name} starts no process "
                    "beyond it)")
        room = sim.transport.size - len(sim.handles)
        if total > room:
            raise ErrSpawn(f"{call}: {total} processes asked for; the run holds at most "
                           f"{sim.transport.size} processes ({room} more; a larger "
                           "mpi.universe gives more)")

    def _add(self, number: int, rank: int, size: int, program: Any, args: tuple[Any, ...],
             world: CommInfo, parent: CommInfo, appnum: int) -> RankProcess:
        """One child: its handle, its place in the run's lists, its process (not started)."""
        sim = self.sim
        handle = SpawnedRank(number, size, sim.env, sim.transport,
                             BufferedMode(number, sim.env, sim.transport, sim.config,
                                          sim.recorder),
                             sim.collectives, sim.config, sim.net.overhead,
                             sim.recorder.enabled, sim.comms, run=sim.run_state,
                             life=Lifecycle(number, sim.findings))
        spawned_state(handle, world, rank, parent, appnum)
        sim.handles.append(handle)
        sim.programs.append(_Child(program, args))
        sim.finished.append(False)
        sim.end_times.append(None)
        sim.returned.append(None)
        proc = RankProcess(sim.env, number, sim)
        bind_process(handle, proc)
        sim._procs.append(proc)
        order = sim.transport.order
        if order is not None:  # a race exploration: the child's wildcard receives count too
            explore_races(handle, {k: s for (p, k), s in order.forced.items() if p == number})
        return proc
