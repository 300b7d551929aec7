"""Dynamic processes in the stand-in (MPI 4.1 §11.8-§11.10): ``Intracomm.Spawn``,
``Spawn_multiple``, ``Accept``, ``Connect``; ``Comm.Get_parent``, ``Disconnect``, ``Join``;
``MPI.Open_port``, ``Close_port``, ``Publish_name``, ``Unpublish_name``, ``Lookup_name``.

``Spawn(sys.executable, args=["child.py", ...], maxprocs=N)`` runs the Python script
``child.py`` as N new simulated processes, through the same machinery as ``mpisim mpi4py``
(each in its own greenlet, its prints where the parent's go), with its own
``MPI.COMM_WORLD``; ``MPI.Comm.Get_parent()`` gives it the intercommunicator to its
parents. A command that is not a Python interpreter (a compiled program) cannot run in the
simulator: MPI_ERR_SPAWN, naming it. Each call is one of the rank's ``mpi`` handle
(:mod:`mpisim.handle.dynamic`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from ...mpi.dynamic import ErrSpawn
from ...mpi.errors import MPIError
from ..bridge import current
from ..datatypes.integers import c_int, c_str
from ..exceptions import as_exception
from .info import handle_info

__all__ = ["Close_port", "DisconnectMethods", "Lookup_name", "Open_port", "Publish_name",
           "SpawnMethods", "Unpublish_name"]

_PYTHONS = ("python", "python3")


def _python_script(command: str) -> bool:
    """Whether ``command`` is a script Python runs: a ``.py`` file, or an executable file
    whose ``#!`` line names a Python interpreter."""
    if command.endswith(".py") and os.path.isfile(command):
        return True
    try:
        with open(command, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def _program(command: Any, args: Any) -> Any:
    """The rank program a command runs: a Python interpreter's script (the first of
    ``args``), or a Python script itself, as mpiexec would start it; MPI_ERR_SPAWN
    otherwise."""
    argv = _argv(args)
    name = os.path.basename(str(command))
    if _python_script(str(command)):
        argv = [str(command), *argv]
        name = "python"
    is_python = str(command) == sys.executable or name.startswith(_PYTHONS)
    if not is_python or not argv or argv[0].startswith("-"):
        raise as_exception(ErrSpawn(
            f"Spawn: {command!r} {' '.join(argv)}: the simulator runs Python scripts only "
            "(command sys.executable, the script first in args)"))
    child = current().state.get("spawn")  # (the rank's Script: mpi4py/run/script.py)
    if child is None:
        raise as_exception(ErrSpawn("Spawn: this rank runs no script to spawn others from"))
    try:
        return child(argv[0], argv[1:])
    except ValueError as e:  # a missing script, a syntax error (ScriptError)
        raise as_exception(ErrSpawn(f"Spawn: {e}")) from None


def _argv(args: Any) -> list[str]:
    """A spawned command's arguments as mpi4py converts them: None none, a str one, else
    each item a str or bytes (``TypeError: expected bytes, int found``)."""
    if args is None:
        return []
    if isinstance(args, str | bytes):
        args = [args]
    return [c_str(a) for a in args]


def _multiple(command: Any, args: Any, maxprocs: Any, info: Any
              ) -> tuple[list[Any], list[Any], list[int]]:
    """Spawn_multiple's arguments, one per command, checked as mpi4py checks them
    (ValueError for a lone command or lists of other lengths; one maxprocs or info for
    all is taken)."""
    if isinstance(command, str) or command is None:
        raise ValueError("Spawn_multiple: expecting a sequence of commands")
    commands = list(command)
    argvs = [None] * len(commands) if args is None else list(args)
    counts = [1] * len(commands) if maxprocs is None else (
        [int(maxprocs)] * len(commands) if isinstance(maxprocs, int) else
        [int(n) for n in maxprocs])
    infos = [info] * len(commands) if info is None or not isinstance(info, list | tuple) \
        else list(info)
    if not len(argvs) == len(counts) == len(infos) == len(commands) or any(
            isinstance(a, str) for a in argvs):
        raise ValueError(f"Spawn_multiple: {len(commands)} commands, {len(argvs)} argument "
                         f"lists, {len(counts)} maxprocs and {len(infos)} infos: expected one "
                         "of each per command")
    return commands, argvs, counts


def _errcodes(errcodes: Any, count: int) -> None:
    """MPI's array_of_errcodes: every process started (MPI_SUCCESS each)."""
    if isinstance(errcodes, list):
        errcodes[:] = [0] * count


class SpawnMethods:
    """Intracomm.Spawn, Spawn_multiple, Accept and Connect."""

    def Spawn(self, command: str, args: Any = None, maxprocs: int = 1, info: Any = None,
              root: int = 0, errcodes: Any = None) -> Any:
        """MPI_Comm_spawn (collective): the intercommunicator to ``maxprocs`` new
        processes running the script ``args[0]`` (``command``: ``sys.executable``)."""
        ctx, maxprocs, root = current(), c_int(maxprocs), c_int(root)
        mpi = ctx.mpi
        comm = self._c(mpi)  # type: ignore[attr-defined]
        program = _program(command, args) if self._rank(mpi) == root else None
        made = ctx.call(lambda: mpi.comm_spawn(program, (), maxprocs, root, comm,
                                               handle_info(info)), self._key())  # type: ignore[attr-defined]
        _errcodes(errcodes, maxprocs)
        return self._wrap(made)  # type: ignore[attr-defined]

    def Spawn_multiple(self, command: Any, args: Any = None, maxprocs: Any = None,
                       info: Any = None, root: int = 0, errcodes: Any = None) -> Any:
        """MPI_Comm_spawn_multiple (collective): one script per command, the children in
        one MPI_COMM_WORLD (MPI_APPNUM: the command's index)."""
        ctx = current()
        mpi = ctx.mpi
        comm = self._c(mpi)  # type: ignore[attr-defined]
        if self._rank(mpi) == root:  # (the others' arguments are not significant)
            commands, argvs, counts = _multiple(command, args, maxprocs, info)
            programs = [_program(c, a) for c, a in zip(commands, argvs, strict=True)]
        else:
            programs, counts = [None], [0]
            with contextlib.suppress(ValueError, TypeError):  # (what it fills errcodes by)
                counts = _multiple(command, args, maxprocs, info)[2]
            programs = [None] * len(counts)
        made = ctx.call(lambda: mpi.comm_spawn_multiple(
            programs, [()] * len(programs), counts, int(root), comm), self._key())  # type: ignore[attr-defined]
        if isinstance(errcodes, list):  # one list per command (mpi4py)
            errcodes[:] = [[0] * n for n in counts]
        return self._wrap(made)  # type: ignore[attr-defined]

    def Accept(self, port_name: str, info: Any = None, root: int = 0) -> Any:
        """MPI_Comm_accept (collective): the intercommunicator to the group that
        connects to the root's port."""
        made = self._p2p("comm_accept", True, port_name=port_name, root=int(root))  # type: ignore[attr-defined]
        return self._wrap(made)  # type: ignore[attr-defined]

    def Connect(self, port_name: str, info: Any = None, root: int = 0) -> Any:
        """MPI_Comm_connect (collective): the intercommunicator to the group accepting at
        the root's port."""
        made = self._p2p("comm_connect", True, port_name=port_name, root=int(root))  # type: ignore[attr-defined]
        return self._wrap(made)  # type: ignore[attr-defined]

    def _rank(self, mpi: Any) -> int:
        comm = self._comm(mpi)  # type: ignore[attr-defined]
        return int(comm.rank)


class DisconnectMethods:
    """Comm.Get_parent, Disconnect and Join."""

    @classmethod
    def Get_parent(cls) -> Any:
        """MPI_Comm_get_parent: the intercommunicator to the parents, or a null one
        (equal to MPI.COMM_NULL) in a process the run started."""
        ctx = current()
        mpi = ctx.plain()
        parent = mpi.comm_get_parent()
        null = cls._made("null")  # type: ignore[attr-defined]
        if parent is None:
            return null._wrap(None)
        cache = ctx.state.setdefault("parent", {})  # one object, as mpi4py keeps it
        if cache.get("handle") is not parent:
            cache.update(handle=parent, comm=null._wrap(parent))
        return cache["comm"]

    def Disconnect(self) -> None:
        """MPI_Comm_disconnect (collective): waits for every member, then this object is
        MPI.COMM_NULL."""
        ctx = current()
        handle = self._c(ctx.mpi)  # type: ignore[attr-defined]
        ctx.call(lambda: ctx.mpi.comm_disconnect(handle), self._key())  # type: ignore[attr-defined]
        self._kind, self._handle = "null", None

    @classmethod
    def Join(cls, fd: int) -> Any:
        """MPI_Comm_join: refused (MPI.ERR_UNSUPPORTED_OPERATION): no sockets here."""
        ctx = current()
        return ctx.call(lambda: ctx.mpi.comm_join(fd))


def _local(call: str, *args: Any) -> Any:
    mpi = current().plain()
    try:
        return getattr(mpi, call)(*args)
    except MPIError as e:
        raise as_exception(e) from None


def Open_port(info: Any = None) -> str:
    """MPI_Open_port: a new port name."""
    return str(_local("open_port", handle_info(info)))


def Close_port(port_name: str) -> None:
    """MPI_Close_port."""
    _local("close_port", port_name)


def Publish_name(service_name: str, port_name: str, info: Any = None) -> None:
    """MPI_Publish_name."""
    _local("publish_name", service_name, port_name, handle_info(info))


def Unpublish_name(service_name: str, port_name: str, info: Any = None) -> None:
    """MPI_Unpublish_name."""
    _local("unpublish_name", service_name, port_name, handle_info(info))


def Lookup_name(service_name: str, info: Any = None) -> str:
    """MPI_Lookup_name: the port published under the name (MPI.ERR_NAME if none)."""
    return str(_local("lookup_name", service_name, handle_info(info)))
