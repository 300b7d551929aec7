"""Simulated thread synchronization: the ``threading`` and ``queue`` primitives on the run's clock.

The threads of a rank (:mod:`mpisim.engine.threads`) share memory, so they synchronize as
real threads do: locks, conditions, semaphores, events, barriers and queues. These are
those primitives with ``threading``'s and ``queue``'s semantics, in simulated time:

- a call that may block returns an **event** the thread yields (``yield lock.acquire()``).
  One that can be answered at once (a free lock, a set event, a queue with items) returns an
  event that has *already happened*: the thread goes on at once, in the same step, with no
  trip through the event queue and no simulated time spent;
- a call that never blocks (``release()``, ``set()``, ``notify()``, ``put_nowait()``) acts
  at once and returns its value;
- a blocked thread is woken in **first-come, first-served** order: a released lock is handed
  to its oldest waiter (who holds it from that instant, before it even runs again), a put
  item goes to the oldest waiting getter. Runs are therefore deterministic;
- a **timeout** is in simulated seconds, as ``threading`` reads it (``-1`` or None: wait
  for ever); a wait that ends before its timeout takes the timer out of the clock's queue,
  so a timer left over neither keeps the run going nor moves its end.

The value of the event is what the ``threading`` call returns (``True``/``False`` from
``acquire`` and ``wait``, the item from ``get``, the arrival index from ``Barrier.wait``); an
error it raises (``queue.Full`` on a put that timed out, ``threading.BrokenBarrierError``)
is raised where the thread yields the event.

**Construction.** Each primitive takes the run's clock (a rank's ``port_of(mpi).env``) and
``current``, a function answering which thread is running (a rank program passes
``mpi.current_thread``); without it every caller is the same anonymous thread (None), which
is enough for one thread or for primitives with no owner. In a rank program::

    from mpisim.engine import sync
    from mpisim.handle.access import port_of

    def worker(mpi, q):
        yield q.put((yield mpi.recv(count=8, source=0)))

    def program(mpi):
        q = sync.Queue(port_of(mpi).env, mpi.current_thread, maxsize=4)
        mpi.spawn_thread(worker, mpi, q, name="receiver")
        status = yield q.get()   # waits for the receiver thread, in simulated time

(mpi4py scripts get these as ``threading`` and ``queue``: :mod:`mpisim.mpi4py.run.simthreads`.)

**For the deadlock analysis.** Every primitive answers:

- ``holders()``: the threads holding it now (a lock's owner; the threads that acquired a
  semaphore and have not released it), a tuple, empty for primitives nobody holds
  (``Event``, ``Barrier``, ``Queue``);
- ``waiters()``: the threads blocked on it, in the order they will be woken;
- ``describe()``: one line for a report (``"Lock 'a' (held by <thread>)"``);
- ``name``: the name given at construction (None: none).

and every event a blocked thread waits on has ``waits_on`` (the primitive; a condition's
waiter that was notified and waits to take its lock back waits on the lock) and ``thread``
(the waiting thread): the analysis draws thread -> primitive -> holders.
"""

from __future__ import annotations

import heapq
import queue as _queue
import threading as _threading
from collections import deque
from collections.abc import Callable
from typing import Any

from simpy.core import Environment
from simpy.events import PENDING, Timeout
from simpy.events import Event as SimEvent

from .clock import done, failed

__all__ = ["Barrier", "BoundedSemaphore", "Condition", "Event", "LifoQueue", "Lock",
           "Primitive", "PriorityQueue", "Queue", "RLock", "Semaphore", "SimpleQueue", "Wait"]

Empty = _queue.Empty
Full = _queue.Full
BrokenBarrierError = _threading.BrokenBarrierError

_FREE = object()


def _nobody() -> Any:
    """The running thread when no ``current`` is given: one anonymous thread."""
    return None


