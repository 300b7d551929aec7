"""An executor's manager on the root: two simulated threads (:mod:`..simthreads`), started
at the executor's first use. The sender makes the link to the workers, sends each its
options, then each submitted task to an idle worker; the receiver takes each outcome
(MPI_ANY_SOURCE, the executor's tag) and settles its future.

mpi4py's manager is one thread that polls with MPI_Iprobe and sleeps between polls (up to
1 ms); here each thread blocks in its call instead: the same messages and results, without
filling the simulated clock with polls. It needs MPI_THREAD_MULTIPLE (mpi4py's default
level); under a lower level mpi4py's RuntimeWarning is given and the thread rules may report
the two threads' calls."""

from __future__ import annotations

import collections
import os
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from .. import simfutures as _futures
from ..module import THREAD_SERIALIZED, Query_thread
from ..simfutures import Future
from ..simthreads import Event, Queue, Semaphore, Thread, _register_atexit
from .links import Link, ThreadLink
from .protocol import Sync

__all__ = ["Pool"]


class Pool:
    """An executor's manager: a sender thread (tasks to idle workers) and a receiver
    thread (outcomes to futures), over the link ``connect(options, name)`` makes in the
    sender. It keeps no reference to its executor (read for its ``_options``, told
    ``_broken``): one dropped unshut ends it, as mpi4py's."""

    def __init__(self, executor: Any, connect: Callable[..., Link]) -> None:
        self.options = executor._options
        self.exref = weakref.ref(executor, lambda _: self.done())
        self.queue: collections.deque[Any] = collections.deque()  # (future, task), then
        # None: no more; a task stays queued (cancellable) until a worker is free for it
        self.queued = Semaphore(0)  # one release per entry of queue
        self.ready = self.event = Event()  # (event: mpi4py's name, read by its tests)
        self.size = 0
        self.pending: dict[int, Future] = {}
        self.sent = Queue()  # one entry per task sent, then None
        _warn_thread_level()
        _use_pkl5()
        name = type(executor).__name__
        self.thread = Thread(target=self._manage, args=(connect, name), name=f"{name} manager")
        self.thread.daemon = False
        self.thread.start()
        _register_atexit(self.done)

    def join(self) -> None:
        self.thread.join()

    def push(self, item: tuple[Future, Any] | None) -> None:
        self.queue.append(item)
        self.queued.release()

    def done(self) -> None:
        self.push(None)

    def cancel(self) -> None:
        """Cancel the futures still queued (shutdown's ``cancel_futures``)."""
        for item in self.queue:
            if item is not None:
                item[0].cancel()

    def _manage(self, connect: Callable[..., Link], name: str) -> None:
        link = connect(self.options, name)
        if not self._sync(link):
            self._break("initializer failed")
            link.close()
            return
        self.size = link.size
        self.ready.set()
        receiver = Thread(target=self._receive, args=(link,), name=f"{name} receiver")
        receiver.start()
        while self._next(link):
            pass
        self.queue.popleft()  # (the None)
        self.sent.put(None)
        receiver.join()
        link.close()

    def _sync(self, link: Link) -> bool:
        """Every worker takes the executor's options first (initializer: all succeed)."""
        if isinstance(link, ThreadLink) and self.options.get("initializer") is None:
            return True
        options = {k: v for k, v in self.options.items() if k in (
            "main", "globals", "initializer", "initargs", "initkwargs")}
        pids = link.workers()
        for pid in pids:
            link.post(pid, Sync(options))
        return all([link.fetch()[1][0] is True for _ in pids])

    def _next(self, link: Link) -> bool:
        """Send the next task once a worker is free for it (False: no more tasks)."""
        self.queued.acquire()
        if self.queue[0] is None:
            return False
        pid = None if self.queue[0][0].cancelled() else link.idle.take()
        future, task = self.queue.popleft()
        if not future.set_running_or_notify_cancel():  # cancelled (while it waited)
            if pid is not None:
                link.idle.give(pid)
            return True
        assert pid is not None
        self._send(link, pid, future, task)
        return True

    def _send(self, link: Link, pid: int, future: Future, task: Any) -> None:
        try:
            link.post(pid, task)
        except Exception as e:  # a task that does not pickle
            link.idle.give(pid)
            future.set_exception(e)
            return
        self.pending[pid] = future
        self.sent.put(pid)

    def _receive(self, link: Link) -> None:
        while self.sent.get() is not None:
            pid, (result, exception) = link.fetch()
            future = self.pending.pop(pid)
            link.idle.give(pid)
            if exception is None:
                future.set_result(result)
            else:
                future.set_exception(exception)

    def _break(self, message: str) -> None:
        executor = self.exref()
        if executor is not None:
            executor._broken = message
        self.ready.set()
        for item in self.queue:
            if item is not None and item[0].set_running_or_notify_cancel():
                item[0].set_exception(_futures.BrokenExecutor(message))
        self.queue.clear()


def _use_pkl5() -> None:
    """mpi4py's warning for a ``MPI4PY_FUTURES_USE_PKL5`` it cannot read (the stand-in
    sends with pickle either way: pkl5 changes how large objects travel, not what)."""
    value = os.environ.get("MPI4PY_FUTURES_USE_PKL5")
    if value is not None and value.lower() not in (
            "false", "no", "off", "n", "0", "true", "yes", "on", "y", "1"):
        warnings.warn(f"environment variable MPI4PY_FUTURES_USE_PKL5: unexpected value "
                      f"{value!r}", RuntimeWarning, stacklevel=3)


def _warn_thread_level() -> None:
    """mpi4py's warning when MPI gives less than MPI_THREAD_SERIALIZED."""
    if Query_thread() < THREAD_SERIALIZED:
        warnings.warn("the level of thread support in MPI should be at least "
                      "MPI_THREAD_SERIALIZED", RuntimeWarning, stacklevel=3)
