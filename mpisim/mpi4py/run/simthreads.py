"""The ``threading`` and ``queue`` modules a rank's script sees: simulated threads.

An mpi4py program that starts threads (a communication thread beside compute threads, a
pool of workers) runs them as simulated threads of its rank (MPI 4.1 §11.6): each
``threading.Thread`` is a greenlet of its own, driven by a program the stand-in hands to
``mpi.spawn_thread`` (:func:`~mpisim.mpi4py.bridge.thread_program`), so one thread runs at a
time, in a deterministic order, on the simulated clock; a thread blocked in an MPI call, on
a lock, in ``queue.get`` or in ``time.sleep`` blocks only itself. Locks, conditions,
semaphores, events, barriers and queues are :mod:`mpisim.engine.sync`'s, made blocking:
each waits by handing its event to the rank's driver, as an MPI call does.

Scope: only the script's own code (its ``__main__``, the modules of its directory) imports
these (:class:`~mpisim.mpi4py.bridge.Scope`'s ``scoped`` modules); the standard library and
other packages keep the real ones, so nothing shared by the process holds a simulated lock.
Outside a simulated rank the names answer as the real module's do (``current_thread``).

What differs from CPython, on purpose:

- ``ident`` (and ``get_ident()``, ``native_id``) is the rank's thread number: 0 for the main
  thread, 1, 2... for the threads in the order they were started;
- an exception escaping a thread's ``run`` ends the run as an ERROR naming the rank and the
  thread (CPython prints it and lets the thread die, and the MPI job then usually hangs);
  ``SystemExit`` ends the thread quietly, as in CPython;
- at the end of the script, the rank's non-daemon threads are joined before its ``atexit``
  handlers run and MPI_Finalize, as CPython's ``threading._shutdown`` does
  (:func:`join_threads`).
"""

from __future__ import annotations

import contextlib
import itertools
import queue as _queue
import sys
import threading as _threading
import types
from collections.abc import Callable
from typing import Any

from greenlet import getcurrent
from simpy.events import Event as _EngineEvent

from ...engine import sync
from ..bridge import RankContext, current, thread_program

__all__ = ["Thread", "join_threads", "queue_module", "thread_module", "threading_module"]


# -- waiting ---------------------------------------------------------------------------------
def wait(ev: _EngineEvent) -> Any:
    """Block the calling simulated thread until ``ev`` happens: its value (or its error,
    raised here). One that has happened already is answered at once."""
    if ev.callbacks is None:
        if ev._ok:
            return ev._value
        ev._defused = True
        raise ev._value
    ctx = current()
    ctx.start(sys._getframe(1))  # the script's line, for a report of the blocked thread
    return ctx.wait(ev)


def _made(kind: Any, *args: Any, **kwargs: Any) -> Any:
    """A primitive of :mod:`mpisim.engine.sync` for the calling rank."""
    ctx = current()
    return kind(ctx.port.env, ctx.mpi.current_thread, *args, **kwargs)


def _now() -> float:
    return float(current().mpi.now)


# -- locks and the like ------------------------------------------------------------------------
class Lock:
    """``threading.Lock``, simulated."""

    _kind: Any = sync.Lock

    def __init__(self) -> None:
        self._p = _made(self._kind)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return bool(wait(self._p.acquire(blocking, timeout)))

    def release(self) -> None:
        self._p.release()

    def locked(self) -> bool:
        return bool(self._p.locked())

    __enter__ = acquire
    acquire_lock = acquire
    release_lock = release
    locked_lock = locked

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        state = "locked" if self._p.locked() else "unlocked"
        return f"<{state} simulated {type(self).__name__} object at {id(self):#x}>"


class RLock(Lock):
    """``threading.RLock``, simulated."""

    _kind = sync.RLock


