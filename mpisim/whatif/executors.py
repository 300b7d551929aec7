"""Running many independent simulations: in-process, on a process pool, or on any Executor.

Runs are independent, so what-if analysis hands them to a ``concurrent.futures.Executor`` —
the standard interface that a local ``ProcessPoolExecutor`` and a Dask cluster
(``distributed.Client.get_executor()``) both implement — instead of a scheduler of its own.
Runs go in *chunks*: one task carries the target once and a list of points, so thousands of
millisecond runs do not pay a task's and a pickled scenario's cost each. About four chunks per
worker keep the workers busy to the end while the per-task cost stays small.

A question asked in rounds (min-buffer's search: a few candidate sizes at a time, each round
chosen from the last one's verdicts) keeps one :class:`Workers` for all its rounds, so the
pool starts once; ``map_chunks`` is one round of a Workers of its own (a sweep's).

``map_chunks`` returns the results in the order of the items, whatever order the chunks
finish in. Ctrl-C (KeyboardInterrupt) cancels every chunk not yet started, stops a pool of
its own at once, and is raised again, carrying the results finished so far as
``exc.partial`` (a dict from item index to result), so that a sweep can keep them; an
exception in a chunk does the same. A given
executor is left running (it is the caller's): only the chunks submitted are cancelled.
Workers of a pool of its own ignore SIGINT (the terminal sends it to the whole process group)
and die quietly of SIGTERM (the handler a command installs, inherited when they fork, is put
back to the default): the parent alone handles Ctrl-C and terminates them, so an interrupt is
prompt and prints one line, not a traceback per worker. The progress bar (tqdm.auto, on
stderr) is shown only when stderr is a terminal, unless asked for; workers never see it.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Executor, Future, ProcessPoolExecutor, wait
from typing import Any, Literal

__all__ = ["CHUNKS_PER_WORKER", "MAX_CHUNK", "Workers", "chunked", "default_jobs", "map_chunks"]

CHUNKS_PER_WORKER = 4
MAX_CHUNK = 256
POOL_STARTUP = 0.25
"""Seconds a local pool costs to start and feed, about: shorter sweeps run in-process."""


def default_jobs() -> int:
    """Worker processes when none are asked for: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def chunked(items: Sequence[Any], workers: int) -> list[tuple[int, Sequence[Any]]]:
    """(start index, items) pieces: about CHUNKS_PER_WORKER per worker, MAX_CHUNK at most."""
    n = len(items)
    if n == 0:
        return []
    size = max(1, min(MAX_CHUNK, -(-n // (max(1, workers) * CHUNKS_PER_WORKER))))
    return [(i, items[i:i + size]) for i in range(0, n, size)]


def map_chunks(fn: Callable[[Any, Sequence[Any]], list[Any]], target: Any,
               items: Sequence[Any], *, executor: Executor | None = None,
               jobs: int | None = None, progress: bool | None = None,
               desc: str = "runs") -> list[Any]:
    """``fn(target, chunk)`` over chunks of ``items``; the results flattened, in item order.

    ``executor=None``: a ProcessPoolExecutor of ``jobs`` workers (default: the cores), or no
    pool at all when one job is asked for, or when the first items, timed, show that the
    whole would take less than starting the pool (the results are the same either way).
    """
    with Workers(executor, jobs) as workers:
        return workers.map(fn, target, items, progress=progress, desc=desc)


class Workers:
    """Where the runs of one what-if question go, kept over all its rounds.

    A search asks in rounds (min-buffer's candidate sizes), so the pool must outlive one
    ``map``: it is started at the first round worth it and stopped by ``close`` (or the
    ``with`` block). In-process until then: ``sample=True`` runs a round's first items here,
    timed, and starts the pool only once the runs made here and those left would take longer
    than starting it (POOL_STARTUP), so a question of a few milliseconds pays no pool;
    ``sample=False`` (a few long runs: check's, a profile comparison's) starts it at once. A
    target that does not pickle (a program function defined inside another) stays here. A
    given ``executor`` (a Dask cluster's) is the caller's: used for every round, never shut.
    ``width`` is how many runs a round should hold: 1 while runs stay here, else the workers.
    """

    def __init__(self, executor: Executor | None = None, jobs: int | None = None) -> None:
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int)
                                 or jobs < 1):
            raise ValueError(f"jobs: expected a positive integer, got {jobs!r}")
        self.executor = executor
        self.jobs = (jobs or _executor_workers(executor)) if executor is not None \
            else (jobs or default_jobs())
        self.spent = 0.0
        """Seconds of runs made in this process so far."""
        self._pool: _Pool | None = None
        self._shippable: bool | None = None

    @property
    def width(self) -> int:
        """Runs worth asking for at once: the workers, once runs go to them; else 1."""
        if self._pool is not None:
            return self._pool.workers
        if self.executor is None and (self.spent <= POOL_STARTUP or self._shippable is False):
            return 1
        return self.jobs

    def map(self, fn: Callable[[Any, Sequence[Any]], list[Any]], target: Any,
            items: Sequence[Any], *, sample: bool = True, progress: bool | None = False,
            desc: str = "runs") -> list[Any]:
        """``fn(target, chunk)`` over chunks of ``items``, results in item order (see the
        module on Ctrl-C and ``exc.partial``)."""
        bar = _bar(len(items), progress, desc)
        done: dict[int, Any] = {}
        try:
            here, rest = self._here(fn, target, items, sample, bar, done)
            if not rest:
                return here
            executor = self.executor or self._start(len(rest))
            return here + _on_executor(fn, target, rest, executor, self.width, bar, done,
                                       len(here))
        except BaseException as e:
            e.partial = done  # type: ignore[attr-defined]
            raise
        finally:
            if bar is not None:
                bar.close()

    def _here(self, fn: Callable[[Any, Sequence[Any]], list[Any]], target: Any,
              items: Sequence[Any], sample: bool, bar: Any, done: dict[int, Any]
              ) -> tuple[list[Any], Sequence[Any]]:
        """Run items in this process while that is cheaper than workers; (results, left)."""
        if self.executor is not None:  # the caller's: every run goes to it
            return [], items
        alone = self.jobs == 1 or len(items) == 1 or not self._ships(target)
        if not alone and (self._pool is not None or not sample or self.spent > POOL_STARTUP):
            return [], items
        out: list[Any] = []
        start = time.perf_counter()
        for i, item in enumerate(items):
            out.extend(fn(target, [item]))
            done[i] = out[-1]
            if bar is not None:
                bar.update(1)
            mean = (time.perf_counter() - start) / (i + 1)
            if not alone and self.spent + mean * len(items) > POOL_STARTUP:
                self.spent += mean * (i + 1)
                return out, items[i + 1:]
        self.spent += time.perf_counter() - start
        return out, []

    def _ships(self, target: Any) -> bool:
        """Whether the question's target pickles, so worker processes can run it (a program
        function defined inside another cannot: its runs stay here). Tried once."""
        if self._shippable is None:
            try:
                pickle.dumps(target)
                self._shippable = True
            except (pickle.PicklingError, AttributeError, TypeError):
                self._shippable = False
        return self._shippable

    def _start(self, runs: int) -> Executor:
        """The pool of its own, started for ``runs`` runs at most (no idle workers)."""
        if self._pool is None:
            self._pool = _Pool(min(self.jobs, runs))
        return self._pool

    def close(self, exc_type: Any = None) -> None:
        """Stop the pool of its own (at once, its workers terminated, after an exception)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.__exit__(exc_type, None, None)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        self.close(exc_type)
        return False


def _on_executor(fn: Callable[[Any, Sequence[Any]], list[Any]], target: Any,
                 items: Sequence[Any], executor: Executor, workers: int, bar: Any,
                 done: dict[int, Any], offset: int = 0) -> list[Any]:
    chunks = chunked(items, workers)
    futures: dict[Future[Any], tuple[int, int]] = {}
    results: list[Any] = [None] * len(items)
    try:
        for start, chunk in chunks:
            futures[executor.submit(fn, target, list(chunk))] = (start, len(chunk))
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                start, count = futures[future]
                rows = future.result()  # raises the chunk's exception here
                if len(rows) != count:
                    raise RuntimeError(f"a chunk of {count} runs returned {len(rows)} results")
                results[start:start + count] = rows
                done.update(zip(range(offset + start, offset + start + count), rows,
                                strict=True))
                if bar is not None:
                    bar.update(count)
        return results
    except BaseException:  # Ctrl-C or a failed chunk: nothing more starts
        for future in futures:
            future.cancel()
        raise


class _Pool(ProcessPoolExecutor):
    """A process pool whose workers ignore SIGINT and die of SIGTERM (_worker_signals);
    leaving by an exception (Ctrl-C included) cancels what is pending and terminates the
    workers instead of waiting for their chunks."""

    def __init__(self, workers: int) -> None:
        super().__init__(max_workers=workers, initializer=_worker_signals)
        self.workers = workers

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        if exc_type is None:
            self.shutdown(wait=True)
            return False
        processes = list((getattr(self, "_processes", None) or {}).values())
        manager = getattr(self, "_executor_manager_thread", None)
        self.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
        if manager is not None:  # let it close its pipes before the interpreter exits, or
            manager.join(timeout=5)  # the exit hook of concurrent.futures writes to them
        return False


def _worker_signals() -> None:
    """A worker leaves Ctrl-C to the parent, and ends at once when the parent terminates it
    (not through mpisim.cli.interrupts' handler, which would print a traceback from the pool's
    queue)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _executor_workers(executor: Executor) -> int:
    """How many workers an executor has, where it says; else the local core count."""
    n = getattr(executor, "_max_workers", None)
    if isinstance(n, int) and n > 0:
        return n
    client = getattr(executor, "_client", None)  # distributed's ClientExecutor
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # a cluster that cannot answer: chunk for this machine instead
            return default_jobs()
    return default_jobs()


def _bar(total: int, progress: bool | None, desc: str) -> Any:
    show = sys.stderr.isatty() if progress is None else bool(progress)
    if not show or total <= 1:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=" runs", desc=desc, file=sys.stderr, leave=False,
                dynamic_ncols=True)
