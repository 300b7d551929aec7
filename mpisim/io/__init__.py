"""MPI-IO (MPI 4.1 §14): files opened by the processes of a communicator, views, the
individual and shared file pointers, independent, collective, nonblocking and split
accesses, with the bytes in real files and a simple time model of the file system.

The ``mpi`` handle's calls (:mod:`mpisim.handle.io`) check their arguments and call this
package: :mod:`.opening` (open, close, delete), :mod:`.operations` (accesses and the
collective calls that change a file or its views) over the state of an open file
(:mod:`.file`), its views (:mod:`.view`) and the operating system's file
(:mod:`.storage`); :mod:`.access` moves one access's data, :mod:`.meeting` makes the
members of a collective call meet (and tells the deadlock analysis who never came), and
:mod:`.runtime` holds a run's state and its time model.
"""

from .constants import (
    AMODES,
    DISPLACEMENT_CURRENT,
    MODE_APPEND,
    MODE_CREATE,
    MODE_DELETE_ON_CLOSE,
    MODE_EXCL,
    MODE_RDONLY,
    MODE_RDWR,
    MODE_SEQUENTIAL,
    MODE_UNIQUE_OPEN,
    MODE_WRONLY,
    SEEK_CUR,
    SEEK_END,
    SEEK_SET,
)
from .errors import (
    ErrAccess,
    ErrAmode,
    ErrBadFile,
    ErrDupDatarep,
    ErrFile,
    ErrFileExists,
    ErrFileInUse,
    ErrIO,
    ErrNoSpace,
    ErrNoSuchFile,
    ErrNotSame,
    ErrQuota,
    ErrReadOnly,
    ErrUnsupportedDatarep,
    ErrUnsupportedOperation,
)
from .file import File
from .runtime import FileIO
from .view import View

__all__ = ["AMODES", "DISPLACEMENT_CURRENT", "MODE_APPEND", "MODE_CREATE",
           "MODE_DELETE_ON_CLOSE", "MODE_EXCL", "MODE_RDONLY", "MODE_RDWR", "MODE_SEQUENTIAL",
           "MODE_UNIQUE_OPEN", "MODE_WRONLY", "SEEK_CUR", "SEEK_END", "SEEK_SET", "ErrAccess",
           "ErrAmode", "ErrBadFile", "ErrDupDatarep", "ErrFile", "ErrFileExists",
           "ErrFileInUse", "ErrIO", "ErrNoSpace", "ErrNoSuchFile", "ErrNotSame", "ErrQuota",
           "ErrReadOnly", "ErrUnsupportedDatarep", "ErrUnsupportedOperation", "File",
           "FileIO", "View"]
