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
workers), so the run's times and report show them. The root's side of an executor is two
simulated threads (:mod:`.simthreads`), started at its first use (``MPICommExecutor``: at
``__enter__``): a sender that takes each submitted task and sends it to an idle worker, and
a receiver that takes each outcome (MPI_ANY_SOURCE, the executor's tag) and settles its
future. mpi4py's manager is one thread that polls with MPI_Iprobe and sleeps between polls
(up to 1 ms); here each thread blocks in its call instead: the same messages and results,
without filling the simulated clock with polls. It needs MPI_THREAD_MULTIPLE (mpi4py's
default level); under a lower level mpi4py's RuntimeWarning is given and the thread rules
may report the two threads' calls.
"""

from __future__ import annotations

import collections
import functools
import itertools
import os
import traceback
import types
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...mpi.attributes import UNIVERSE_SIZE
from ...mpi.constants import ANY_SOURCE, ANY_TAG
from ..bridge import current
from ..MPI import comm as _comm
from ..MPI.request import Status
from . import simfutures as _futures
from .simthreads import Event, Queue, Semaphore, Thread, _now, _register_atexit, get_ident

__all__ = ["MODULES", "SERVER", "MPICommExecutor", "MPIPoolExecutor", "RemoteTraceback",
           "ThreadPoolExecutor", "collect", "compose", "get_comm_workers", "module",
           "modules", "run_module"]

SERVER = "mpi4py.futures.server"
MODULES = (None, "mpi4py", "mpi4py.futures", SERVER)
"""What ``python -m`` may name before a script: nothing, ``mpi4py`` (the script as it is),
``mpi4py.futures`` (the shared pool) and the spawned workers' server."""

Future = _futures.Future
_WORKERS = "futures.comm_workers"  # the rank's state: get_comm_workers()'s communicator
# for each of its simulated threads that serves tasks (thread-local, as mpi4py's)
_SHARED = "futures.shared"         # the rank's state: the shared pool (rank 0 of -m)
_IMPORTED = "futures.imported"     # the rank's state: the script imported as __worker__


# -- what a worker sends back ----------------------------------------------------------------
class RemoteTraceback(Exception):
    """The worker's traceback of a task's exception: that exception's ``__cause__``."""


def _unwrap(exc: BaseException, text: str) -> BaseException:
    exc.__cause__ = RemoteTraceback(text)
    return exc


class _Raised(Exception):
    """A task's exception on its way back: unpickled as the exception itself, its
    ``__cause__`` the worker's traceback (as mpi4py's)."""

    def __reduce__(self) -> Any:
        return _unwrap, self.args


RemoteTraceback.__module__ = "mpi4py.futures._core"  # (where mpi4py has it)
_STAND_IN = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _raised(exc: BaseException, comm: Any) -> _Raised:
    """A task's exception to send back, with the worker's traceback (its frames in the
    task's code: the stand-in's own are left out)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not os.path.abspath(f.filename).startswith(_STAND_IN)]
    body = "".join(["Traceback (most recent call last):\n", *traceback.format_list(frames),
                    *traceback.format_exception_only(type(exc), exc)])
    info = f"### Worker {comm.Get_rank()} of {comm.Get_size()} on mpisim\n"
    exc.__cause__ = exc.__context__ = exc.__traceback__ = None
    return _Raised(exc, f'\n{info}"""\n{body}"""')


class _Sync:
    """The first message to a worker from an executor: its options (import the script as
    ``__worker__``, globals, initializer); the worker answers whether its initializer
    succeeded."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options


# -- the workers' side -----------------------------------------------------------------------
def serve(comm: Any, root: int, team: Any, main: Callable[[], Any] | None = None) -> None:
    """A worker's loop: each message from ``root`` over ``comm`` answered with the same
    tag, until the None that stops it. ``team`` (the workers' intracommunicator) is
    :func:`get_comm_workers`'s meanwhile; ``main`` imports the script when asked."""
    _set_workers(team)
    status = Status()
    try:
        while True:
            try:
                message = comm.recv(None, root, ANY_TAG, status)
            except Exception as e:  # a task that does not unpickle here
                message = e
            if message is None:
                return
            reply = _answer(message, team, main)
            try:
                comm.send(reply, root, status.Get_tag())
            except Exception as e:  # a result that does not pickle
                comm.send((None, _raised(e, team)), root, status.Get_tag())
    finally:
        _set_workers(None)


def _set_workers(comm: Any) -> None:
    """``comm`` is :func:`get_comm_workers`'s in the calling simulated thread (None: no
    longer)."""
    workers = current().state.setdefault(_WORKERS, {})
    if comm is None:
        workers.pop(get_ident(), None)
    else:
        workers[get_ident()] = comm


def _answer(message: Any, team: Any, main: Callable[[], Any] | None) -> Any:
    """A worker's reply: (result, exception) of a task, (initializer succeeded, None) of
    the options; ``team`` (the workers' communicator) names the worker in a traceback."""
    if isinstance(message, _Sync):
        return _synced(message.options, main), None
    if isinstance(message, Exception):
        return None, _raised(message, team)
    fn, args, kwargs = message
    try:
        return fn(*args, **kwargs), None
    except (Exception, SystemExit) as e:
        return None, _raised(e, team)


def _synced(options: dict[str, Any], main: Callable[[], Any] | None) -> bool:
    """A worker takes an executor's options: the script imported (once), the globals
    set, the initializer run; False if the initializer raised."""
    if options.get("main", True) and main is not None:
        main()
    namespace = current().state.get(_IMPORTED)
    if options.get("globals") and namespace is not None:
        namespace.update(options["globals"])
    initializer = options.get("initializer")
    if initializer is None:
        return True
    try:
        initializer(*options.get("initargs", ()), **options.get("initkwargs", {}))
    except Exception:
        return False
    return True


def _importer(code: Any, namespace: dict[str, Any]) -> Callable[[], None]:
    """The script imported as ``__worker__`` into the rank's main module (its
    ``if __name__ == "__main__":`` part skipped), once: as mpi4py's workers import it."""
    def main() -> None:
        state = current().state
        if _IMPORTED not in state:
            state[_IMPORTED] = namespace
            namespace["__name__"] = "__worker__"
            exec(code, namespace)
    return main


# -- where an executor's tasks go ------------------------------------------------------------
class _Idle:
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


class _Link:
    """An executor's workers over a communicator: ``post`` a message to one, ``fetch``
    the next reply (any worker, this executor's tag)."""

    def __init__(self, comm: Any, idle: _Idle, tag: int = 0,
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


def _stop(comm: Any, pids: Iterable[int], end: Callable[[], Any]) -> Callable[[], None]:
    """How a link to workers of its own ends: None to each, then ``end()``."""
    def close() -> None:
        for pid in pids:
            comm.send(None, pid, 0)
        end()
    return close


class _ThreadLink(_Link):
    """Workers that are simulated threads of the rank (``ThreadPoolExecutor``; an
    executor on a communicator of one process)."""

    def __init__(self, size: int, name: str) -> None:
        super().__init__(None, _Idle(range(size)))
        self.inboxes = [Queue() for _ in range(size)]
        self.outbox = Queue()
        self.threads = [Thread(target=self._work, args=(pid,), name=f"{name} worker {pid}")
                        for pid in range(size)]
        for thread in self.threads:
            thread.start()

    def _work(self, pid: int) -> None:
        _set_workers(_comm.COMM_SELF)  # (get_comm_workers in a task, as mpi4py's)
        while (message := self.inboxes[pid].get()) is not None:
            self.outbox.put((pid, _answer(message, _comm.COMM_SELF, None)))

    def post(self, pid: int, message: Any) -> None:
        self.inboxes[pid].put(message)

    def fetch(self) -> tuple[int, Any]:
        pid, (result, exception) = self.outbox.get()
        if isinstance(exception, _Raised):  # (as if it had been pickled and back)
            exception = _unwrap(*exception.args)  # type: ignore[arg-type]
        return pid, (result, exception)

    def close(self) -> None:
        for inbox in self.inboxes:
            inbox.put(None)
        for thread in self.threads:
            thread.join()


# -- the root's side: an executor's pool -----------------------------------------------------
class _Pool:
    """An executor's manager: a sender thread (tasks to idle workers) and a receiver
    thread (outcomes to futures), over the link ``connect(options, name)`` makes in the
    sender. It keeps no reference to its executor: one dropped unshut ends it, as
    mpi4py's."""

    def __init__(self, executor: MPIPoolExecutor, connect: Callable[..., _Link]) -> None:
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

    def _manage(self, connect: Callable[..., _Link], name: str) -> None:
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

    def _sync(self, link: _Link) -> bool:
        """Every worker takes the executor's options first (initializer: all succeed)."""
        if isinstance(link, _ThreadLink) and self.options.get("initializer") is None:
            return True
        options = {k: v for k, v in self.options.items() if k in (
            "main", "globals", "initializer", "initargs", "initkwargs")}
        pids = link.workers()
        for pid in pids:
            link.post(pid, _Sync(options))
        return all([link.fetch()[1][0] is True for _ in pids])

    def _next(self, link: _Link) -> bool:
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

    def _send(self, link: _Link, pid: int, future: Future, task: Any) -> None:
        try:
            link.post(pid, task)
        except Exception as e:  # a task that does not pickle
            link.idle.give(pid)
            future.set_exception(e)
            return
        self.pending[pid] = future
        self.sent.put(pid)

    def _receive(self, link: _Link) -> None:
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


# -- how each kind of executor reaches its workers -------------------------------------------
def _thread_link(options: dict[str, Any], name: str) -> _Link:
    return _ThreadLink(int(options.get("max_workers", 1)), name)


def _spawn_link(options: dict[str, Any], name: str) -> _Link:
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
    return _Link(inter, _Idle(pids), 0, _stop(inter, pids, inter.Disconnect))


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


def _pool_link(options: dict[str, Any], name: str) -> _Link:
    """MPIPoolExecutor's workers: the shared pool's (``-m mpi4py.futures``), else
    spawned ones."""
    shared = current().state.get(_SHARED)
    if shared is None:
        return _spawn_link(options, name)
    if shared.idle is None:  # one process: a thread, as mpi4py's
        options["max_workers"] = 1
        return _thread_link(options, name)
    return _Link(shared.comm, shared.idle, next(shared.tags))


def _split(comm: Any, root: int) -> tuple[Any, Any]:
    """(a duplicate of ``comm`` for the tasks, the workers' intracommunicator): two
    collectives over ``comm``; the root's team is freed (it is the root alone)."""
    dup = comm.Dup()
    team = comm.Split(int(comm.Get_rank() != root), 0)
    if comm.Get_rank() == root:
        team.Free()
    return dup, team


def _comm_link(comm: Any, root: int) -> Callable[..., _Link]:
    def connect(options: dict[str, Any], name: str) -> _Link:
        if comm.Get_size() == 1:
            options["max_workers"] = 1
            return _thread_link(options, name)
        dup, _ = _split(comm, root)
        pids = [r for r in range(comm.Get_size()) if r != root]
        return _Link(dup, _Idle(pids), 0, _stop(dup, pids, dup.Free))
    return connect


# -- the executors ---------------------------------------------------------------------------
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
        self._pool: _Pool | None = None

    _link: Callable[..., _Link] = staticmethod(_pool_link)  # where its tasks go

    def _bootstrap(self) -> _Pool:
        if self._pool is None:
            self._pool = _Pool(self, self._link)
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

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
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

    def __exit__(self, *exc: object) -> bool:
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

    _link = staticmethod(_thread_link)


class ProcessPoolExecutor(MPIPoolExecutor):
    """mpi4py.futures' ProcessPoolExecutor: always spawned workers."""

    _link = staticmethod(_spawn_link)


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
        if _SHARED in current().state:  # under -m mpi4py.futures: the shared pool's
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
            dup, team = _split(comm, root)
            serve(dup, root, team)
            dup.Free()
            team.Free()
            return None
        executor = MPIPoolExecutor(**self._options)
        if _SHARED not in current().state:
            executor._link = _comm_link(comm, root)  # type: ignore[method-assign]
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


def get_comm_workers() -> Any:
    """The workers' intracommunicator, in a task a worker runs (mpi4py's)."""
    comm = current().state.get(_WORKERS, {}).get(get_ident())
    if comm is None:
        raise RuntimeError("communicator is not accessible")
    return comm


# -- python -m mpi4py.futures script.py ------------------------------------------------------
class _Shared:
    """Rank 0's shared pool: the tasks' communicator, the idle workers, a tag per
    executor."""

    def __init__(self, comm: Any, idle: _Idle | None) -> None:
        self.comm, self.idle = comm, idle
        self.tags = itertools.count(1)


def run_module(name: str, code: Any, namespace: dict[str, Any]) -> None:
    """The script's code under ``python -m name``: ``mpi4py.futures`` (rank 0 runs it, the
    others serve its executors' tasks until it ends) or the spawned workers' server."""
    from .module import init_level

    init_level(current())  # mpi4py.futures imports mpi4py.MPI: MPI_Init_thread (rc's level)
    if name == SERVER:
        parent = _comm.Intracomm.Get_parent()
        serve(parent, 0, _comm.COMM_WORLD, _importer(code, namespace))
        parent.Disconnect()
        return
    world = _comm.COMM_WORLD
    state = current().state
    if world.Get_size() == 1:
        state[_SHARED] = _Shared(None, None)
        _run_main(code, namespace, state)
        return
    dup, team = _split(world, 0)
    if world.Get_rank() != 0:
        serve(dup, 0, team, _importer(code, namespace))
        team.Free()
    else:
        state[_SHARED] = _Shared(dup, _Idle(range(1, world.Get_size())))
        _run_main(code, namespace, state)
        for pid in range(1, world.Get_size()):
            dup.send(None, pid, 0)
    dup.Free()


def _run_main(code: Any, namespace: dict[str, Any], state: dict[str, Any]) -> None:
    """Rank 0 runs the script; at its end its executors' managers are stopped and joined
    before the workers are (as mpi4py's shared pool does)."""
    try:
        exec(code, namespace)
    finally:
        from .simthreads import join_threads

        join_threads(current())
        state.pop(_SHARED, None)


# -- futures utilities -----------------------------------------------------------------------
def collect(fs: Iterable[Future]) -> Future:
    """One future whose result is the list of the results of ``fs`` (the first failure
    fails it; cancelling it cancels them)."""
    items = list(fs)
    if not items:
        future = Future()
        future.set_result([])
        return future
    future = type(items[0])()
    results: list[Any] = [None] * len(items)
    left = [len(items)]

    def settled(index: int, item: Future) -> None:
        if future.done():
            return
        if item.cancelled():
            future.cancel()
        elif item.exception() is not None:
            future.set_exception(item.exception())
        else:
            results[index] = item.result()
            left[0] -= 1
            if not left[0]:
                future.set_result(results)

    future.add_done_callback(lambda f: [item.cancel() for item in items])
    for index, item in enumerate(items):
        item.add_done_callback(functools.partial(settled, index))
    return future


def compose(future: Future, resulthook: Callable[[Any], Any] | None = None,
            excepthook: Callable[[BaseException], Any] | None = None) -> Future:
    """A future settled by ``resulthook(result)`` or ``excepthook(exception)`` once
    ``future`` is (an exception ``excepthook`` returns fails it)."""
    new = type(future)()

    def complete(old: Future) -> None:
        try:
            if old.cancelled():
                new.cancel()
            elif old.exception() is not None:
                reason: Any = old.exception()
                if excepthook:
                    reason = excepthook(reason)
                if isinstance(reason, BaseException):
                    new.set_exception(reason)
                else:
                    new.set_result(reason)
            else:
                result = old.result()
                new.set_result(resulthook(result) if resulthook else result)
        except Exception as e:
            new.set_exception(e)

    new.add_done_callback(lambda f: future.cancel() if f.cancelled() else None)
    future.add_done_callback(complete)
    return new


# -- mpi4py.futures.aplus: Future chaining ---------------------------------------------------
class ThenableFuture(Future):
    """mpi4py.futures.aplus' Future with ``then`` and ``catch`` (Promises/A+ chaining)."""

    def then(self, on_success: Callable[[Any], Any] | None = None,
             on_failure: Callable[[BaseException], Any] | None = None) -> Future:
        """A future settled by ``on_success(result)`` or ``on_failure(exception)``: a
        Future returned is followed, an exception ``on_failure`` returns fails it."""
        return then(self, on_success, on_failure)

    def catch(self, on_failure: Callable[[BaseException], Any] | None = None) -> Future:
        """``then(None, on_failure)``; without ``on_failure`` a failure becomes None."""
        return catch(self, on_failure)


def then(future: Future, on_success: Callable[[Any], Any] | None = None,
         on_failure: Callable[[BaseException], Any] | None = None) -> Future:
    new = type(future)()
    future.add_done_callback(lambda old: _resolve(new, old, on_success, on_failure))
    return new


def catch(future: Future, on_failure: Callable[[BaseException], Any] | None = None) -> Future:
    return then(future, None, on_failure or (lambda _: None))


def _resolve(new: Future, old: Future, on_success: Callable[[Any], Any] | None,
             on_failure: Callable[[BaseException], Any] | None) -> None:
    if old.cancelled() or new.cancelled():
        new.cancel()
        new.set_running_or_notify_cancel()
        return
    reason = old.exception()
    if reason is None:
        try:
            result = old.result()
            _settle(new, on_success(result) if on_success else result, False)
            return
        except Exception as e:
            reason = e
    if on_failure is None:
        new.set_exception(reason)
        return
    try:
        _settle(new, on_failure(reason), True)
    except Exception as e:
        new.set_exception(e)


def _settle(new: Future, value: Any, failed: bool) -> None:
    if isinstance(value, Future):
        chain = new.__dict__.setdefault("_chained", weakref.WeakSet())
        if value is new or value in chain:
            raise RuntimeError(f"chain cycle detected: Future {value} already in chain")
        chain.add(value)
        value.add_done_callback(lambda old: _resolve(new, old, None, None))
    elif failed and isinstance(value, BaseException):
        new.set_exception(value)
    else:
        new.set_result(value)


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
    from .module import THREAD_SERIALIZED, Query_thread

    if Query_thread() < THREAD_SERIALIZED:
        warnings.warn("the level of thread support in MPI should be at least "
                      "MPI_THREAD_SERIALIZED", RuntimeWarning, stacklevel=3)


def comm_split(comm: Any, root: int) -> tuple[Any, Any]:
    """mpi4py's ``_core.comm_split``: (the intercommunicator between ``root`` and the
    others, the others' intracommunicator), both null on a communicator of one."""
    if comm.Get_size() == 1:
        return _comm.COMM_NULL, _comm.COMM_NULL
    rank = comm.Get_rank()
    intra = comm.Split(int(rank != root), 0)
    remote = (0 if root else 1) if rank == root else root
    inter = intra.Create_intercomm(0, comm, remote, 0)
    if rank == root:
        intra.Free()
    return inter, intra


def _core_getattr(name: str) -> Any:
    if name == "SharedPool":  # the rank's shared pool (``-m mpi4py.futures``), or None
        return current().state.get(_SHARED)
    raise AttributeError(f"module 'mpi4py.futures._core' has no attribute {name!r}")


_NAMES = ("FIRST_COMPLETED", "FIRST_EXCEPTION", "ALL_COMPLETED", "CancelledError",
          "TimeoutError", "BrokenExecutor", "as_completed", "wait")
_MODULE: list[types.ModuleType] = []


def modules() -> dict[str, types.ModuleType]:
    """``mpi4py.futures`` and its ``_core`` as a script imports them (one per process;
    ``_core`` holds what mpi4py's own tests read: ``SharedPool``, ``MAIN_RUN_NAME``,
    ``RemoteTraceback``, ``comm_split``)."""
    mod = module()
    return {"mpi4py.futures": mod, "mpi4py.futures._core": mod._core,  # type: ignore[attr-defined]
            "mpi4py.futures.aplus": mod.aplus}  # type: ignore[attr-defined]


def module() -> types.ModuleType:
    """``mpi4py.futures`` as a script imports it (one per process)."""
    if not _MODULE:
        mod = types.ModuleType("mpi4py.futures", __doc__)
        mod.__path__ = []  # type: ignore[attr-defined]  # a package: mpi4py.futures._core
        core = types.ModuleType("mpi4py.futures._core", "mpi4py.futures' internals read "
                                "by mpi4py's tests.")
        core.__dict__.update(MAIN_RUN_NAME="__worker__", RemoteTraceback=RemoteTraceback,
                             comm_split=comm_split, get_comm_server=get_comm_workers,
                             __getattr__=_core_getattr)
        mod._core = core  # type: ignore[attr-defined]
        aplus = types.ModuleType("mpi4py.futures.aplus", "Future chaining (Promises/A+).")
        aplus.__dict__.update(ThenableFuture=ThenableFuture, then=then, catch=catch,
                              __all__=["ThenableFuture", "catch", "then"])
        mod.aplus = aplus  # type: ignore[attr-defined]
        mod.__dict__.update({name: getattr(_futures, name) for name in _NAMES})
        import concurrent.futures as _real

        mod.__dict__.update(
            Future=Future, Executor=_real.Executor, InvalidStateError=_real.InvalidStateError,
            MPIPoolExecutor=MPIPoolExecutor, MPICommExecutor=MPICommExecutor,
            ThreadPoolExecutor=ThreadPoolExecutor, ProcessPoolExecutor=ProcessPoolExecutor,
            get_comm_workers=get_comm_workers, collect=collect, compose=compose)
        mod.__all__ = sorted(n for n in mod.__dict__  # type: ignore[attr-defined]
                             if not n.startswith("_") and n != "aplus")
        _MODULE.append(mod)
    return _MODULE[0]