class Condition:
    """``threading.Condition``, simulated (its lock: a new RLock by default)."""

    def __init__(self, lock: Lock | None = None) -> None:
        if lock is None:
            lock = RLock()
        self._lock = lock
        self._p = _made(sync.Condition, lock._p)
        self.acquire, self.release = lock.acquire, lock.release

    def __enter__(self) -> bool:
        return self._lock.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def wait(self, timeout: float | None = None) -> bool:
        return bool(wait(self._p.wait(timeout)))

    def wait_for(self, predicate: Callable[[], Any], timeout: float | None = None) -> Any:
        endtime = None
        waittime = timeout
        result = predicate()
        while not result:
            if waittime is not None:
                if endtime is None:
                    endtime = _now() + waittime
                else:
                    waittime = endtime - _now()
                    if waittime <= 0:
                        break
            self.wait(waittime)
            result = predicate()
        return result

    def notify(self, n: int = 1) -> None:
        self._p.notify(n)

    def notify_all(self) -> None:
        self._p.notify_all()

    notifyAll = notify_all


class Semaphore:
    """``threading.Semaphore``, simulated."""

    _kind: Any = sync.Semaphore

    def __init__(self, value: int = 1) -> None:
        self._p = _made(self._kind, value)

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        return bool(wait(self._p.acquire(blocking, timeout)))

    def release(self, n: int = 1) -> None:
        self._p.release(n)

    __enter__ = acquire

    def __exit__(self, *exc: object) -> None:
        self.release()


class BoundedSemaphore(Semaphore):
    """``threading.BoundedSemaphore``, simulated."""

    _kind = sync.BoundedSemaphore


class Event:
    """``threading.Event``, simulated."""

    def __init__(self) -> None:
        self._p = _made(sync.Event)

    def is_set(self) -> bool:
        return bool(self._p.is_set())

    isSet = is_set

    def set(self) -> None:
        self._p.set()

    def clear(self) -> None:
        self._p.clear()

    def wait(self, timeout: float | None = None) -> bool:
        return bool(wait(self._p.wait(timeout)))


class Barrier:
    """``threading.Barrier``, simulated."""

    def __init__(self, parties: int, action: Callable[[], Any] | None = None,
                 timeout: float | None = None) -> None:
        self._p = _made(sync.Barrier, parties, action, timeout)

    def wait(self, timeout: float | None = None) -> int:
        return int(wait(self._p.wait(timeout)))

    def reset(self) -> None:
        self._p.reset()

    def abort(self) -> None:
        self._p.abort()

    @property
    def parties(self) -> int:
        return int(self._p.parties)

    @property
    def n_waiting(self) -> int:
        return int(self._p.n_waiting)

    @property
    def broken(self) -> bool:
        return bool(self._p.broken)


# -- threads -----------------------------------------------------------------------------------
def _rank_state(ctx: RankContext) -> dict[str, Any]:
    """The rank's threading state: its main thread, its threads, its counter, its
    shutdown hooks (kept in the rank's context, as a real process keeps them)."""
    state = ctx.state.get("threading")
    if state is None:
        state = ctx.state["threading"] = {"threads": [], "count": itertools.count(1),
                                          "atexit": [], "main": None}
        state["main"] = _MainThread(ctx)
    return state


