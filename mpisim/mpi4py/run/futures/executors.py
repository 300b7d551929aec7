"""``mpi4py.futures`` of the stand-in: executors whose workers are simulated MPI processes.

As mpi4py's (4.1.2), an executor sends each task (a function and its arguments) as a
pickled message to a worker process, which sends back ``(result, exception)``:

- ``MPICommExecutor(comm, root)``: the other ranks of ``comm`` are the workers; on them
  ``__enter__`` serves tasks until the root's executor shuts down, then returns None.
- ``MPIPoolExecutor(max_workers)``: workers started with ``MPI.COMM_SELF``'s MPI_Comm_spawn
  (MPI 4.1 §11.8.2), running the stand-in's server (mpi4py's ``mpi4py.futures.server``),
  which imports the script as ``__worker__`` so that its functions unpickle there; under
  ``python -m mpi4py.futures script.py`` the world's other ranks are the workers of every
  executor rank 0's script makes (the shared pool).
- ``ThreadPoolExecutor``: the same executor over simulated threads of the rank.

The messages travel over a duplicate of the communicator (the intercommunicator to spawned
workers), so the run's times and report show them. The root's side of an executor is its
manager: two simulated threads, a sender and a receiver, started at its first use
(``MPICommExecutor``: at ``__enter__``).
"""

from __future__ import annotations

import collections
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

from ...bridge import current
from ...MPI import comm as _comm
from .. import simfutures as _futures
from ..simfutures import Future
from ..simthreads import _now
from .links import SHARED, Link, comm_link, pool_link, spawn_link, split, thread_link
from .manager import Pool
from .worker import serve

__all__ = ["MPICommExecutor", "MPIPoolExecutor", "ProcessPoolExecutor", "ThreadPoolExecutor"]


