"""The error classes of one-sided communication (MPI 4.1 §12.8, §9.4), raised in the
calling rank program as every :class:`~mpisim.mpi.errors.MPIError` is.

Which call gives which class was observed on MPICH 5.0.2 and Open MPI 5.0.11 (see
docs/guide/facts-rma.md): both report MPI_ERR_RMA_SYNC for an operation outside an access
epoch, an unlock of a target not locked, a flush outside a passive-target epoch; Open MPI
reports MPI_ERR_RMA_RANGE for an access outside a created window, MPICH does not check
(it writes outside the window). mpisim reports every case, as it may touch no memory
outside a window. :data:`CODES` are MPICH's numbers, which mpi4py scripts see.
"""

from __future__ import annotations

from ..mpi.errors import MPIError

__all__ = ["CODES", "ErrAssert", "ErrBase", "ErrDisp", "ErrLocktype", "ErrRmaAttach",
           "ErrRmaFlavor", "ErrRmaRange", "ErrRmaShared", "ErrRmaSync", "ErrSize", "ErrWin"]


class ErrWin(MPIError):
    """MPI_ERR_WIN: not a window, or a freed one."""

    error_class = "MPI_ERR_WIN"


class ErrBase(MPIError):
    """MPI_ERR_BASE: a memory that cannot be a window's (not a buffer, read-only)."""

    error_class = "MPI_ERR_BASE"


class ErrSize(MPIError):
    """MPI_ERR_SIZE: a negative window size."""

    error_class = "MPI_ERR_SIZE"


class ErrDisp(MPIError):
    """MPI_ERR_DISP: a displacement unit that is not positive, or a negative target
    displacement."""

    error_class = "MPI_ERR_DISP"


class ErrLocktype(MPIError):
    """MPI_ERR_LOCKTYPE: neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED."""

    error_class = "MPI_ERR_LOCKTYPE"


class ErrAssert(MPIError):
    """MPI_ERR_ASSERT: an assertion with a bit that is no MPI_MODE_* (§12.5.5)."""

    error_class = "MPI_ERR_ASSERT"


class ErrRmaSync(MPIError):
    """MPI_ERR_RMA_SYNC: a call out of place in the window's synchronization: an operation
    outside an access epoch covering its target, an unlock of a target not locked, a
    complete without a start..."""

    error_class = "MPI_ERR_RMA_SYNC"


class ErrRmaRange(MPIError):
    """MPI_ERR_RMA_RANGE: a target location outside the target's window (or, in a dynamic
    window, outside every region attached there)."""

    error_class = "MPI_ERR_RMA_RANGE"


class ErrRmaAttach(MPIError):
    """MPI_ERR_RMA_ATTACH: a memory that cannot be attached (overlapping one attached, or a
    detach of memory not attached)."""

    error_class = "MPI_ERR_RMA_ATTACH"


class ErrRmaShared(MPIError):
    """MPI_ERR_RMA_SHARED: memory that cannot be shared (MPI_Win_allocate_shared over
    processes of different nodes)."""

    error_class = "MPI_ERR_RMA_SHARED"


class ErrRmaFlavor(MPIError):
    """MPI_ERR_RMA_FLAVOR: a call the window's flavor does not allow (attach to a window
    that is not dynamic)."""

    error_class = "MPI_ERR_RMA_FLAVOR"


CODES = {"MPI_ERR_WIN": 45, "MPI_ERR_BASE": 46, "MPI_ERR_LOCKTYPE": 47,
         "MPI_ERR_RMA_CONFLICT": 49, "MPI_ERR_RMA_SYNC": 50, "MPI_ERR_SIZE": 51,
         "MPI_ERR_DISP": 52, "MPI_ERR_ASSERT": 53, "MPI_ERR_RMA_RANGE": 55,
         "MPI_ERR_RMA_ATTACH": 56, "MPI_ERR_RMA_SHARED": 57, "MPI_ERR_RMA_FLAVOR": 58}
"""Each class's code, as MPICH's mpi.h numbers it (MPI.ERR_RMA_SYNC in a script)."""
