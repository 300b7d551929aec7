"""Threads of a rank (MPI 4.1 §11.6): the thread level, and simulated threads.

A rank program may run more programs beside itself, as threads of its process
(:meth:`ThreadCalls.spawn_thread`); each makes MPI calls on the same handle and blocks only
itself (:mod:`mpisim.engine.threads` tells their life). The level of thread support is the
process's: MPI_Init gives ``MPI_THREAD_SINGLE``; :meth:`ThreadCalls.init_thread` asks for
another, and the process is given what it asks for, up to ``MPI_THREAD_MULTIPLE``, as
MPICH 5.0.2 and Open MPI 4.1.4 both do (measured: ``MPI_Init_thread`` with each level
returns it as ``provided``; ``MPI_Init`` gives ``MPI_THREAD_SINGLE``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..engine.threads import MainThread, SimThread
from ..mpi.constants import THREAD_LEVELS, THREAD_MULTIPLE, THREAD_SERIALIZED, THREAD_SINGLE
from ..mpi.errors import ErrArg, ErrOther
from .base import HandleBase
from .threadrules import after_call, in_call, marks_of, on_resume

__all__ = ["Host", "ThreadCalls"]


class Host:
    """The rank as its threads see it (:class:`~mpisim.engine.threads.ThreadHost`): for one
    step of a thread, the handle holds that thread's call state (the call it is in and the
    program's place, which reports read) and names it as the current thread; after it, the
    main thread's state is back. At the edges of the step, the rules of calls from several
    threads are checked (:mod:`mpisim.handle.threadrules`)."""

    __slots__ = ("marks", "mpi", "order", "rank")

    def __init__(self, mpi: ThreadCalls, ident: int = 0) -> None:
        self.mpi = mpi
        self.rank = mpi.rank
        self.marks: Any = None  # the other threads' calls as its thread blocked in one
        seed = mpi._run.thread_seed
        # the thread's draws of the run's thread order (None: seed 0, as they come)
        self.order = None if not seed else random.Random(f"{seed}:{mpi.rank}:{ident}")

    def defer(self) -> bool:
        order = self.order
        return order is not None and order.random() < 0.5

    def show(self, thread: SimThread) -> Any:
        """The thread's call state on the handle; returns the main thread's."""
        mpi = self.mpi
        saved = mpi._calling, mpi._where, mpi._thread
        mpi._calling, mpi._where = thread.state or _NO_STATE
        mpi._thread = thread
        return saved

    def hide(self, thread: SimThread, saved: Any) -> None:
        """The thread's call state kept on it, the main thread's put back."""
        mpi = self.mpi
        thread.state = mpi._calling, mpi._where
        mpi._calling, mpi._where, mpi._thread = saved

    def enter(self, thread: SimThread) -> Any:
        mpi = self.mpi
        marks, self.marks = self.marks, None
        if marks is not None:
            on_resume(mpi, thread, marks, mpi._calling)
        saved = self.show(thread)
        mpi._proc.unyielded = False
        return saved, mpi._calling

    def leave(self, thread: SimThread, token: Any) -> None:
        mpi = self.mpi
        saved, start = token
        if mpi._life is not None:
            if mpi._calling is not start:
                after_call(mpi, thread, saved[0])
            if mpi._thread_level == THREAD_SERIALIZED and \
                    in_call(thread.target_event, mpi._calling):
                self.marks = marks_of(mpi, thread, saved[0])
        self.hide(thread, saved)

    def resumed(self) -> None:
        self.mpi._proc.unyielded = False

    def unyielded_call(self) -> str | None:
        mpi = self.mpi
        proc = mpi._proc
        return mpi._call if proc.unyielded and proc.checked else None


_NO_STATE = ((None, None, None, 0, None, None), None)


class ThreadCalls(HandleBase):
    """MPI_Init_thread, MPI_Query_thread, MPI_Is_thread_main, and simulated threads."""

    __slots__ = ()


    def init_thread(self, required: int | str) -> int:
        """MPI_Init_thread's level (§11.2.1): ask for thread support ``required``; the
        level provided is returned (and kept: :meth:`query_thread`). The run has
        initialized MPI already, so this may be the program's first call only.

        Parameters
        ----------
        required
            ``0``..``3`` or ``"single"``, ``"funneled"``, ``"serialized"``,
            ``"multiple"`` (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).

        Returns
        -------
        int
            The level provided: ``required`` (every level up to MPI_THREAD_MULTIPLE is
            given, as the libraries measured give it).

        Examples
        --------
        >>> import mpisim as ms
        >>> def program(mpi):
        ...     provided = mpi.init_thread("multiple")
        ...     yield mpi.barrier()
        ...     return provided
        >>> ms.run(program, ranks=2).returned
        [3, 3]
        """
        level = _level(required)
        if self._thread_asked or self._call is not None:
            raise ErrOther("MPI_Init_thread: MPI is initialized already (the program's "
                           "first call may ask for a thread level, once)")
        self._thread_asked = True
        self._thread_level = min(level, THREAD_MULTIPLE)
        return self._thread_level

    def query_thread(self) -> int:
        """MPI_Query_thread (§11.6.2): the level of thread support provided (0..3)."""
        return self._thread_level

    def is_thread_main(self) -> bool:
        """MPI_Is_thread_main (§11.6.2): whether the calling thread is the rank's main
        thread (its program, not one it spawned)."""
        return isinstance(self._thread, MainThread)

    def spawn_thread(self, target: Callable[..., Any], *args: Any, name: str | None = None,
                     daemon: bool = False, **kwargs: Any) -> SimThread:
        """Start ``target(*args, **kwargs)`` as a new thread of this rank, at the current
        simulated time, after the calling thread's current step. Not an MPI call: what a
        program does with ``pthread_create`` or ``threading.Thread``.

        Parameters
        ----------
        target
            The thread's program: a generator function yielding the events of its calls
            (as a rank program does; pass ``mpi`` among ``args`` if it calls MPI), or a
            plain function.
        *args, **kwargs
            Its arguments.
        name
            The thread's name in reports. Default: ``"Thread-N"``, N counting the
            rank's threads from 1.
        daemon
            Whether the rank's MPI_Finalize may go on without it. Default False: a rank's
            program that returns waits for its threads to end before MPI_Finalize.

        Returns
        -------
        SimThread
            Yield it to wait for its end (join); the yield's value is the target's return
            value. ``name``, ``ident`` (1, 2, ... within the rank; the main thread is 0)
            and ``is_alive`` describe it.

        Examples
        --------
        >>> import mpisim as ms
        >>> def worker(mpi, peer):
        ...     yield mpi.send(count=8, dest=peer, tag=1)
        ...     return "sent"
        >>> def program(mpi):
        ...     peer = 1 - mpi.rank
        ...     t = mpi.spawn_thread(worker, mpi, peer, name="comm")
        ...     yield mpi.recv(count=8, source=peer, tag=1)
        ...     return (yield t)
        >>> ms.run(program, ranks=2).returned
        ['sent', 'sent']
        """
        if not callable(target):
            raise ErrArg(f"spawn_thread: target {target!r} is not callable")
        threads = self._threads
        if not isinstance(threads, list):
            threads = self._threads = []
        ident = len(threads) + 1
        thread = SimThread(self._env, Host(self, ident), self._run, target, args, kwargs,
                           name=f"Thread-{ident}" if name is None else str(name),
                           ident=ident, daemon=bool(daemon))
        threads.append(thread)
        if thread.daemon:
            self._run.daemons += 1
        thread.start()
        return thread

    def current_thread(self) -> SimThread | MainThread:
        """The thread making this call: a :class:`~mpisim.engine.threads.SimThread`, or
        the rank's main thread (its program; ``ident`` 0, ``name`` "MainThread")."""
        return self._thread


def _level(required: int | str) -> int:
    if isinstance(required, str) and required.lower() in THREAD_LEVELS:
        return THREAD_LEVELS[required.lower()]
    if isinstance(required, int) and not isinstance(required, bool) and \
            THREAD_SINGLE <= required <= THREAD_MULTIPLE:
        return required
    raise ErrArg(f"MPI_Init_thread: required = {required!r} is no thread level: give 0..3 "
                 f"or one of {', '.join(THREAD_LEVELS)}")