class Wait(SimEvent):
    """The event of a blocked thread: happens when the primitive wakes it.

    ``waits_on``: the primitive; ``thread``: who waits; ``result``: the value it is woken
    with once granted; ``item``: what a blocked put carries; ``count``: an RLock's recursion
    level a condition's waiter takes back; ``timer``: its timeout, if any."""

    def __init__(self, env: Environment, waits_on: Primitive, thread: Any) -> None:
        super().__init__(env)
        self.waits_on = waits_on
        self.thread = thread
        self.result: Any = True
        self.item: Any = None
        self.count = 1
        self.timer: Timeout | None = None
        self.deadline = 0.0

    @property
    def pending(self) -> bool:
        """Not yet woken."""
        return self._value is PENDING


class Primitive:
    """What every primitive shares: its clock, the running thread, its FIFO of waiters, and
    the interface the deadlock analysis reads (see the module)."""

    kind = "primitive"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 name: str | None = None) -> None:
        self.env = env
        self.current = current or _nobody
        self.name = name
        self._waiting: deque[Wait] = deque()

    def __repr__(self) -> str:
        return f"<simulated {self.describe()}>"

    def holders(self) -> tuple[Any, ...]:
        """The threads holding the primitive now (none for those nobody holds)."""
        return ()

    def waiters(self) -> tuple[Any, ...]:
        """The threads blocked on it, in the order they will be woken."""
        return tuple(w.thread for w in self._waiting)

    def describe(self) -> str:
        """One line for a report: kind, name and state."""
        named = f" {self.name!r}" if self.name else ""
        state = self._state()
        return f"{self.kind}{named}" + (f" ({state})" if state else "")

    def _state(self) -> str:
        held = self.holders()
        return f"held by {', '.join(map(str, held))}" if held else ""

    # -- blocking and waking ---------------------------------------------------------------
    def _block(self, thread: Any, timeout: float | None, line: deque[Wait] | None = None) -> Wait:
        """A wait of ``thread`` at the end of ``line`` (default: the waiters), woken by
        :meth:`_wake` or, after ``timeout`` simulated seconds, by :meth:`_timed_out`."""
        ev = Wait(self.env, self, thread)
        (self._waiting if line is None else line).append(ev)
        if timeout is not None:
            ev.deadline = self.env.now + timeout  # (the time Clock.schedule gives it)
            ev.timer = timer = Timeout(self.env, timeout)
            timer.callbacks.append(lambda _t: self._expire(ev, line))
        return ev

    def _wake(self, ev: Wait, value: Any = None) -> None:
        """End the wait ``ev`` (already out of its line) with ``value``."""
        _cancel(ev)
        ev.succeed(value)

    def _fail(self, ev: Wait, error: Exception) -> None:
        """End the wait ``ev`` (already out of its line) with ``error``."""
        _cancel(ev)
        ev.fail(error)

    def _expire(self, ev: Wait, line: deque[Wait] | None) -> None:
        if not ev.pending or ev.waits_on is not self:
            return  # woken meanwhile, or moved on (a condition's waiter now on its lock)
        (self._waiting if line is None else line).remove(ev)
        ev.timer = None
        self._timed_out(ev)

    def _timed_out(self, ev: Wait) -> None:
        """The wait ``ev`` reached its timeout: by default it ends with False."""
        ev.succeed(False)


def _cancel(ev: Wait) -> None:
    """Take the timer of a wait that ended before its timeout out of the clock's queue, so
    that it neither keeps the run going nor moves its end (a timer due now is left: it
    finds the wait over and does nothing)."""
    timer, ev.timer = ev.timer, None
    if timer is None or timer.callbacks is None:
        return
    timer.callbacks.clear()
    env: Any = timer.env
    cal = getattr(env, "at", None)  # the run's Clock's calendar (a plain SimPy
    when = ev.deadline              # environment: the timer fires and does nothing)
    if cal is None or not when > env.now:
        return
    got = cal.get(when)
    if got is None:
        return
    if got.__class__ is tuple:
        if got[3] is timer:
            del cal[when]
            _drop_time(env.times, when)
        return
    for item in got:
        if item[3] is timer:
            got.remove(item)
            if not got:
                del cal[when]
                _drop_time(env.times, when)
            return


