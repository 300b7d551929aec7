"""The ``concurrent.futures`` a rank's script sees: a thread pool of simulated threads.

``ThreadPoolExecutor`` runs its work items on simulated threads of the rank
(:mod:`.simthreads`), as CPython's does on real ones: a worker is started per submit while
fewer than ``max_workers`` run and none is idle; each takes items from a simulated queue in
order. ``Future``, ``wait`` and ``as_completed`` wait in simulated time. The default
``max_workers`` is 5, CPython's ``min(32, cpu_count + 4)`` for one core: a simulated rank
has no machine to count, and a default read from the host would change the run from one
machine to the next. ``ProcessPoolExecutor`` is not simulated (an error names it).
"""

from __future__ import annotations

import concurrent.futures as _futures
import itertools
import types
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import _base
from typing import Any, Literal

from ..exceptions import unsupported
from .simthreads import Event, Queue, Semaphore, Thread, _now, _register_atexit

__all__ = ["Future", "ThreadPoolExecutor", "as_completed", "futures_modules", "wait"]

FIRST_COMPLETED = _futures.FIRST_COMPLETED
FIRST_EXCEPTION = _futures.FIRST_EXCEPTION
ALL_COMPLETED = _futures.ALL_COMPLETED
CancelledError = _futures.CancelledError
TimeoutError = _futures.TimeoutError
BrokenExecutor = _futures.BrokenExecutor
_PENDING, _RUNNING, _CANCELLED, _NOTIFIED, _FINISHED = (
    "PENDING", "RUNNING", "CANCELLED", "CANCELLED_AND_NOTIFIED", "FINISHED")


class BrokenThreadPool(BrokenExecutor):
    """A worker's initializer failed: the pool takes no more work."""


class Future:
    """``concurrent.futures.Future``, waiting in simulated time."""

    def __init__(self) -> None:
        self._state = _PENDING
        self._result: Any = None
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Future], Any]] = []
        self._waiters: list[Event] = []
        self._done = Event()

    def __repr__(self) -> str:
        return f"<Future at {id(self):#x} state={self._state.lower()}>"

    def cancel(self) -> bool:
        if self._state in (_RUNNING, _FINISHED):
            return False
        if self._state in (_CANCELLED, _NOTIFIED):
            return True
        self._state = _CANCELLED
        self._settled()
        return True

    def cancelled(self) -> bool:
        return self._state in (_CANCELLED, _NOTIFIED)

    def running(self) -> bool:
        return self._state == _RUNNING

    def done(self) -> bool:
        return self._state in (_CANCELLED, _NOTIFIED, _FINISHED)

    def _outcome(self) -> Any:
        if self.cancelled():
            raise CancelledError()
        if self._exception is not None:
            raise self._exception
        return self._result

    def result(self, timeout: float | None = None) -> Any:
        if not self.done():
            self._done.wait(timeout)
            if not self.done():
                raise TimeoutError()
        return self._outcome()

    def exception(self, timeout: float | None = None) -> BaseException | None:
        if not self.done():
            self._done.wait(timeout)
            if not self.done():
                raise TimeoutError()
        if self.cancelled():
            raise CancelledError()
        return self._exception

    def add_done_callback(self, fn: Callable[[Future], Any]) -> None:
        if self.done():
            _call_back(fn, self)
        else:
            self._callbacks.append(fn)

    def set_running_or_notify_cancel(self) -> bool:
        if self._state == _CANCELLED:
            self._state = _NOTIFIED
            for waiter in self._waiters:  # wait() and as_completed() count it now
                waiter.set()
            return False
        if self._state == _PENDING:
            self._state = _RUNNING
            return True
        raise RuntimeError(f"Future in unexpected state: {self._state}")

    def set_result(self, result: Any) -> None:
        if self._state in (_CANCELLED, _NOTIFIED, _FINISHED):
            raise _futures.InvalidStateError(f"{self._state}: {self!r}")
        self._result, self._state = result, _FINISHED
        self._settled()

    def set_exception(self, exception: BaseException) -> None:
        if self._state in (_CANCELLED, _NOTIFIED, _FINISHED):
            raise _futures.InvalidStateError(f"{self._state}: {self!r}")
        self._exception, self._state = exception, _FINISHED
        self._settled()

    def _settled(self) -> None:
        self._done.set()
        for waiter in self._waiters:
            waiter.set()
        callbacks, self._callbacks = self._callbacks, []
        for fn in callbacks:
            _call_back(fn, self)


def _call_back(fn: Callable[[Future], Any], future: Future) -> None:
    try:
        fn(future)
    except Exception:  # CPython logs it ("exception calling callback") and goes on
        import logging

        logging.getLogger("concurrent.futures").exception(
            "exception calling callback for %r", future)


def wait(fs: Iterable[Future], timeout: float | None = None,
         return_when: str = ALL_COMPLETED) -> tuple[set[Future], set[Future]]:
    """``concurrent.futures.wait`` in simulated time: (done, not_done)."""
    fs = set(fs)
    end = None if timeout is None else _now() + timeout
    while True:
        done = {f for f in fs if f._state in (_NOTIFIED, _FINISHED)}  # (as CPython's: a
        # cancelled future counts once its executor has noticed)
        not_done = fs - done
        if (return_when == FIRST_COMPLETED and done) or not not_done or \
                (return_when == FIRST_EXCEPTION and any(
                    not f.cancelled() and f._exception is not None for f in done)):
            break
        left = None if end is None else end - _now()
        if left is not None and left <= 0:
            break
        _wait_any(not_done, left)
    # the stdlib's named tuple, as CPython's wait returns (its stubs want its own Futures)
    return _base.DoneAndNotDoneFutures(done, not_done)  # type: ignore[arg-type, return-value]


