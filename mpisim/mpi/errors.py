"""MPI error classes, raised inside rank programs.

Every error a program can see is an :class:`MPIError` (a ``RuntimeError``) whose
``error_class`` names the MPI error class (``"MPI_ERR_BUFFER"`` ...). A program may catch
it, as with ``MPI_ERRORS_RETURN``; uncaught it ends the run with outcome ``ERROR``, as
``MPI_ERRORS_ARE_FATAL`` would.

SimPy re-creates an exception from its ``args`` when it throws a failed event into a
process, so everything an error carries lives in ``args``: ``(message, info)``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ErrArg",
    "ErrBuffer",
    "ErrCount",
    "ErrDims",
    "ErrGroup",
    "ErrInfo",
    "ErrInfoKey",
    "ErrInfoNokey",
    "ErrInfoValue",
    "ErrKeyval",
    "ErrOther",
    "ErrRank",
    "ErrRequest",
    "ErrTag",
    "ErrTopology",
    "ErrTruncate",
    "ErrType",
    "MPIError",
    "error_for_class",
]


class MPIError(RuntimeError):
    """An MPI error raised in the calling rank program.

    ``info`` holds machine-readable details (for MPI_ERR_BUFFER: ``requested``,
    ``free``, ``largest_free``, ``entries``). Each subclass is one MPI error class
    (``error_class``, e.g. ``"MPI_ERR_BUFFER"``) and takes the same arguments; a program
    catches them at the ``yield`` of the call that failed, or raises one of its own.

    Parameters
    ----------
    message
        What went wrong, in words (``str()`` puts the error class before it).
    info
        Figures that go with the error (bytes, for an overflow: ``requested``,
        ``entry_bytes``, ``free``, ``largest_free``, ``capacity``). Default: none.
    """

    error_class = "MPI_ERR_OTHER"

    def __init__(self, message: str, info: dict[str, Any] | None = None) -> None:
        super().__init__(message, info or {})

    @property
    def message(self) -> str:
        """What went wrong, without the error class."""
        message: str = self.args[0]  # as __init__ stores it
        return message

    @property
    def info(self) -> dict[str, Any]:
        """Figures that go with the error (an overflow's ``requested``, ``free``...)."""
        return self.args[1] if len(self.args) > 1 else {}

    def __str__(self) -> str:
        return f"{self.error_class}: {self.message}"


class ErrBuffer(MPIError):
    """MPI_ERR_BUFFER: invalid buffer, or the attached buffer cannot hold a bsend."""

    error_class = "MPI_ERR_BUFFER"


class ErrTruncate(MPIError):
    """MPI_ERR_TRUNCATE: the message is larger than the receive buffer."""

    error_class = "MPI_ERR_TRUNCATE"


class ErrRank(MPIError):
    """MPI_ERR_RANK: a source or destination outside the communicator."""

    error_class = "MPI_ERR_RANK"


class ErrTag(MPIError):
    """MPI_ERR_TAG: a negative tag (other than ANY_TAG on a receive) or above TAG_UB."""

    error_class = "MPI_ERR_TAG"


class ErrCount(MPIError):
    """MPI_ERR_COUNT: a negative or non-integer count."""

    error_class = "MPI_ERR_COUNT"


class ErrType(MPIError):
    """MPI_ERR_TYPE: an invalid or uncommitted datatype."""

    error_class = "MPI_ERR_TYPE"


class ErrArg(MPIError):
    """MPI_ERR_ARG: any other invalid argument."""

    error_class = "MPI_ERR_ARG"


class ErrRequest(MPIError):
    """MPI_ERR_REQUEST: an invalid request handle."""

    error_class = "MPI_ERR_REQUEST"


class ErrComm(MPIError):
    """MPI_ERR_COMM: an invalid or freed communicator."""

    error_class = "MPI_ERR_COMM"


class ErrRoot(MPIError):
    """MPI_ERR_ROOT: an invalid root of a collective."""

    error_class = "MPI_ERR_ROOT"


class ErrOp(MPIError):
    """MPI_ERR_OP: an invalid reduction operation."""

    error_class = "MPI_ERR_OP"


class ErrGroup(MPIError):
    """MPI_ERR_GROUP: an invalid group (a freed one, a rank not in it)."""

    error_class = "MPI_ERR_GROUP"


class ErrTopology(MPIError):
    """MPI_ERR_TOPOLOGY: a communicator without the topology the call asks about (MPI 4.1
    §8), or an invalid graph."""

    error_class = "MPI_ERR_TOPOLOGY"


class ErrDims(MPIError):
    """MPI_ERR_DIMS: invalid Cartesian dimensions (MPI_Dims_create, MPI_Cart_create)."""

    error_class = "MPI_ERR_DIMS"


class ErrKeyval(MPIError):
    """MPI_ERR_KEYVAL: an invalid attribute key (a freed one, a predefined one that cannot
    be set or deleted)."""

    error_class = "MPI_ERR_KEYVAL"


class ErrInfo(MPIError):
    """MPI_ERR_INFO: an invalid info object (a freed one; MPI 4.1 §10)."""

    error_class = "MPI_ERR_INFO"


class ErrInfoKey(ErrInfo):
    """MPI_ERR_INFO_KEY: an info key that is empty or longer than MPI_MAX_INFO_KEY."""

    error_class = "MPI_ERR_INFO_KEY"


class ErrInfoValue(ErrInfo):
    """MPI_ERR_INFO_VALUE: an info value longer than MPI_MAX_INFO_VAL."""

    error_class = "MPI_ERR_INFO_VALUE"


class ErrInfoNokey(ErrInfo):
    """MPI_ERR_INFO_NOKEY: deleting an info key that is not set."""

    error_class = "MPI_ERR_INFO_NOKEY"


class ErrOther(MPIError):
    """MPI_ERR_OTHER: an erroneous program the standard names no class for (e.g. a ready
    send that arrives before its receive is posted)."""

    error_class = "MPI_ERR_OTHER"


_BY_CLASS = {
    cls.error_class: cls
    for cls in (ErrArg, ErrBuffer, ErrComm, ErrCount, ErrOp, ErrOther, ErrRank, ErrRoot, ErrTag,
                ErrTruncate, ErrType, ErrRequest, ErrGroup, ErrTopology, ErrDims, ErrKeyval,
                ErrInfo, ErrInfoKey, ErrInfoValue, ErrInfoNokey)
}


def error_for_class(error_class: str) -> type[MPIError]:
    """The subclass for an MPI error class name (MPIError itself when none is defined)."""
    return _BY_CLASS.get(error_class, MPIError)
