"""The error classes of MPI-IO (MPI 4.1 §14.7, Table 14.5), raised in the calling rank
program as every :class:`~mpisim.mpi.errors.MPIError` is. :data:`CODES` are MPICH's numbers
(``MPI.ERR_AMODE`` in a script; Open MPI uses the same numbers).
"""

from __future__ import annotations

import errno

from ..mpi.errors import MPIError

__all__ = ["CODES", "ErrAccess", "ErrAmode", "ErrBadFile", "ErrDupDatarep", "ErrFile",
           "ErrFileExists", "ErrFileInUse", "ErrIO", "ErrNoSpace", "ErrNoSuchFile",
           "ErrNotSame", "ErrQuota", "ErrReadOnly", "ErrUnsupportedDatarep",
           "ErrUnsupportedOperation", "from_os"]


class ErrFile(MPIError):
    """MPI_ERR_FILE: not a file handle, or a closed one."""

    error_class = "MPI_ERR_FILE"


class ErrAmode(MPIError):
    """MPI_ERR_AMODE: an access mode that breaks §14.2.1's rules (not exactly one of
    RDONLY, WRONLY, RDWR; RDONLY with CREATE or EXCL; RDWR with SEQUENTIAL)."""

    error_class = "MPI_ERR_AMODE"


class ErrNoSuchFile(MPIError):
    """MPI_ERR_NO_SUCH_FILE: the file does not exist (open without MPI_MODE_CREATE,
    delete)."""

    error_class = "MPI_ERR_NO_SUCH_FILE"


class ErrFileExists(MPIError):
    """MPI_ERR_FILE_EXISTS: MPI_MODE_CREATE | MPI_MODE_EXCL on a file that exists."""

    error_class = "MPI_ERR_FILE_EXISTS"


class ErrAccess(MPIError):
    """MPI_ERR_ACCESS: permission denied, or an access the amode does not allow (a read
    of a file opened MPI_MODE_WRONLY)."""

    error_class = "MPI_ERR_ACCESS"


class ErrReadOnly(MPIError):
    """MPI_ERR_READ_ONLY: a write to a file opened MPI_MODE_RDONLY."""

    error_class = "MPI_ERR_READ_ONLY"


class ErrBadFile(MPIError):
    """MPI_ERR_BAD_FILE: an invalid file name (empty, a directory)."""

    error_class = "MPI_ERR_BAD_FILE"


class ErrIO(MPIError):
    """MPI_ERR_IO: any other error of the file system."""

    error_class = "MPI_ERR_IO"


class ErrNoSpace(MPIError):
    """MPI_ERR_NO_SPACE: the file system is full."""

    error_class = "MPI_ERR_NO_SPACE"


class ErrQuota(MPIError):
    """MPI_ERR_QUOTA: a quota is exceeded."""

    error_class = "MPI_ERR_QUOTA"


class ErrFileInUse(MPIError):
    """MPI_ERR_FILE_IN_USE: delete of a file some process of the run has open."""

    error_class = "MPI_ERR_FILE_IN_USE"


class ErrNotSame(MPIError):
    """MPI_ERR_NOT_SAME: a collective call whose arguments must be the same on every
    process differ (the amode of MPI_File_open, the size of MPI_File_set_size...)."""

    error_class = "MPI_ERR_NOT_SAME"


class ErrUnsupportedDatarep(MPIError):
    """MPI_ERR_UNSUPPORTED_DATAREP: a data representation the model does not write."""

    error_class = "MPI_ERR_UNSUPPORTED_DATAREP"


class ErrUnsupportedOperation(MPIError):
    """MPI_ERR_UNSUPPORTED_OPERATION: a call the amode rules out (a shared-pointer seek
    or an explicit offset on a MPI_MODE_SEQUENTIAL file)."""

    error_class = "MPI_ERR_UNSUPPORTED_OPERATION"


class ErrDupDatarep(MPIError):
    """MPI_ERR_DUP_DATAREP: a data representation registered twice."""

    error_class = "MPI_ERR_DUP_DATAREP"


CODES = {"MPI_ERR_ACCESS": 20, "MPI_ERR_AMODE": 21, "MPI_ERR_BAD_FILE": 22,
         "MPI_ERR_CONVERSION": 23, "MPI_ERR_DUP_DATAREP": 24, "MPI_ERR_FILE_EXISTS": 25,
         "MPI_ERR_FILE_IN_USE": 26, "MPI_ERR_FILE": 27, "MPI_ERR_IO": 32,
         "MPI_ERR_NOT_SAME": 35, "MPI_ERR_NO_SPACE": 36, "MPI_ERR_NO_SUCH_FILE": 37,
         "MPI_ERR_QUOTA": 39, "MPI_ERR_READ_ONLY": 40, "MPI_ERR_UNSUPPORTED_DATAREP": 43,
         "MPI_ERR_UNSUPPORTED_OPERATION": 44}
"""Each class's code, as MPICH's mpi.h numbers it."""

_OS = {errno.ENOENT: ErrNoSuchFile, errno.EEXIST: ErrFileExists, errno.EACCES: ErrAccess,
       errno.EPERM: ErrAccess, errno.EROFS: ErrReadOnly, errno.ENOSPC: ErrNoSpace,
       errno.EDQUOT: ErrQuota, errno.EISDIR: ErrBadFile, errno.ENOTDIR: ErrNoSuchFile,
       errno.ENAMETOOLONG: ErrBadFile, errno.EBUSY: ErrFileInUse}


def from_os(call: str, path: str, error: OSError) -> MPIError:
    """The MPI error of an operating system's error on ``path`` (as ROMIO maps errno)."""
    cls = _OS.get(error.errno or 0, ErrIO)
    return cls(f"{call}: {path!r}: {error.strerror or error}")