def _drop_time(times: list[float], when: float) -> None:
    times.remove(when)
    heapq.heapify(times)


def _lock_timeout(blocking: bool, timeout: float) -> float | None:
    """``threading.Lock.acquire``'s arguments, checked as it checks them: the timeout in
    seconds, or None (for ever)."""
    if not blocking and timeout != -1:
        raise ValueError("can't specify a timeout for a non-blocking call")
    if timeout < 0 and timeout != -1:
        raise ValueError("timeout value must be a non-negative number")
    return None if timeout == -1 else float(timeout)


class Lock(Primitive):
    """``threading.Lock``: one holder at a time; any thread may release it."""

    kind = "Lock"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 name: str | None = None) -> None:
        super().__init__(env, current, name)
        self._holder: Any = _FREE

    def locked(self) -> bool:
        """Whether some thread holds it."""
        return self._holder is not _FREE

    def holders(self) -> tuple[Any, ...]:
        return () if self._holder is _FREE else (self._holder,)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> SimEvent:
        """An event with True once the running thread holds the lock (False: not free and
        ``blocking`` False, or ``timeout`` seconds passed)."""
        return self._take(self.current(), _lock_timeout(blocking, timeout), blocking)

    def release(self) -> None:
        """Free the lock, or hand it to its oldest waiter. RuntimeError if not held."""
        if self._holder is _FREE:
            raise RuntimeError("release unlocked lock")
        self._pass_on()

    def _take(self, thread: Any, timeout: float | None, blocking: bool = True) -> SimEvent:
        if self._holder is _FREE:
            self._holder = thread
            return done(self.env, True)
        if not blocking or timeout == 0:
            return done(self.env, False)
        return self._block(thread, timeout)

    def _pass_on(self) -> None:
        if self._waiting:
            self._grant(self._waiting.popleft())
        else:
            self._holder = _FREE

    def _grant(self, ev: Wait) -> None:
        self._holder = ev.thread
        self._wake(ev, ev.result)

    # -- a condition's view (Condition) ----------------------------------------------------
    def _is_owned(self, thread: Any) -> bool:
        return self._holder is not _FREE  # as threading: any holder will do for a Lock

    def _release_save(self) -> int:
        self.release()
        return 1

    def _queue(self, ev: Wait) -> None:
        """Take back the lock for a condition's woken waiter ``ev`` (its event fires once
        it holds it)."""
        ev.waits_on = self
        if self._holder is _FREE:
            self._grant(ev)
        else:
            self._waiting.append(ev)


class RLock(Lock):
    """``threading.RLock``: its holder may acquire it again; released by its holder only,
    as many times as acquired."""

    kind = "RLock"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 name: str | None = None) -> None:
        super().__init__(env, current, name)
        self._count = 0

    def _take(self, thread: Any, timeout: float | None, blocking: bool = True) -> SimEvent:
        if self._holder is not _FREE and self._holder == thread:
            self._count += 1
            return done(self.env, True)
        got = super()._take(thread, timeout, blocking)
        if got.callbacks is None and got._value:
            self._count = 1
        return got

    def release(self) -> None:
        if self._holder is _FREE or self._holder != self.current():
            raise RuntimeError("cannot release un-acquired lock")
        self._count -= 1
        if self._count == 0:
            self._pass_on()

    def _grant(self, ev: Wait) -> None:
        self._count = ev.count
        super()._grant(ev)

    def _is_owned(self, thread: Any) -> bool:
        return self._holder is not _FREE and self._holder == thread

    def _release_save(self) -> int:
        count, self._count = self._count, 0
        self._pass_on()
        return count

    def _state(self) -> str:
        held = super()._state()
        return f"{held}, {self._count} time(s)" if held else ""


