"""Locks, conditions, semaphores, events, barriers and queues for the threads of a rank.

A rank program's threads (``mpi.spawn_thread``, MPI 4.1 §11.6) share the rank's memory, so
they synchronize as real threads do. These factories make the simulated primitives of
:mod:`mpisim.engine.sync` for the rank whose handle is given: each runs on the run's clock
and knows which of the rank's threads is running, so a deadlock report names the thread
that holds a lock and the thread that waits for it.

A call that may block returns an event the thread yields, as an MPI call does
(``yield lock.acquire()``, ``item = yield q.get()``); one that never blocks acts at once
(``lock.release()``, ``ev.set()``, ``q.put_nowait(x)``). Semantics are ``threading``'s
and ``queue``'s; timeouts are in simulated seconds; waiters are woken first come, first
served.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import sync
from ..handle.access import port_of

__all__ = ["Barrier", "BoundedSemaphore", "Condition", "Event", "Lock", "Queue", "RLock",
           "Semaphore"]


def _clock(mpi: Any) -> tuple[Any, Callable[[], Any]]:
    """The run's clock and the rank's running thread, from the rank's handle."""
    return port_of(mpi).env, mpi.current_thread


def Lock(mpi: Any, name: str | None = None) -> sync.Lock:
    """A ``threading.Lock`` of rank ``mpi``'s threads, on the simulated clock.

    Parameters
    ----------
    mpi
        The rank's handle (the program's ``mpi``): the lock is its rank's.
    name
        Its name in deadlock reports (``Lock 'L1' (held by thread 'a')``). Default None:
        unnamed.

    Returns
    -------
    mpisim.engine.sync.Lock
        ``yield lock.acquire()`` (True once held; ``blocking``, ``timeout`` in simulated
        seconds as ``threading``), ``lock.release()``, ``lock.locked()``.

    Examples
    --------
    >>> import mpisim as ms
    >>> def worker(mpi, lock, log):
    ...     yield lock.acquire()
    ...     log.append(mpi.current_thread().name)
    ...     yield mpi.compute(1e-6)
    ...     lock.release()
    >>> def program(mpi):
    ...     lock, log = ms.Lock(mpi, name="log"), []
    ...     threads = [mpi.spawn_thread(worker, mpi, lock, log) for _ in range(2)]
    ...     for t in threads:
    ...         yield t
    ...     return log, mpi.now
    >>> ms.run(program, ranks=1).returned
    [(['Thread-1', 'Thread-2'], 2e-06)]
    """
    return sync.Lock(*_clock(mpi), name=name)


def RLock(mpi: Any, name: str | None = None) -> sync.RLock:
    """A ``threading.RLock`` of rank ``mpi``'s threads: its holder may acquire it again and
    must release it as many times.

    Parameters
    ----------
    mpi
        The rank's handle.
    name
        Its name in deadlock reports. Default None.

    Returns
    -------
    mpisim.engine.sync.RLock
        ``yield lock.acquire()``, ``lock.release()`` (by its holder only).

    Examples
    --------
    >>> import mpisim as ms
    >>> def program(mpi):
    ...     lock = ms.RLock(mpi)
    ...     yield lock.acquire()
    ...     yield lock.acquire()  # the holder again: at once
    ...     lock.release(); lock.release()
    ...     return lock.locked()
    >>> ms.run(program, ranks=1).returned
    [False]
    """
    return sync.RLock(*_clock(mpi), name=name)


def Condition(mpi: Any, lock: sync.Lock | None = None,
              name: str | None = None) -> sync.Condition:
    """A ``threading.Condition`` of rank ``mpi``'s threads, over ``lock``.

    Parameters
    ----------
    mpi
        The rank's handle.
    lock
        A :func:`Lock` or :func:`RLock` of the same rank. Default None: a new RLock.
    name
        Its name in deadlock reports. Default None.

    Returns
    -------
    mpisim.engine.sync.Condition
        ``yield cond.acquire()``, ``yield cond.wait(timeout=None)`` (True once notified,
        False on the timeout, the lock held again either way), ``cond.notify(n=1)``,
        ``cond.notify_all()``, ``cond.release()``.

    Examples
    --------
    >>> import mpisim as ms
    >>> def waiter(cond, box):
    ...     yield cond.acquire()
    ...     while not box:
    ...         yield cond.wait()
    ...     cond.release()
    ...     return box[0]
    >>> def program(mpi):
    ...     cond, box = ms.Condition(mpi), []
    ...     t = mpi.spawn_thread(waiter, cond, box)
    ...     yield mpi.compute(2e-6)
    ...     yield cond.acquire()
    ...     box.append("ready"); cond.notify(); cond.release()
    ...     return (yield t)
    >>> ms.run(program, ranks=1).returned
    ['ready']
    """
    env, current = _clock(mpi)
    return sync.Condition(env, current, lock=lock, name=name)


def Semaphore(mpi: Any, value: int = 1, name: str | None = None) -> sync.Semaphore:
    """A ``threading.Semaphore`` of rank ``mpi``'s threads with ``value`` permits.

    Parameters
    ----------
    mpi
        The rank's handle.
    value
        The permits at the start (>= 0). Default 1.
    name
        Its name in deadlock reports. Default None.

    Returns
    -------
    mpisim.engine.sync.Semaphore
        ``yield sem.acquire()`` (True once a permit is the thread's), ``sem.release(n=1)``.

    Examples
    --------
    >>> import mpisim as ms
    >>> def program(mpi):
    ...     slots, got = ms.Semaphore(mpi, 2), []
    ...     for _ in range(3):
    ...         got.append((yield slots.acquire(blocking=False)))
    ...     return got
    >>> ms.run(program, ranks=1).returned
    [[True, True, False]]
    """
    env, current = _clock(mpi)
    return sync.Semaphore(env, current, value=value, name=name)


