"""Where an executor's tasks go: a :class:`Link` to its workers (``post`` a message to one,
``fetch`` the next reply) and the :class:`Idle` workers free for a task. Each kind of
executor makes its link in its manager's sender thread: spawned server processes
(MPIPoolExecutor), the other ranks of a communicator (MPICommExecutor), the world's other
ranks shared by every executor of rank 0 (``-m mpi4py.futures``: :class:`Shared`), or
simulated threads of the rank (ThreadPoolExecutor; a communicator of one process)."""

from __future__ import annotations

import collections
import itertools
import os
from collections.abc import Callable, Iterable
from typing import Any

from ....mpi.attributes import UNIVERSE_SIZE
from ....mpi.constants import ANY_SOURCE
from ...bridge import current
from ...MPI import comm as _comm
from ...MPI.request import Status
from ..simthreads import Queue, Semaphore, Thread
from .protocol import Raised, unwrap
from .worker import SERVER, answer, set_workers

__all__ = ["SHARED", "Idle", "Link", "Shared", "ThreadLink", "comm_link", "pool_link",
           "spawn_link", "split", "thread_link"]

SHARED = "futures.shared"  # the rank's state: the shared pool (rank 0 of -m mpi4py.futures)


class Idle:
    """The workers free for a task (shared by the executors of the shared pool)."""

    def __init__(self, pids: Iterable[int]) -> None:
        self.pids = collections.deque(pids)
        self.count = len(self.pids)
        self.free = Semaphore(self.count)

    def take(self) -> int:
        self.free.acquire()
        return self.pids.popleft()

    def give(self, pid: int) -> None:
        self.pids.append(pid)
        self.free.release()


class Link:
    """An executor's workers over a communicator: ``post`` a message to one, ``fetch``
    the next reply (any worker, this executor's tag)."""

    def __init__(self, comm: Any, idle: Idle, tag: int = 0,
                 close: Callable[[], Any] | None = None) -> None:
        self.comm, self.idle, self.tag, self._close = comm, idle, tag, close
        self.size = idle.count

    def post(self, pid: int, message: Any) -> None:
        self.comm.send(message, pid, self.tag)

    def fetch(self) -> tuple[int, Any]:
        status = Status()
        try:
            reply = self.comm.recv(None, ANY_SOURCE, self.tag, status)
        except Exception as e:  # an outcome that does not unpickle here
            reply = (None, e)
        return status.Get_source(), reply

    def workers(self) -> list[int]:
        return list(self.idle.pids)

    def close(self) -> None:
        if self._close is not None:
            self._close()


def _stop(comm: _comm.Comm, pids: Iterable[int], end: Callable[[], Any]) -> Callable[[], None]:
    """How a link to workers of its own ends: None to each, then ``end()``."""
    def close() -> None:
        for pid in pids:
            comm.send(None, pid, 0)
        end()
    return close


class ThreadLink(Link):
    """Workers that are simulated threads of the rank (``ThreadPoolExecutor``; an
    executor on a communicator of one process)."""

    def __init__(self, size: int, name: str) -> None:
        super().__init__(None, Idle(range(size)))
        self.inboxes = [Queue() for _ in range(size)]
        self.outbox = Queue()
        self.threads = [Thread(target=self._work, args=(pid,), name=f"{name} worker {pid}")
                        for pid in range(size)]
        for thread in self.threads:
            thread.start()

    def _work(self, pid: int) -> None:
        set_workers(_comm.COMM_SELF)  # (get_comm_workers in a task, as mpi4py's)
        while (message := self.inboxes[pid].get()) is not None:
            self.outbox.put((pid, answer(message, _comm.COMM_SELF, None)))

    def post(self, pid: int, message: Any) -> None:
        self.inboxes[pid].put(message)

    def fetch(self) -> tuple[int, Any]:
        pid, (result, exception) = self.outbox.get()
        if isinstance(exception, Raised):  # (as if it had been pickled and back)
            exception = unwrap(*exception.args)
        return pid, (result, exception)

    def close(self) -> None:
        for inbox in self.inboxes:
            inbox.put(None)
        for thread in self.threads:
            thread.join()