class Thread:
    """``threading.Thread``, simulated: ``target``/``args``/``kwargs`` or a subclass's
    ``run``; ``start``, ``join(timeout)``, ``name``, ``ident``, ``daemon``, ``is_alive``."""

    def __init__(self, group: None = None, target: Callable[..., Any] | None = None,
                 name: str | None = None, args: Any = (), kwargs: Any = None, *,
                 daemon: bool | None = None) -> None:
        if group is not None:
            raise AssertionError("group argument must be None for now")
        ctx = current()
        if name:
            name = str(name)
        else:
            name = f"Thread-{next(_rank_state(ctx)['count'])}"
            if target is not None:
                with contextlib.suppress(AttributeError):
                    name += f" ({target.__name__})"
        self._ctx = ctx
        self._target, self._args, self._kwargs = target, args, kwargs or {}
        self._name = name
        self._daemonic = current_thread().daemon if daemon is None else bool(daemon)
        self._sim: Any = None
        self._started = False
        self._initialized = True

    def start(self) -> None:
        if not getattr(self, "_initialized", False):
            raise RuntimeError("thread.__init__() not called")
        if self._started:
            raise RuntimeError("threads can only be started once")
        ctx = self._ctx
        program, g = thread_program(ctx, self._bootstrap)
        g.thread = self
        self._started = True
        self._sim = ctx.mpi.spawn_thread(_program, program, name=self._name,
                                         daemon=self._daemonic)
        _rank_state(ctx)["threads"].append(self)

    def _bootstrap(self) -> None:
        with contextlib.suppress(SystemExit):  # a thread's sys.exit ends the thread
            self.run()                         # only, as in CPython

    def run(self) -> None:
        try:
            if self._target is not None:
                self._target(*self._args, **self._kwargs)
        finally:
            del self._target, self._args, self._kwargs

    def join(self, timeout: float | None = None) -> None:
        if not getattr(self, "_initialized", False):
            raise RuntimeError("Thread.__init__() not called")
        if not self._started:
            raise RuntimeError("cannot join thread before it is started")
        if self is current_thread():
            raise RuntimeError("cannot join current thread")
        sim = self._sim
        if sim is None or not sim.is_alive:
            return
        if timeout is None:
            wait(sim)
            return
        ended = Event()
        sim.callbacks.append(lambda _thread: ended.set())
        ended.wait(max(timeout, 0))

    def is_alive(self) -> bool:
        return self._started and self._sim is not None and self._sim.is_alive

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        self._name = str(name)
        if self._sim is not None:
            self._sim.name = self._name

    @property
    def ident(self) -> int | None:
        return None if self._sim is None else int(self._sim.ident)

    native_id = ident

    @property
    def daemon(self) -> bool:
        return self._daemonic

    @daemon.setter
    def daemon(self, daemonic: bool) -> None:
        if not getattr(self, "_initialized", False):
            raise RuntimeError("Thread.__init__() not called")
        if self._started:
            raise RuntimeError("cannot set daemon status of active thread")
        self._daemonic = bool(daemonic)

    def isDaemon(self) -> bool:
        return self.daemon

    def setDaemon(self, daemonic: bool) -> None:
        self.daemon = daemonic

    def getName(self) -> str:
        return self.name

    def setName(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        status = "initial"
        if self._started:
            status = "started" if self.is_alive() else "stopped"
        if self._daemonic:
            status += " daemon"
        if self.ident is not None:
            status += f" {self.ident}"
        return f"<{type(self).__name__}({self._name}, {status})>"


def _program(program: Any) -> Any:
    """The program ``mpi.spawn_thread`` runs: the thread's driver, made already."""
    return program


class _MainThread(Thread):
    """The rank's main thread: its script."""

    def __init__(self, ctx: RankContext) -> None:
        self._ctx = ctx
        self._name = "MainThread"
        self._daemonic = False
        self._sim = None
        self._started = True
        self._initialized = True

    @property
    def ident(self) -> int:
        return 0

    native_id = ident

    def is_alive(self) -> bool:
        return not self._ctx.closed

    def join(self, timeout: float | None = None) -> None:
        raise RuntimeError("cannot join the main thread of a simulated rank")


class Timer(Thread):
    """``threading.Timer``: ``function(*args, **kwargs)`` after ``interval`` simulated
    seconds, unless cancelled."""

    def __init__(self, interval: float, function: Callable[..., Any], args: Any = None,
                 kwargs: Any = None) -> None:
        super().__init__()
        self.interval = interval
        self.function = function
        self.args = args if args is not None else []
        self.kwargs = kwargs if kwargs is not None else {}
        self.finished = Event()

    def cancel(self) -> None:
        self.finished.set()

    def run(self) -> None:
        self.finished.wait(self.interval)
        if not self.finished.is_set():
            self.function(*self.args, **self.kwargs)
        self.finished.set()


def current_thread() -> Thread | _threading.Thread:
    """The simulated thread running now (the real one outside a simulated rank)."""
    g = getcurrent()
    thread = getattr(g, "thread", None)
    if thread is not None:
        return thread
    ctx = getattr(g, "ctx", None)
    if ctx is None:
        return _threading.current_thread()
    return _rank_state(ctx)["main"]


def main_thread() -> Thread | _threading.Thread:
    ctx = getattr(getcurrent(), "ctx", None)
    return _threading.main_thread() if ctx is None else _rank_state(ctx)["main"]


def get_ident() -> int:
    ident = current_thread().ident
    assert ident is not None  # (the running thread has started)
    return int(ident)


def enumerate() -> list[Thread] | list[_threading.Thread]:
    ctx = getattr(getcurrent(), "ctx", None)
    if ctx is None:
        return _threading.enumerate()
    state = _rank_state(ctx)
    return [state["main"], *(t for t in state["threads"] if t.is_alive())]


def active_count() -> int:
    return len(enumerate())


def _register_atexit(func: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """A hook run at the end of the script, before its threads are joined
    (CPython's ``threading._register_atexit``: how executors stop their workers)."""
    _rank_state(current())["atexit"].append((func, args, kwargs))


def join_threads(ctx: RankContext) -> None:
    """The end of the script, as CPython's ``threading._shutdown``: the hooks of
    :func:`_register_atexit` (the last first), then every non-daemon thread joined; from
    then on the daemon threads are not resumed (CPython freezes them at exit), so one that
    sleeps or waits in a loop neither runs into the script's torn-down globals nor keeps
    the run going."""
    state = ctx.state.get("threading")
    if state is not None:
        hooks = state["atexit"]
        while hooks:
            func, args, kwargs = hooks.pop()
            func(*args, **kwargs)
        for thread in list(state["threads"]):
            if not thread.daemon and thread.is_alive():
                thread.join()
    ctx.exited = True  # daemon threads never run again (bridge.drive)


# -- thread-local data -------------------------------------------------------------------------
class local:
    """``threading.local``: attributes of one simulated thread each (a subclass's
    ``__init__`` runs again in each thread that first uses it)."""

    __slots__ = ("__dict__", "_local__impl")

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if (args or kwargs) and cls.__init__ is object.__init__:
            raise TypeError("Initialization arguments are not supported")
        self = object.__new__(cls)
        dicts = {_key(): object.__getattribute__(self, "__dict__")}
        object.__setattr__(self, "_local__impl", (dicts, args, kwargs))
        return self

    def __getattribute__(self, name: str) -> Any:
        _patch(self)
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "__dict__":
            raise AttributeError(f"{type(self).__name__!r} object attribute '__dict__' is "
                                 "read-only")
        _patch(self)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name == "__dict__":
            raise AttributeError(f"{type(self).__name__!r} object attribute '__dict__' is "
                                 "read-only")
        _patch(self)
        object.__delattr__(self, name)


def _key() -> Thread | _threading.Thread:
    return current_thread()


def _patch(self: local) -> None:
    """Put the running thread's attributes in place (made, and ``__init__`` run, at its
    first use in the thread)."""
    dicts, args, kwargs = object.__getattribute__(self, "_local__impl")
    key = _key()
    found = dicts.get(key)
    if found is None:
        found = dicts[key] = {}
        object.__setattr__(self, "__dict__", found)
        init = type(self).__init__
        if init is not object.__init__:
            init(self, *args, **kwargs)
    else:
        object.__setattr__(self, "__dict__", found)


# -- queue -------------------------------------------------------------------------------------
class Queue:
    """``queue.Queue``, simulated."""

    _kind: Any = sync.Queue

    def __init__(self, maxsize: int = 0) -> None:
        self._p = _made(self._kind, maxsize)

    @property
    def maxsize(self) -> int:
        return int(self._p.maxsize)

    @property
    def queue(self) -> Any:
        return self._p.queue

    @property
    def unfinished_tasks(self) -> int:
        return int(self._p.unfinished_tasks)

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        wait(self._p.put(item, block, timeout))

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        return wait(self._p.get(block, timeout))

    def put_nowait(self, item: Any) -> None:
        self._p.put_nowait(item)

    def get_nowait(self) -> Any:
        return self._p.get_nowait()

    def qsize(self) -> int:
        return int(self._p.qsize())

    def empty(self) -> bool:
        return bool(self._p.empty())

    def full(self) -> bool:
        return bool(self._p.full())

    def task_done(self) -> None:
        self._p.task_done()

    def join(self) -> None:
        wait(self._p.join())


class LifoQueue(Queue):
    """``queue.LifoQueue``, simulated."""

    _kind = sync.LifoQueue


class PriorityQueue(Queue):
    """``queue.PriorityQueue``, simulated."""

    _kind = sync.PriorityQueue


class SimpleQueue:
    """``queue.SimpleQueue``, simulated."""

    def __init__(self) -> None:
        self._p = _made(sync.SimpleQueue)

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        self._p.put_nowait(item)

    put_nowait = put

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        return wait(self._p.get(block, timeout))

    def get_nowait(self) -> Any:
        return self._p.get_nowait()

    def qsize(self) -> int:
        return int(self._p.qsize())

    def empty(self) -> bool:
        return bool(self._p.empty())


# -- the modules -------------------------------------------------------------------------------
_THREADING_NAMES = {
    "Thread": Thread, "Timer": Timer, "Lock": Lock, "RLock": RLock, "Condition": Condition,
    "Semaphore": Semaphore, "BoundedSemaphore": BoundedSemaphore, "Event": Event,
    "Barrier": Barrier, "local": local, "current_thread": current_thread,
    "currentThread": current_thread, "main_thread": main_thread, "get_ident": get_ident,
    "get_native_id": get_ident, "enumerate": enumerate, "active_count": active_count,
    "activeCount": active_count, "_register_atexit": _register_atexit,
    "BrokenBarrierError": _threading.BrokenBarrierError,
}
_QUEUE_NAMES = {"Queue": Queue, "LifoQueue": LifoQueue, "PriorityQueue": PriorityQueue,
                "SimpleQueue": SimpleQueue, "Empty": _queue.Empty, "Full": _queue.Full}
_MODULES: dict[str, types.ModuleType] = {}


def _module(name: str, real: types.ModuleType, names: dict[str, Any]) -> types.ModuleType:
    if name not in _MODULES:
        module = types.ModuleType(name, real.__doc__)
        module.__dict__.update({k: v for k, v in vars(real).items()
                                if k not in ("__name__", "__doc__", "__spec__", "__loader__")})
        module.__dict__.update(names)
        _MODULES[name] = module
    return _MODULES[name]


def start_new_thread(function: Callable[..., Any], args: Any, kwargs: Any = None) -> int:
    """``_thread.start_new_thread``: a daemon simulated thread (the process does not wait
    for it, as for ``_thread``'s); its ident."""
    if not isinstance(args, tuple):
        raise TypeError("2nd arg must be a tuple")
    thread = Thread(target=function, args=args, kwargs=kwargs or {}, daemon=True)
    thread.start()
    return int(thread.ident or 0)


_THREAD_NAMES = {"start_new_thread": start_new_thread, "start_new": start_new_thread,
                 "allocate_lock": Lock, "allocate": Lock, "LockType": Lock, "RLock": RLock,
                 "get_ident": get_ident, "get_native_id": get_ident}


def thread_module() -> types.ModuleType:
    """The ``_thread`` a script's own code imports (one per process)."""
    import _thread

    return _module("_thread", _thread, _THREAD_NAMES)


def threading_module() -> types.ModuleType:
    """The ``threading`` a script's own code imports (one per process)."""
    return _module("threading", _threading, _THREADING_NAMES)


def queue_module() -> types.ModuleType:
    """The ``queue`` a script's own code imports (one per process)."""
    return _module("queue", _queue, _QUEUE_NAMES)
