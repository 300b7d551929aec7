"""A script under ``python -m``: ``mpi4py.futures`` (rank 0 runs the script, the world's
other ranks serve the tasks of every executor it makes: the shared pool) or the spawned
workers' server (``mpi4py.futures.server``)."""

from __future__ import annotations

from typing import Any

from ...bridge import current
from ...MPI import comm as _comm
from ..module import init_level
from ..simthreads import join_threads
from .links import SHARED, Idle, Shared, split
from .worker import SERVER, importer, serve

__all__ = ["MODULES", "run_module"]

MODULES = (None, "mpi4py", "mpi4py.futures", SERVER)
"""What ``python -m`` may name before a script: nothing, ``mpi4py`` (the script as it is),
``mpi4py.futures`` (the shared pool) and the spawned workers' server."""


def run_module(name: str, code: Any, namespace: dict[str, Any]) -> None:
    """The script's code under ``python -m name``: ``mpi4py.futures`` (rank 0 runs it, the
    others serve its executors' tasks until it ends) or the spawned workers' server."""
    init_level(current())  # mpi4py.futures imports mpi4py.MPI: MPI_Init_thread (rc's level)
    if name == SERVER:
        parent = _comm.Intracomm.Get_parent()
        serve(parent, 0, _comm.COMM_WORLD, importer(code, namespace))
        parent.Disconnect()
        return
    world = _comm.COMM_WORLD
    state = current().state
    if world.Get_size() == 1:
        state[SHARED] = Shared(None, None)
        _run_main(code, namespace, state)
        return
    dup, team = split(world, 0)
    if world.Get_rank() != 0:
        serve(dup, 0, team, importer(code, namespace))
        team.Free()
    else:
        state[SHARED] = Shared(dup, Idle(range(1, world.Get_size())))
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
        join_threads(current())
        state.pop(SHARED, None)