class Condition(Primitive):
    """``threading.Condition`` over a Lock or RLock (a new RLock by default)."""

    kind = "Condition"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 lock: Lock | None = None, name: str | None = None) -> None:
        super().__init__(env, current, name)
        self.lock = lock if lock is not None else RLock(env, current)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> SimEvent:
        """The lock's acquire."""
        return self.lock.acquire(blocking, timeout)

    def release(self) -> None:
        """The lock's release."""
        self.lock.release()

    def wait(self, timeout: float | None = None) -> SimEvent:
        """Release the lock, wait for a notify (or ``timeout`` seconds), take the lock back:
        an event with True if notified, False on the timeout. RuntimeError unless the
        running thread holds the lock."""
        thread = self.current()
        if not self.lock._is_owned(thread):
            raise RuntimeError("cannot wait on un-acquired lock")
        count = self.lock._release_save()
        if timeout is not None and timeout <= 0:
            ev = Wait(self.env, self, thread)
            ev.result, ev.count = False, count
            self.lock._queue(ev)
            return ev
        ev = self._block(thread, timeout)
        ev.count = count
        return ev

    def notify(self, n: int = 1) -> None:
        """Wake the ``n`` oldest waiters (each then takes the lock back in turn).
        RuntimeError unless the running thread holds the lock."""
        if not self.lock._is_owned(self.current()):
            raise RuntimeError("cannot notify on un-acquired lock")
        for _ in range(min(n, len(self._waiting))):
            ev = self._waiting.popleft()
            _cancel(ev)
            ev.result = True
            self.lock._queue(ev)

    def notify_all(self) -> None:
        """Wake every waiter."""
        self.notify(len(self._waiting))

    def _timed_out(self, ev: Wait) -> None:
        ev.result = False
        self.lock._queue(ev)

    def holders(self) -> tuple[Any, ...]:
        return self.lock.holders()


class Semaphore(Primitive):
    """``threading.Semaphore``: ``value`` permits; a release hands a permit to the oldest
    waiter. Its holders are the threads that acquired a permit and did not release one."""

    kind = "Semaphore"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 value: int = 1, name: str | None = None) -> None:
        if value < 0:
            raise ValueError("semaphore initial value must be >= 0")
        super().__init__(env, current, name)
        self._value = value
        self._held: list[Any] = []

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> SimEvent:
        """An event with True once the running thread has a permit (False: none free and
        ``blocking`` False, or ``timeout`` seconds passed)."""
        if not blocking and timeout is not None:
            raise ValueError("can't specify timeout for non-blocking acquire")
        thread = self.current()
        if self._value > 0:
            self._value -= 1
            self._held.append(thread)
            return done(self.env, True)
        if not blocking or (timeout is not None and timeout <= 0):
            return done(self.env, False)
        return self._block(thread, timeout)

    def release(self, n: int = 1) -> None:
        """Give back ``n`` permits, each to the oldest waiter if any."""
        if n < 1:
            raise ValueError("n must be one or more")
        self._check_release(n)
        thread = self.current()
        for _ in range(n):
            if thread in self._held:
                self._held.remove(thread)
            elif self._held:
                self._held.pop(0)
            if self._waiting:
                ev = self._waiting.popleft()
                self._held.append(ev.thread)
                self._wake(ev, True)
            else:
                self._value += 1

    def _check_release(self, n: int) -> None:
        return None

    def holders(self) -> tuple[Any, ...]:
        return tuple(self._held)

    def _state(self) -> str:
        held = super()._state()
        return f"{self._value} free" + (f", {held}" if held else "")


class BoundedSemaphore(Semaphore):
    """``threading.BoundedSemaphore``: releasing more than was acquired is a ValueError."""

    kind = "BoundedSemaphore"

    def _check_release(self, n: int) -> None:
        if n > len(self._held):
            raise ValueError("Semaphore released too many times")