def BoundedSemaphore(mpi: Any, value: int = 1,
                     name: str | None = None) -> sync.BoundedSemaphore:
    """A ``threading.BoundedSemaphore`` of rank ``mpi``'s threads: releasing more permits
    than were acquired is a ValueError.

    Parameters
    ----------
    mpi
        The rank's handle.
    value
        The permits at the start (>= 0). Default 1.
    name
        Its name in deadlock reports. Default None.

    Returns
    -------
    mpisim.engine.sync.BoundedSemaphore
        As :func:`Semaphore`'s.

    Examples
    --------
    >>> import mpisim as ms
    >>> def program(mpi):
    ...     sem = ms.BoundedSemaphore(mpi)
    ...     yield sem.acquire()
    ...     sem.release()
    ...     try:
    ...         sem.release()
    ...     except ValueError as e:
    ...         return str(e)
    >>> ms.run(program, ranks=1).returned
    ['Semaphore released too many times']
    """
    env, current = _clock(mpi)
    return sync.BoundedSemaphore(env, current, value=value, name=name)


def Event(mpi: Any, name: str | None = None) -> sync.Event:
    """A ``threading.Event`` of rank ``mpi``'s threads: a flag they wait for.

    Parameters
    ----------
    mpi
        The rank's handle.
    name
        Its name in deadlock reports. Default None.

    Returns
    -------
    mpisim.engine.sync.Event
        ``yield ev.wait(timeout=None)`` (True once set), ``ev.set()``, ``ev.clear()``,
        ``ev.is_set()``.

    Examples
    --------
    >>> import mpisim as ms
    >>> def setter(mpi, ready):
    ...     yield mpi.compute(3e-6)
    ...     ready.set()
    >>> def program(mpi):
    ...     ready = ms.Event(mpi, name="ready")
    ...     mpi.spawn_thread(setter, mpi, ready)
    ...     yield ready.wait()
    ...     return mpi.now
    >>> ms.run(program, ranks=1).returned
    [3e-06]
    """
    return sync.Event(*_clock(mpi), name=name)


def Barrier(mpi: Any, parties: int, action: Callable[[], Any] | None = None,
            timeout: float | None = None, name: str | None = None) -> sync.Barrier:
    """A ``threading.Barrier`` of rank ``mpi``'s threads (not MPI_Barrier: the threads of
    one rank, not the ranks).

    Parameters
    ----------
    mpi
        The rank's handle.
    parties
        How many threads wait at it before all go on (>= 1).
    action
        Called by the last to arrive, before they go on. Default None.
    timeout
        The default timeout of its waits, in simulated seconds. Default None: for ever.
    name
        Its name in deadlock reports. Default None.

    Returns
    -------
    mpisim.engine.sync.Barrier
        ``i = yield gate.wait()`` (the arrival index; BrokenBarrierError raised at the yield
        of a broken one), ``gate.abort()``, ``gate.reset()``.

    Examples
    --------
    >>> import mpisim as ms
    >>> def part(mpi, gate, seconds):
    ...     yield mpi.compute(seconds)
    ...     yield gate.wait()
    ...     return mpi.now
    >>> def program(mpi):
    ...     gate = ms.Barrier(mpi, 2)
    ...     t = mpi.spawn_thread(part, mpi, gate, 5e-6)
    ...     mine = yield from part(mpi, gate, 1e-6)
    ...     return mine, (yield t)
    >>> ms.run(program, ranks=1).returned
    [(5e-06, 5e-06)]
    """
    env, current = _clock(mpi)
    return sync.Barrier(env, current, parties=parties, action=action, timeout=timeout,
                        name=name)


def Queue(mpi: Any, maxsize: int = 0, name: str | None = None) -> sync.Queue:
    """A ``queue.Queue`` between rank ``mpi``'s threads: FIFO, at most ``maxsize`` items.

    Parameters
    ----------
    mpi
        The rank's handle.
    maxsize
        The most items it holds; a put to a full queue waits. Default 0: no bound.
    name
        Its name in deadlock reports. Default None.

    Returns
    -------
    mpisim.engine.sync.Queue
        ``yield q.put(x)``, ``x = yield q.get()`` (``block``, ``timeout`` as ``queue``),
        ``q.put_nowait(x)``, ``q.get_nowait()``, ``q.task_done()``, ``yield q.join()``.

    Examples
    --------
    >>> import mpisim as ms
    >>> def consumer(mpi, q):
    ...     got = []
    ...     while (item := (yield q.get())) is not None:
    ...         yield mpi.send(count=item, dest=1, tag=0)
    ...         got.append(item)
    ...     return got
    >>> def program(mpi):
    ...     if mpi.rank == 1:
    ...         for _ in range(2):
    ...             yield mpi.recv(count=8, source=0, tag=0)
    ...         return None
    ...     q = ms.Queue(mpi, name="work")
    ...     t = mpi.spawn_thread(consumer, mpi, q, name="sender")
    ...     for item in (4, 8, None):
    ...         yield q.put(item)
    ...     return (yield t)
    >>> ms.run(program, ranks=2).returned
    [[4, 8], None]
    """
    env, current = _clock(mpi)
    return sync.Queue(env, current, maxsize=maxsize, name=name)
