"""Open files (MPI 4.1 §14.2): what the processes of one MPI_File_open share, and one
process's file handle.

MPI_File_open is collective over a communicator; once every member has called, they share
one :class:`FileInfo`: the file's name and real path, the access mode, the storage (the
operating system's file, :mod:`.storage`), the shared file pointer (§14.4.4), the
atomicity mode and the hints. Each member holds a :class:`File` (MPI_File): its rank in
the file's group, its view (:mod:`.view`), its individual file pointer, the split
collective it has begun, and how many collective calls it has made on the file (collective
calls on a file are matched in the order each member makes them).

Pointers count etypes of the view in force (§14.4.2): setting a view resets the
individual pointer and the shared pointer to zero; MPI_MODE_APPEND starts both at the end
of file.
"""

from __future__ import annotations

from typing import Any

from ..mpi.datatypes import BYTE
from ..mpi.errors import ErrArg
from .constants import (
    ACCESS_MODES,
    AMODES,
    MODE_CREATE,
    MODE_EXCL,
    MODE_RDONLY,
    MODE_RDWR,
    MODE_SEQUENTIAL,
    MODE_WRONLY,
)
from .errors import ErrAccess, ErrAmode, ErrFile, ErrReadOnly, ErrUnsupportedOperation
from .view import View

__all__ = ["File", "FileInfo", "check_amode", "check_file", "check_offset", "default_view"]


def default_view() -> View:
    """The view of a newly opened file: displacement 0, etype and filetype MPI_BYTE,
    native (§14.3)."""
    return View(0, BYTE, BYTE, "native")


def check_amode(call: str, amode: Any) -> int:
    """``amode`` if §14.2.1 allows it, else MPI_ERR_AMODE naming the rule."""
    if isinstance(amode, bool) or not isinstance(amode, int) or amode < 0 or \
            amode & ~sum(AMODES.values()):
        raise ErrAmode(f"{call}: {amode!r} is not a combination of MPI_MODE_* flags")
    access = amode & ACCESS_MODES
    if access not in (MODE_RDONLY, MODE_WRONLY, MODE_RDWR):
        raise ErrAmode(f"{call}: the amode must have exactly one of MPI_MODE_RDONLY, "
                       "MPI_MODE_WRONLY, MPI_MODE_RDWR (§14.2.1)")
    if access == MODE_RDONLY and amode & (MODE_CREATE | MODE_EXCL):
        raise ErrAmode(f"{call}: MPI_MODE_CREATE and MPI_MODE_EXCL cannot go with "
                       "MPI_MODE_RDONLY (§14.2.1)")
    if access == MODE_RDWR and amode & MODE_SEQUENTIAL:
        raise ErrAmode(f"{call}: MPI_MODE_SEQUENTIAL cannot go with MPI_MODE_RDWR "
                       "(§14.2.1)")
    return int(amode)


class FileInfo:
    """What every member's handle of one open file shares."""

    __slots__ = ("amode", "atomic", "closed", "group", "hints", "index", "members", "name",
                 "number", "path", "shared", "storage")

    def __init__(self, number: int, name: str, path: str, amode: int,
                 group: tuple[int, ...], storage: Any, hints: Any) -> None:
        self.number = number
        self.name = name              # as the program gave it
        self.path = path              # absolute, resolved when opened
        self.amode = amode
        self.group = group            # world ranks, in the order of the communicator
        self.index = {w: r for r, w in enumerate(group)}
        self.storage = storage
        self.hints = hints
        self.shared = 0               # the shared file pointer, in etypes of the view
        self.atomic = False           # MPI_File_set_atomicity's mode
        self.closed = False
        self.members: dict[int, File] = {}

    def describe(self) -> str:
        return f"file {self.name!r}"


class File:
    """One member's handle of an open file (MPI_File): see the module."""

    __slots__ = ("calls", "closed", "info", "me", "pointer", "rank", "split", "view")

    def __init__(self, info: FileInfo, me: int) -> None:
        self.info = info
        self.me = me
        self.rank = info.index[me]
        self.view = default_view()
        self.pointer = 0              # the individual file pointer, in etypes
        self.split: Any = None        # (the call begun, its Request) of a split collective
        self.calls = 0                # collective calls made on it (their meeting keys)
        self.closed = False

    @property
    def name(self) -> str:
        return self.info.name

    def next_key(self) -> tuple:
        """The meeting key of its next collective call (collective calls on a file are
        matched in the order each member makes them)."""
        key = ("file", self.info.number, self.calls)
        self.calls += 1
        return key

    @property
    def size(self) -> int:
        """How many processes opened it together."""
        return len(self.info.group)

    def readable(self, call: str) -> None:
        if self.info.amode & MODE_WRONLY:
            raise ErrAccess(f"{call}: {self.info.describe()} was opened MPI_MODE_WRONLY")

    def writable(self, call: str) -> None:
        if self.info.amode & MODE_RDONLY:
            raise ErrReadOnly(f"{call}: {self.info.describe()} was opened MPI_MODE_RDONLY")

    def not_sequential(self, call: str) -> None:
        """Explicit offsets and individual pointers are not for MPI_MODE_SEQUENTIAL files
        (§14.2.1)."""
        if self.info.amode & MODE_SEQUENTIAL:
            raise ErrUnsupportedOperation(f"{call}: {self.info.describe()} was opened "
                                          "MPI_MODE_SEQUENTIAL")

    def __repr__(self) -> str:
        state = " (closed)" if self.closed else ""
        return f"<File {self.name!r}: rank {self.rank} of {self.size}{state}>"


def check_file(fh: Any, call: str) -> File:
    """``fh`` if it is an open file handle, else MPI_ERR_FILE."""
    if not isinstance(fh, File) or fh.closed:
        raise ErrFile(f"{call}: {fh!r} is not an open file (MPI_FILE_NULL or closed)")
    return fh


def check_offset(call: str, offset: Any, what: str = "offset") -> int:
    """An MPI_Offset argument: an integer (non-negative where a position is meant)."""
    if isinstance(offset, bool) or not hasattr(offset, "__index__"):
        raise ErrArg(f"{call}: {what} must be an integer, got {offset!r}")
    value = int(offset)
    if value < 0:
        raise ErrArg(f"{call}: {what} must not be negative, got {value}")
    return value