class Event(Primitive):
    """``threading.Event``: a flag threads wait for."""

    kind = "Event"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 name: str | None = None) -> None:
        super().__init__(env, current, name)
        self._flag = False

    def is_set(self) -> bool:
        """The flag."""
        return self._flag

    def set(self) -> None:
        """Set the flag and wake every waiter (with True)."""
        self._flag = True
        while self._waiting:
            self._wake(self._waiting.popleft(), True)

    def clear(self) -> None:
        """Clear the flag."""
        self._flag = False

    def wait(self, timeout: float | None = None) -> SimEvent:
        """An event with True once the flag is set (False after ``timeout`` seconds)."""
        if self._flag:
            return done(self.env, True)
        if timeout is not None and timeout <= 0:
            return done(self.env, False)
        return self._block(self.current(), timeout)

    def _state(self) -> str:
        return "set" if self._flag else "not set"


class Barrier(Primitive):
    """``threading.Barrier``: ``parties`` threads wait until all have arrived; the last
    runs ``action`` first. A timeout, an abort or a reset breaks it
    (``threading.BrokenBarrierError`` in its waiters)."""

    kind = "Barrier"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 parties: int = 1, action: Callable[[], Any] | None = None,
                 timeout: float | None = None, name: str | None = None) -> None:
        if parties < 1:
            raise ValueError("parties must be >= 1")
        super().__init__(env, current, name)
        self.parties = parties
        self.action = action
        self.timeout = timeout
        self.broken = False

    @property
    def n_waiting(self) -> int:
        """How many threads wait at it now."""
        return len(self._waiting)

    def wait(self, timeout: float | None = None) -> SimEvent:
        """An event with the arrival index (0 for the first, ``parties - 1`` for the last)
        once all have arrived. A broken barrier fails it with BrokenBarrierError."""
        if self.broken:
            return failed(self.env, BrokenBarrierError())
        index = len(self._waiting)
        if index + 1 < self.parties:
            if timeout is None:
                timeout = self.timeout
            return self._block(self.current(), timeout)
        if self.action is not None:
            try:
                self.action()
            except BaseException:
                self._break()
                raise
        for i, ev in enumerate(self._drain()):
            self._wake(ev, i)
        return done(self.env, index)

    def abort(self) -> None:
        """Break it: every waiter, and every later wait, fails with BrokenBarrierError."""
        self._break()

    def reset(self) -> None:
        """Back to empty: its waiters fail with BrokenBarrierError."""
        self._break()
        self.broken = False

    def _drain(self) -> list[Wait]:
        waiting = list(self._waiting)
        self._waiting.clear()
        return waiting

    def _break(self) -> None:
        self.broken = True
        for ev in self._drain():
            self._fail(ev, BrokenBarrierError())

    def _timed_out(self, ev: Wait) -> None:
        self._waiting.appendleft(ev)
        self._break()

    def _state(self) -> str:
        return "broken" if self.broken else f"{len(self._waiting)} of {self.parties} arrived"