def _wait_any(fs: Iterable[Future], timeout: float | None) -> None:
    """Until one of ``fs`` is done (or ``timeout`` seconds)."""
    changed = Event()
    fs = list(fs)
    for f in fs:
        f._waiters.append(changed)
    try:
        changed.wait(timeout)
    finally:
        for f in fs:
            f._waiters.remove(changed)


def as_completed(fs: Iterable[Future], timeout: float | None = None) -> Iterator[Future]:
    """``concurrent.futures.as_completed`` in simulated time."""
    end = None if timeout is None else _now() + timeout
    pending = list(dict.fromkeys(fs))
    total = len(pending)
    while pending:
        finished = [f for f in pending if f._state in (_NOTIFIED, _FINISHED)]
        for f in finished:
            pending.remove(f)
            yield f
        if not pending:
            return
        left = None if end is None else end - _now()
        if left is not None and left <= 0:
            raise TimeoutError(f"{len(pending)} (of {total}) futures unfinished")
        _wait_any(pending, left)


_COUNTER = itertools.count()


class ThreadPoolExecutor:
    """``concurrent.futures.ThreadPoolExecutor`` on simulated threads (see the module)."""

    def __init__(self, max_workers: int | None = None, thread_name_prefix: str = "",
                 initializer: Callable[..., Any] | None = None, initargs: tuple = ()) -> None:
        if max_workers is None:
            max_workers = 5
        if max_workers <= 0:
            raise ValueError("max_workers must be greater than 0")
        if initializer is not None and not callable(initializer):
            raise TypeError("initializer must be a callable")
        self._max_workers = max_workers
        self._work = Queue()
        self._idle = Semaphore(0)
        self._threads: list[Thread] = []
        self._broken: str | bool = False
        self._shutdown = False
        self._prefix = thread_name_prefix or f"ThreadPoolExecutor-{next(_COUNTER)}"
        self._initializer, self._initargs = initializer, initargs
        _register_atexit(self._wake_all)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self._broken:
            raise BrokenThreadPool(self._broken)
        if self._shutdown:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future = Future()
        self._work.put((future, fn, args, kwargs))
        self._adjust_thread_count()
        return future

    def _adjust_thread_count(self) -> None:
        if self._idle.acquire(timeout=0):
            return
        if len(self._threads) < self._max_workers:
            name = f"{self._prefix}_{len(self._threads)}"
            thread = Thread(name=name, target=self._worker)
            thread.start()
            self._threads.append(thread)

    def _worker(self) -> None:
        if self._initializer is not None:
            try:
                self._initializer(*self._initargs)
            except BaseException:
                self._break("A thread initializer failed, the thread pool is not usable "
                            "anymore")
                return
        while True:
            item = self._work.get()
            if item is None:
                self._work.put(None)  # wake the next worker
                return
            future, fn, args, kwargs = item
            del item
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as e:
                    future.set_exception(e)
                else:
                    future.set_result(result)
                del future, fn, args, kwargs
            self._idle.release()

    def _break(self, why: str) -> None:
        self._broken = why
        while not self._work.empty():
            item = self._work.get_nowait()
            if item is not None:
                item[0].set_exception(BrokenThreadPool(why))

    def _wake_all(self) -> None:
        self._work.put(None)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._shutdown = True
        if cancel_futures:
            while not self._work.empty():
                item = self._work.get_nowait()
                if item is not None:
                    item[0].cancel()
        self._work.put(None)
        if wait:
            for thread in self._threads:
                thread.join()

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any],
            timeout: float | None = None, chunksize: int = 1) -> Iterator[Any]:
        end = None if timeout is None else _now() + timeout
        fs = [self.submit(fn, *args) for args in zip(*iterables, strict=False)]

        def results() -> Iterator[Any]:
            try:
                fs.reverse()
                while fs:
                    future = fs.pop()
                    yield future.result(None if end is None else end - _now())
            finally:
                for future in fs:
                    future.cancel()
        return results()

    def __enter__(self) -> ThreadPoolExecutor:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.shutdown(wait=True)
        return False


class ProcessPoolExecutor:
    """Not simulated: a process pool would be processes outside MPI."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise unsupported("concurrent.futures", "ProcessPoolExecutor")


_NAMES = {"Future": Future, "ThreadPoolExecutor": ThreadPoolExecutor,
          "ProcessPoolExecutor": ProcessPoolExecutor, "wait": wait,
          "as_completed": as_completed, "BrokenThreadPool": BrokenThreadPool}
_MODULES: dict[str, types.ModuleType] = {}


def futures_modules() -> dict[str, types.ModuleType]:
    """``{"concurrent": ..., "concurrent.futures": ..., "concurrent.futures.thread": ...}``
    as a script's own code imports them (one set per process)."""
    if not _MODULES:
        futures = types.ModuleType("concurrent.futures", _futures.__doc__)
        futures.__dict__.update({k: getattr(_futures, k) for k in _futures.__all__
                                 if k not in _NAMES})
        futures.__dict__.update(_NAMES)
        futures.__path__ = []
        thread = types.ModuleType("concurrent.futures.thread", "The simulated thread pool.")
        thread.ThreadPoolExecutor = ThreadPoolExecutor  # type: ignore[attr-defined]
        thread.BrokenThreadPool = BrokenThreadPool  # type: ignore[attr-defined]
        futures.thread = thread  # type: ignore[attr-defined]
        package = types.ModuleType("concurrent", "The concurrent package, with the "
                                   "simulated futures.")
        package.__path__ = []
        package.futures = futures  # type: ignore[attr-defined]
        _MODULES.update({"concurrent": package, "concurrent.futures": futures,
                         "concurrent.futures.thread": thread})
    return _MODULES
