"""The workers' side: the loop a worker runs (on the other ranks of an MPICommExecutor's
communicator, on the world's other ranks under ``-m mpi4py.futures``, in a spawned server
process), answering each task with ``(result, exception)`` under the task's tag, and
:func:`get_comm_workers` for the tasks it runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....mpi.constants import ANY_TAG
from ...bridge import current
from ...MPI.request import Status
from ..simthreads import get_ident
from .protocol import Sync, raised

__all__ = ["SERVER", "answer", "get_comm_workers", "importer", "serve", "set_workers"]

SERVER = "mpi4py.futures.server"
"""The module spawned workers run (``python -m mpi4py.futures.server``, as mpi4py's)."""

_WORKERS = "futures.comm_workers"  # the rank's state: get_comm_workers()'s communicator
# for each of its simulated threads that serves tasks (thread-local, as mpi4py's)
_IMPORTED = "futures.imported"     # the rank's state: the script imported as __worker__


def serve(comm: Any, root: int, team: Any, main: Callable[[], Any] | None = None) -> None:
    """A worker's loop: each message from ``root`` over ``comm`` answered with the same
    tag, until the None that stops it. ``team`` (the workers' intracommunicator) is
    :func:`get_comm_workers`'s meanwhile; ``main`` imports the script when asked."""
    set_workers(team)
    status = Status()
    try:
        while True:
            try:
                message = comm.recv(None, root, ANY_TAG, status)
            except Exception as e:  # a task that does not unpickle here
                message = e
            if message is None:
                return
            reply = answer(message, team, main)
            try:
                comm.send(reply, root, status.Get_tag())
            except Exception as e:  # a result that does not pickle
                comm.send((None, raised(e, team)), root, status.Get_tag())
    finally:
        set_workers(None)


def set_workers(comm: Any) -> None:
    """``comm`` is :func:`get_comm_workers`'s in the calling simulated thread (None: no
    longer)."""
    workers = current().state.setdefault(_WORKERS, {})
    if comm is None:
        workers.pop(get_ident(), None)
    else:
        workers[get_ident()] = comm


def get_comm_workers() -> Any:
    """The workers' intracommunicator, in a task a worker runs (mpi4py's)."""
    comm = current().state.get(_WORKERS, {}).get(get_ident())
    if comm is None:
        raise RuntimeError("communicator is not accessible")
    return comm


def answer(message: Any, team: Any, main: Callable[[], Any] | None) -> Any:
    """A worker's reply: (result, exception) of a task, (initializer succeeded, None) of
    the options; ``team`` (the workers' communicator) names the worker in a traceback."""
    if isinstance(message, Sync):
        return _synced(message.options, main), None
    if isinstance(message, Exception):
        return None, raised(message, team)
    fn, args, kwargs = message
    try:
        return fn(*args, **kwargs), None
    except (Exception, SystemExit) as e:
        return None, raised(e, team)


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


def importer(code: Any, namespace: dict[str, Any]) -> Callable[[], None]:
    """The script imported as ``__worker__`` into the rank's main module (its
    ``if __name__ == "__main__":`` part skipped), once: as mpi4py's workers import it."""
    def main() -> None:
        state = current().state
        if _IMPORTED not in state:
            state[_IMPORTED] = namespace
            namespace["__name__"] = "__worker__"
            exec(code, namespace)
    return main