# -- how each kind of executor reaches its workers -------------------------------------------
def thread_link(options: dict[str, Any], name: str) -> Link:
    """ThreadPoolExecutor's workers: ``max_workers`` simulated threads (default 1)."""
    return ThreadLink(int(options.get("max_workers", 1)), name)


def spawn_link(options: dict[str, Any], name: str) -> Link:
    """``max_workers`` new processes running the server (MPI 4.1 §11.8.2): one
    MPI_Comm_spawn from MPI_COMM_SELF, as mpi4py's ``COMM_SELF.Spawn(sys.executable,
    ["-m", "mpi4py.futures.server"], max_workers)``."""
    count = options.get("max_workers") or _max_workers()
    ctx = current()
    program = ctx.state["spawn"](ctx.script, [], SERVER)
    comm = _comm.COMM_SELF
    made = ctx.call(lambda: ctx.mpi.comm_spawn(program, (), int(count), 0, comm._c(ctx.mpi)),
                    comm._key())
    inter = comm._wrap(made)
    pids = range(inter.Get_remote_size())
    return Link(inter, Idle(pids), 0, _stop(inter, pids, inter.Disconnect))


def _max_workers() -> int:
    """mpi4py's default: ``MPI4PY_FUTURES_MAX_WORKERS``, else the universe's slots beyond
    MPI_COMM_WORLD's (MPI_UNIVERSE_SIZE, §11.10.1), else 1 (MPICH 5.0.2 under hydra sets
    no universe size: one worker)."""
    value = os.environ.get("MPI4PY_FUTURES_MAX_WORKERS")
    if value is not None:
        return int(value)
    world = _comm.COMM_WORLD
    universe = world.Get_attr(UNIVERSE_SIZE)
    if universe is not None:
        return max(int(universe) - world.Get_size(), 1)
    return 1


class Shared:
    """Rank 0's shared pool (``-m mpi4py.futures``): the tasks' communicator, the idle
    workers (None, None: a world of one process), a tag per executor."""

    def __init__(self, comm: _comm.Comm | None, idle: Idle | None) -> None:
        self.comm, self.idle = comm, idle
        self.tags = itertools.count(1)


def pool_link(options: dict[str, Any], name: str) -> Link:
    """MPIPoolExecutor's workers: the shared pool's (``-m mpi4py.futures``), else
    spawned ones."""
    shared = current().state.get(SHARED)
    if shared is None:
        return spawn_link(options, name)
    if shared.idle is None:  # one process: a thread, as mpi4py's
        options["max_workers"] = 1
        return thread_link(options, name)
    return Link(shared.comm, shared.idle, next(shared.tags))


def split(comm: _comm.Comm, root: int) -> tuple[_comm.Comm, _comm.Comm]:
    """(a duplicate of ``comm`` for the tasks, the workers' intracommunicator): two
    collectives over ``comm``; the root's team is freed (it is the root alone)."""
    dup = comm.Dup()
    team = comm.Split(int(comm.Get_rank() != root), 0)
    if comm.Get_rank() == root:
        team.Free()
    return dup, team


def comm_link(comm: _comm.Comm, root: int) -> Callable[..., Link]:
    """MPICommExecutor's workers: the other ranks of ``comm`` (a thread if it is one
    process)."""
    def connect(options: dict[str, Any], name: str) -> Link:
        if comm.Get_size() == 1:
            options["max_workers"] = 1
            return thread_link(options, name)
        dup, _ = split(comm, root)
        pids = [r for r in range(comm.Get_size()) if r != root]
        return Link(dup, Idle(pids), 0, _stop(dup, pids, dup.Free))
    return connect