class Queue(Primitive):
    """``queue.Queue``: FIFO, at most ``maxsize`` items (0: no bound). A put to a waiting
    getter hands the item over; ``task_done``/``join`` count unfinished items."""

    kind = "Queue"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 maxsize: int = 0, name: str | None = None) -> None:
        super().__init__(env, current, name)
        self.maxsize = maxsize
        self._init(maxsize)
        self._putters: deque[Wait] = deque()
        self._joiners: deque[Wait] = deque()
        self.unfinished_tasks = 0

    # -- the container (overridden by LifoQueue, PriorityQueue, as queue's are) --------------
    def _init(self, maxsize: int) -> None:
        self.queue: Any = deque()

    def _qsize(self) -> int:
        return len(self.queue)

    def _put(self, item: Any) -> None:
        self.queue.append(item)

    def _get(self) -> Any:
        return self.queue.popleft()

    # -- the calls ---------------------------------------------------------------------------
    def qsize(self) -> int:
        """How many items it holds."""
        return self._qsize()

    def empty(self) -> bool:
        """Whether it holds no item."""
        return not self._qsize()

    def full(self) -> bool:
        """Whether it holds ``maxsize`` items."""
        return 0 < self.maxsize <= self._qsize()

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> SimEvent:
        """An event (None) once ``item`` is in (queue.Full in the thread after ``timeout``
        seconds). Not ``block`` and full: raises queue.Full here."""
        timeout = _queue_timeout(block, timeout)
        self.unfinished_tasks += 1
        if self._waiting:  # an empty queue with a getter waiting: hand it over
            self._wake(self._waiting.popleft(), item)
            return self.env_done
        if not self.full():
            self._put(item)
            return self.env_done
        self.unfinished_tasks -= 1
        if not block or timeout == 0:
            raise Full
        ev = self._block(self.current(), timeout, self._putters)
        ev.item = item
        return ev

    def get(self, block: bool = True, timeout: float | None = None) -> SimEvent:
        """An event with the oldest item (queue.Empty in the thread after ``timeout``
        seconds). Not ``block`` and empty: raises queue.Empty here."""
        timeout = _queue_timeout(block, timeout)
        if self._qsize():
            item = self._get()
            if self._putters:
                ev = self._putters.popleft()
                self._put(ev.item)
                self.unfinished_tasks += 1
                self._wake(ev, None)
            return done(self.env, item)
        if not block or timeout == 0:
            raise Empty
        return self._block(self.current(), timeout)

    def put_nowait(self, item: Any) -> None:
        """Put without blocking (queue.Full if full)."""
        self.put(item, block=False)

    def get_nowait(self) -> Any:
        """The oldest item, without blocking (queue.Empty if none)."""
        return self.get(block=False)._value

    def task_done(self) -> None:
        """One item got earlier is processed; the last wakes ``join``'s waiters."""
        if self.unfinished_tasks <= 0:
            raise ValueError("task_done() called too many times")
        self.unfinished_tasks -= 1
        if self.unfinished_tasks == 0:
            while self._joiners:
                self._wake(self._joiners.popleft(), None)

    def join(self) -> SimEvent:
        """An event (None) once every item put has been processed (``task_done``)."""
        if self.unfinished_tasks == 0:
            return self.env_done
        return self._block(self.current(), None, self._joiners)

    @property
    def env_done(self) -> SimEvent:
        return done(self.env, None)

    def waiters(self) -> tuple[Any, ...]:
        return tuple(w.thread for line in (self._waiting, self._putters, self._joiners)
                     for w in line)

    def _expire(self, ev: Wait, line: deque[Wait] | None) -> None:
        if not ev.pending:
            return
        (self._waiting if line is None else line).remove(ev)
        ev.timer = None
        ev.fail(Empty() if line is None else Full())

    def _state(self) -> str:
        bound = f" of at most {self.maxsize}" if self.maxsize > 0 else ""
        return f"{self._qsize()} item(s){bound}"


def _queue_timeout(block: bool, timeout: float | None) -> float | None:
    if block and timeout is not None and timeout < 0:
        raise ValueError("'timeout' must be a non-negative number")
    return timeout if block else 0


class LifoQueue(Queue):
    """``queue.LifoQueue``: the newest item first."""

    kind = "LifoQueue"

    def _init(self, maxsize: int) -> None:
        self.queue = []

    def _get(self) -> Any:
        return self.queue.pop()


class PriorityQueue(Queue):
    """``queue.PriorityQueue``: the smallest item first."""

    kind = "PriorityQueue"

    def _init(self, maxsize: int) -> None:
        self.queue = []

    def _put(self, item: Any) -> None:
        heapq.heappush(self.queue, item)

    def _get(self) -> Any:
        return heapq.heappop(self.queue)


class SimpleQueue(Queue):
    """``queue.SimpleQueue``: unbounded FIFO."""

    kind = "SimpleQueue"

    def __init__(self, env: Environment, current: Callable[[], Any] | None = None,
                 name: str | None = None) -> None:
        super().__init__(env, current, 0, name)