class MPIPoolExecutor:
    """mpi4py's MPIPoolExecutor: tasks run by MPI worker processes (see the module).

    Parameters
    ----------
    max_workers
        How many workers to spawn (``4``). Default: ``MPI4PY_FUTURES_MAX_WORKERS``, else
        MPI_UNIVERSE_SIZE less the world's size, else 1. Under ``-m mpi4py.futures`` the
        shared pool's workers are used and this is ignored, as in mpi4py.
    initializer, initargs
        Called as ``initializer(*initargs)`` in each worker before its first task; if it
        raises, the executor is broken (BrokenExecutor). Default: none.
    **kwargs
        mpi4py's other options: ``main`` (False: the workers do not import the script),
        ``globals`` (a dict set in the workers' ``__worker__``); ``python_exe``,
        ``python_args``, ``mpi_info``, ``path``, ``wdir``, ``env``, ``use_pkl5`` and
        ``backoff`` are accepted and not read.
    """

    Future = Future

    def __init__(self, max_workers: int | None = None,
                 initializer: Callable[..., Any] | None = None, initargs: tuple = (),
                 **kwargs: Any) -> None:
        if max_workers is not None:
            max_workers = int(max_workers)
            if max_workers <= 0:
                raise ValueError("max_workers must be greater than 0")
            kwargs["max_workers"] = max_workers
        if initializer is not None:
            if not callable(initializer):
                raise TypeError("initializer must be a callable")
            kwargs["initializer"], kwargs["initargs"] = initializer, tuple(initargs)
        self._options = kwargs
        self._shutdown = False
        self._broken: str | None = None
        self._pool: Pool | None = None

    _link: Callable[..., Link] = staticmethod(pool_link)  # where its tasks go

    def _bootstrap(self) -> Pool:
        if self._pool is None:
            self._pool = Pool(self, self._link)
        return self._pool

    @property
    def num_workers(self) -> int:
        """How many workers (0 once shut down or broken); starts the pool and waits."""
        if self._broken or self._shutdown:
            return 0
        pool = self._bootstrap()
        pool.ready.wait()
        return pool.size

    _max_workers = num_workers

    def bootup(self, wait: bool = True) -> MPIPoolExecutor:
        """Start the workers now (rather than at the first submit)."""
        if self._shutdown:
            raise RuntimeError("cannot bootup after shutdown")
        pool = self._bootstrap()
        if wait:
            pool.ready.wait()
        return self

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
               ) -> _futures.Future:  # (here "Future" would be the class attribute)
        if self._broken:
            raise _futures.BrokenExecutor(self._broken)
        if self._shutdown:
            raise RuntimeError("cannot submit after shutdown")
        future = Future()
        self._bootstrap().push((future, (fn, args, kwargs)))
        return future

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any],
            timeout: float | None = None, chunksize: int = 1, buffersize: int | None = None,
            unordered: bool = False) -> Iterator[Any]:
        """``map(fn, *iterables)`` by the workers; ``chunksize`` calls per task;
        ``unordered``: as they complete."""
        return self.starmap(fn, zip(*iterables, strict=False), timeout, chunksize, buffersize,
                            unordered)

    def starmap(self, fn: Callable[..., Any], iterable: Iterable[Any],
                timeout: float | None = None, chunksize: int = 1,
                buffersize: int | None = None, unordered: bool = False) -> Iterator[Any]:
        """``itertools.starmap(fn, iterable)`` by the workers (see :meth:`map`)."""
        if chunksize < 1:
            raise ValueError("chunksize must be >= 1.")
        if buffersize is not None:
            if not isinstance(buffersize, int):
                raise TypeError("buffersize must be an integer or None")
            if buffersize < 1:
                raise ValueError("buffersize must be None or > 0")
            if unordered:
                raise ValueError("buffersize must be None if unordered")
        if chunksize == 1:
            return _results(self, fn, iter(iterable), timeout, buffersize, unordered)
        chunks = _results(self, functools.partial(_apply_chunk, fn),
                          _chunks(iterable, chunksize), timeout, buffersize, unordered)
        return itertools.chain.from_iterable(chunks)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No more tasks; ``cancel_futures``: the queued ones cancelled; ``wait``: until
        the running ones are done and the workers released."""
        if not self._shutdown:
            self._shutdown = True
            if self._pool is not None:
                self._pool.done()
        if cancel_futures and self._pool is not None:
            self._pool.cancel()
        if wait and self._pool is not None:
            pool, self._pool = self._pool, None
            pool.thread.join()

    def __enter__(self) -> MPIPoolExecutor:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.shutdown(wait=True)
        return False


def _apply_chunk(fn: Callable[..., Any], chunk: tuple) -> list[Any]:
    return list(itertools.starmap(fn, chunk))


def _chunks(iterable: Iterable[Any], size: int) -> Iterator[tuple]:
    it = iter(iterable)
    while chunk := tuple(itertools.islice(it, size)):
        yield (chunk,)


def _results(executor: MPIPoolExecutor, fn: Callable[..., Any], args: Iterator[Any],
             timeout: float | None, buffersize: int | None, unordered: bool
             ) -> Iterator[Any]:
    """The submitted calls' results in order (or as completed), within ``timeout``
    simulated seconds; at most ``buffersize`` submitted ahead."""
    end = None if timeout is None else _now() + timeout
    first = args if buffersize is None else itertools.islice(args, buffersize)
    fs = collections.deque(executor.submit(fn, *a) for a in first)

    def left() -> float | None:
        return None if end is None else end - _now()

    def results() -> Iterator[Any]:
        try:
            if unordered:
                for future in _futures.as_completed(list(fs), left()):
                    fs.remove(future)
                    yield future.result()
                return
            while fs:
                value = fs.popleft().result(left())
                if buffersize is not None and (more := next(args, None)) is not None:
                    fs.append(executor.submit(fn, *more))
                yield value
        finally:
            for future in fs:
                future.cancel()
    return results()


class ThreadPoolExecutor(MPIPoolExecutor):
    """mpi4py.futures' ThreadPoolExecutor: the executor over simulated threads of the
    rank (``max_workers`` of them, default 1, as mpi4py's)."""

    _link = staticmethod(thread_link)


class ProcessPoolExecutor(MPIPoolExecutor):
    """mpi4py.futures' ProcessPoolExecutor: always spawned workers."""

    _link = staticmethod(spawn_link)


class MPICommExecutor:
    """mpi4py's MPICommExecutor: on ``root`` an MPIPoolExecutor whose workers are the
    other ranks of ``comm``, which serve its tasks in ``__enter__`` (returning None).

    Parameters
    ----------
    comm
        An intracommunicator. Default: MPI.COMM_WORLD.
    root
        The rank of ``comm`` that submits. Default: 0.
    **kwargs
        The executor's options (as MPIPoolExecutor's: ``initializer``, ``initargs``...).
    """

    def __init__(self, comm: Any = None, root: int = 0, **kwargs: Any) -> None:
        if comm is None:
            comm = _comm.COMM_WORLD
        if comm.Is_inter():
            raise ValueError("expecting an intracommunicator")
        if root < 0 or root >= comm.Get_size():
            raise ValueError("expecting root in range(comm.size)")
        if SHARED in current().state:  # under -m mpi4py.futures: the shared pool's
            comm, root = _comm.COMM_WORLD, _comm.COMM_WORLD.Get_rank()
        self._comm, self._root, self._options = comm, root, kwargs
        self._executor: MPIPoolExecutor | None = None
        self._entered = False

    def __enter__(self) -> MPIPoolExecutor | None:
        if self._entered:
            raise RuntimeError("__enter__")
        self._entered = True
        comm, root = self._comm, self._root
        if comm.Get_rank() != root:
            dup, team = split(comm, root)
            serve(dup, root, team)
            dup.Free()
            team.Free()
            return None
        executor = MPIPoolExecutor(**self._options)
        if SHARED not in current().state:
            executor._link = comm_link(comm, root)
            executor._bootstrap()  # the manager starts now, as mpi4py's
        self._executor = executor
        return executor

    def __exit__(self, *exc: object) -> bool:
        executor, self._executor = self._executor, None
        self._entered = False
        if executor is None:
            return True  # a worker: as mpi4py's, the block's exception is not raised
        executor.shutdown(wait=True)
        return False
