"""Opening, closing and deleting files (MPI 4.1 §14.2.1, §14.2.2, §14.2.3).

MPI_File_open is collective over an intracommunicator, matched with the other collective
creations on it in the order each member calls them (as a window's creation is). Every
member must name the same file and give the same amode (else MPI_ERR_NOT_SAME); the file
is opened once, when the last member has called, relative to the process's working
directory (as a real run's processes, started in one directory, open it), with the
operating system's errors mapped to MPI's (:func:`mpisim.io.errors.from_os`).
MPI_MODE_APPEND starts every file pointer at the end of file; MPI_MODE_DELETE_ON_CLOSE
deletes the file when it is closed; MPI_MODE_UNIQUE_OPEN and MPI_MODE_SEQUENTIAL's
promise change nothing else in the model.

MPI_File_close is collective over the file's processes; MPI_File_delete is not collective
(MPICH 5.0.2 and Open MPI 5.0.11 unlink a file some process has open, as the standard
allows; so does mpisim).
"""

from __future__ import annotations

import os
from typing import Any

from simpy.events import Event

from ..engine.clock import at
from ..engine.port import RankPort
from ..mpi.errors import ErrComm
from .constants import (
    MODE_APPEND,
    MODE_CREATE,
    MODE_DELETE_ON_CLOSE,
    MODE_EXCL,
    MODE_RDONLY,
    MODE_WRONLY,
)
from .errors import ErrBadFile, ErrNotSame, from_os
from .file import File, FileInfo
from .meeting import meet
from .storage import open_file

__all__ = ["close", "delete", "file_path", "open_"]


def file_path(call: str, filename: Any) -> tuple[str, str]:
    """(the name as given, the absolute path) of a file name (str, bytes or path)."""
    try:
        name = os.fsdecode(filename)
    except TypeError:
        raise ErrBadFile(f"{call}: {filename!r} is not a file name") from None
    if not name:
        raise ErrBadFile(f"{call}: the file name is empty")
    return name, os.path.abspath(name)


def open_(rt: Any, port: RankPort, call: str, comm: Any, filename: Any, amode: int,
          hints: Any) -> Event:
    """One member's part of MPI_File_open (see the module): yields its File."""
    parent = port.comm(comm)
    if parent.is_inter:
        raise ErrComm(f"{call}: {parent.name} is an intercommunicator; files are opened "
                      "over an intracommunicator (§14.2.1)")
    name, path = file_path(call, filename)
    key = (parent.context, parent.calls)
    parent.calls += 1
    members = tuple(parent.group)

    def make(args: dict[int, Any]) -> dict[int, Any]:
        if len({a[:2] for a in args.values()}) > 1:
            raise ErrNotSame(f"{call}: the members of {parent.name} gave different file "
                             "names or amodes (§14.2.1)")
        storage = open_file(call, path, bool(amode & MODE_CREATE), bool(amode & MODE_EXCL),
                            not amode & MODE_WRONLY, not amode & MODE_RDONLY)
        rt.opened += 1
        info = FileInfo(rt.opened, name, path, amode, members, storage, None)
        rt.opening(path)
        end = rt.env._now + rt.sync_time(len(members)) + rt.latency
        out = {}
        for w in members:
            fh = info.members[w] = File(info, w)
            hints = args[w][2]
            fh.info.hints = hints.dup() if hasattr(hints, "dup") else hints
            if amode & MODE_APPEND:
                fh.pointer = storage.size()
            out[w] = (end, fh)
        if amode & MODE_APPEND:
            info.shared = storage.size()
        return out

    return meet(port, key, call, f"file {name!r}", members, (path, amode, hints), make)


def close(rt: Any, port: RankPort, fh: File, call: str) -> Event:
    """MPI_File_close (collective): the file is closed (and deleted with
    MPI_MODE_DELETE_ON_CLOSE) once every member has called."""
    info = fh.info

    def make(args: dict[int, Any]) -> dict[int, Any]:
        info.storage.close()
        info.closed = True
        rt.closing(info.path)
        for member in info.members.values():
            member.closed = True
        if info.amode & MODE_DELETE_ON_CLOSE:
            try:
                os.unlink(info.path)
            except OSError as e:
                raise from_os(call, info.path, e) from None
        end = rt.env._now + rt.sync_time(len(info.group)) + rt.latency
        return dict.fromkeys(args, (end, None))

    return meet(port, fh.next_key(), call, info.describe(), info.group, None, make)


def delete(rt: Any, port: RankPort, call: str, filename: Any) -> Event:
    """MPI_File_delete (not collective): the file is gone after ``io_latency``."""
    port.enter(call)
    _, path = file_path(call, filename)
    try:
        os.unlink(path)
    except OSError as e:
        raise from_os(call, path, e) from None
    env = port.env
    return at(env, env._now + port.overhead + rt.latency)
