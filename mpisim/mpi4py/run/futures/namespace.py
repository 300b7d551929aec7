"""The ``mpi4py.futures`` module a script imports (one per process), with its ``_core``
(what mpi4py's own tests read: ``SharedPool``, ``MAIN_RUN_NAME``, ``RemoteTraceback``,
``comm_split``) and ``aplus``."""

from __future__ import annotations

import concurrent.futures as _real
import types
from typing import Any

from ...bridge import current
from ...MPI import comm as _comm
from .. import simfutures as _futures
from ..simfutures import Future
from . import aplus as _aplus
from . import executors as _executors
from .executors import MPICommExecutor, MPIPoolExecutor, ProcessPoolExecutor, ThreadPoolExecutor
from .links import SHARED
from .protocol import RemoteTraceback
from .util import collect, compose
from .worker import get_comm_workers

__all__ = ["comm_split", "module", "modules"]

_NAMES = ("FIRST_COMPLETED", "FIRST_EXCEPTION", "ALL_COMPLETED", "CancelledError",
          "TimeoutError", "BrokenExecutor", "as_completed", "wait")
_MODULE: list[types.ModuleType] = []


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
        return current().state.get(SHARED)
    raise AttributeError(f"module 'mpi4py.futures._core' has no attribute {name!r}")


def modules() -> dict[str, types.ModuleType]:
    """``mpi4py.futures``, its ``_core`` and its ``aplus`` as a script imports them, by
    name."""
    mod = module()
    return {"mpi4py.futures": mod, "mpi4py.futures._core": mod._core,
            "mpi4py.futures.aplus": mod.aplus}


def module() -> types.ModuleType:
    """``mpi4py.futures`` as a script imports it (one per process)."""
    if not _MODULE:
        mod = types.ModuleType("mpi4py.futures", _executors.__doc__)
        mod.__path__ = []  # a package: mpi4py.futures._core
        mod._core = _core()  # type: ignore[attr-defined]
        mod.aplus = _aplus_module()  # type: ignore[attr-defined]
        mod.__dict__.update({name: getattr(_futures, name) for name in _NAMES})
        mod.__dict__.update(
            Future=Future, Executor=_real.Executor, InvalidStateError=_real.InvalidStateError,
            MPIPoolExecutor=MPIPoolExecutor, MPICommExecutor=MPICommExecutor,
            ThreadPoolExecutor=ThreadPoolExecutor, ProcessPoolExecutor=ProcessPoolExecutor,
            get_comm_workers=get_comm_workers, collect=collect, compose=compose)
        mod.__all__ = sorted(n for n in mod.__dict__  # type: ignore[attr-defined]
                             if not n.startswith("_") and n != "aplus")
        _MODULE.append(mod)
    return _MODULE[0]


def _core() -> types.ModuleType:
    core = types.ModuleType("mpi4py.futures._core", "mpi4py.futures' internals read by "
                            "mpi4py's tests.")
    core.__dict__.update(MAIN_RUN_NAME="__worker__", RemoteTraceback=RemoteTraceback,
                         comm_split=comm_split, get_comm_server=get_comm_workers,
                         __getattr__=_core_getattr)
    return core


def _aplus_module() -> types.ModuleType:
    aplus = types.ModuleType("mpi4py.futures.aplus", "Future chaining (Promises/A+).")
    aplus.__dict__.update(ThenableFuture=_aplus.ThenableFuture, then=_aplus.then,
                          catch=_aplus.catch, __all__=["ThenableFuture", "catch", "then"])
    return aplus
