"""``MPI.Exception`` and the ``MPI.ERR_*`` codes of the stand-in.

The engine raises :class:`mpisim.MPIError` subclasses named by error class
(``"MPI_ERR_BUFFER"``); a script catches ``MPI.Exception`` and compares
``Get_error_class()`` with ``MPI.ERR_BUFFER``. :class:`Exception` is both: an MPIError (so an
uncaught one ends the run as ERROR with its class, as the engine reports any MPI error) and
mpi4py's exception (a RuntimeError with ``Get_error_class``, ``Get_error_code``,
``Get_error_string``). The codes are MPICH's (Open MPI uses the same numbers for these).
"""

from __future__ import annotations

from typing import Any

from ..io.errors import CODES as IO_CODES
from ..mpi.dynamic import CODES as DYNAMIC_CODES
from ..mpi.errors import MPIError
from ..rma.errors import CODES as RMA_CODES

__all__ = ["CODES", "Exception", "Unsupported", "Unsupporting", "as_exception",
           "error_string", "unsupported"]

SUPPORTED = "see the table of supported calls in the documentation (docs/guide/mpi4py.md)"

CODES = {
    "MPI_SUCCESS": 0, "MPI_ERR_BUFFER": 1, "MPI_ERR_COUNT": 2, "MPI_ERR_TYPE": 3,
    "MPI_ERR_TAG": 4, "MPI_ERR_COMM": 5, "MPI_ERR_RANK": 6, "MPI_ERR_ROOT": 7,
    "MPI_ERR_GROUP": 8, "MPI_ERR_OP": 9, "MPI_ERR_TOPOLOGY": 10, "MPI_ERR_DIMS": 11,
    "MPI_ERR_ARG": 12, "MPI_ERR_UNKNOWN": 13, "MPI_ERR_TRUNCATE": 14, "MPI_ERR_OTHER": 15,
    "MPI_ERR_INTERN": 16, "MPI_ERR_IN_STATUS": 17, "MPI_ERR_PENDING": 18,
    "MPI_ERR_REQUEST": 19, "MPI_ERR_KEYVAL": 48, "MPI_ERR_ERRHANDLER": 80,
    **RMA_CODES,  # one-sided communication's (MPI_ERR_WIN, MPI_ERR_RMA_SYNC...)
    **IO_CODES,   # MPI-IO's (MPI_ERR_AMODE, MPI_ERR_NO_SUCH_FILE...)
    **DYNAMIC_CODES,  # dynamic processes' (MPI_ERR_SPAWN, MPI_ERR_PORT...)
}
"""Error class name -> code (``MPI.ERR_BUFFER`` is ``CODES["MPI_ERR_BUFFER"]``)."""

_NAMES = {code: name for name, code in CODES.items()}
ERR_LASTCODE = 0x3FFFFFFF


def error_string(code: int) -> str:
    """MPI_Error_string for a code of :data:`CODES`."""
    name = _NAMES.get(code)
    if name is None:
        return f"unknown error code {code}"
    return "No MPI error" if code == 0 else f"{name}: {name[8:].lower().replace('_', ' ')}"


class Exception(MPIError):  # mpi4py's name: MPI.Exception
    """mpi4py's MPI.Exception: an MPI error the script can catch."""

    def __init__(self, ierr: Any = 15, info: dict[str, Any] | None = None,
                 error_class: str | None = None) -> None:
        if isinstance(ierr, int) and not isinstance(ierr, bool):
            error_class = error_class or _NAMES.get(ierr, "MPI_ERR_OTHER")
            message = error_string(ierr)
        else:
            message = str(ierr)
        super().__init__(message, info)
        self.error_class = error_class or "MPI_ERR_OTHER"

    def Get_error_class(self) -> int:
        """The MPI error class (compare with MPI.ERR_*)."""
        return CODES.get(self.error_class, CODES["MPI_ERR_OTHER"])

    def Get_error_code(self) -> int:
        """The error code: the class itself here."""
        return self.Get_error_class()

    def Get_error_string(self) -> str:
        return f"{self.error_class}: {self.message}"

    @property
    def error_code(self) -> int:
        return self.Get_error_code()

    def __int__(self) -> int:
        return self.Get_error_code()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, int):
            return self.Get_error_code() == other
        return self is other

    __hash__ = MPIError.__hash__


def as_exception(error: MPIError) -> Exception:
    """The engine's MPIError as the script's MPI.Exception (same class, message, details)."""
    if isinstance(error, Exception):
        return error
    return Exception(error.message, dict(error.info), error.error_class)


class Unsupported(NotImplementedError, AttributeError):
    """A call the stand-in does not offer. Also an AttributeError, so ``hasattr(MPI, X)``
    and ``getattr(MPI, X, default)`` answer as for a library without X."""


def unsupported(owner: str, name: str) -> Unsupported:
    """The error for ``owner.name`` (``MPI.Win``, ``Comm.Spawn``...)."""
    return Unsupported(f"{owner}.{name} is not supported by mpisim's mpi4py stand-in; "
                       f"{SUPPORTED}")


class Unsupporting(type):
    """The metaclass of the stand-in's MPI classes: a class attribute the stand-in lacks
    (``MPI.Request.Get_status_any`` in a library without it) raises :class:`Unsupported`
    naming it, as an instance's missing attribute does, instead of a bare
    AttributeError."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(cls.__name__, name)
