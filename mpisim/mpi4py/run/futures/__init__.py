"""``mpi4py.futures`` of the stand-in: executors whose workers are simulated MPI processes
(:mod:`.executors` tells the three kinds and where their workers come from).

The life of a task, one module a step:

1. Submitted (:mod:`.executors`): ``submit(fn, *args)`` queues ``(future, (fn, args,
   kwargs))`` on the executor's manager, started at its first use, and returns the future.
2. Sent (:mod:`.manager`): the manager's sender thread makes the executor's link to its
   workers (:mod:`.links`: spawned servers, the other ranks of a communicator, the shared
   pool of ``-m mpi4py.futures`` (:mod:`.runmodule`), or simulated threads), sends each
   worker the executor's options once (:class:`.protocol.Sync`), then takes the task once
   a worker is idle and sends it, pickled, under the executor's tag (a future cancelled
   meanwhile is dropped).
3. Run by a worker (:mod:`.worker`): the worker's loop receives it, calls ``fn`` and sends
   back ``(result, None)`` or ``(None, exception)``, the exception carrying the worker's
   traceback (:class:`.protocol.Raised`).
4. Its result received (:mod:`.manager`): the receiver thread takes the next outcome
   (MPI_ANY_SOURCE, the executor's tag) and gives the worker back to the idle ones.
5. The future set: ``set_result`` or ``set_exception`` (the exception unpickled with a
   :class:`.protocol.RemoteTraceback` as its cause) wakes whoever waits on it; ``collect``,
   ``compose`` (:mod:`.util`) and ``then`` (:mod:`.aplus`) chain futures on it.

:mod:`.namespace` builds the ``mpi4py.futures`` module a script imports.
"""

from .executors import MPICommExecutor, MPIPoolExecutor, ProcessPoolExecutor, ThreadPoolExecutor
from .namespace import module, modules
from .protocol import RemoteTraceback
from .runmodule import MODULES, run_module
from .util import collect, compose
from .worker import SERVER, get_comm_workers

__all__ = ["MODULES", "SERVER", "MPICommExecutor", "MPIPoolExecutor", "ProcessPoolExecutor",
           "RemoteTraceback", "ThreadPoolExecutor", "collect", "compose", "get_comm_workers",
           "module", "modules", "run_module"]
