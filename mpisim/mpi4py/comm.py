"""``MPI.Comm`` of the stand-in: each method is one call of the rank's ``mpi`` handle.

Every method finds the calling rank (:func:`~.bridge.current`), makes the handle's call with
``comm=`` this communicator and, for a blocking call, suspends the rank's greenlet until the
engine reaches the call's event (:meth:`~.bridge.RankContext.call`). Point-to-point methods
are in :mod:`.pt2pt`, collectives in :mod:`.collective` (both mixed in); here: identity,
communicator creation, error handlers and communicator buffers.

``MPI.COMM_WORLD`` and ``MPI.COMM_SELF`` are single objects shared by every rank, resolved
to the calling rank's handle at each call; ``Dup``/``Split`` return per-rank objects.
"""

from __future__ import annotations

from typing import Any

from .bridge import current
from .buffers import attach, detach, flush, iflush
from .collective import Collectives
from .errhandler import ERRORS_ARE_FATAL, ERRORS_RETURN, Errhandler
from .exceptions import Exception as MPIException
from .exceptions import unsupported
from .pt2pt import PointToPoint
from .request import Request

__all__ = ["COMM_NULL", "COMM_SELF", "COMM_WORLD", "Comm", "Intracomm"]


class Aborted(BaseException):
    """Comm.Abort: the job ends (as MPI_Abort ends every process); not an Exception, so a
    script's ``except Exception`` cannot swallow it."""


class Comm(PointToPoint, Collectives):
    """mpi4py's MPI.Comm (an intracommunicator)."""

    def __init__(self, kind: str = "handle", handle: Any = None) -> None:
        self._kind = kind          # "world", "self", "null" or "handle"
        self._handle = handle      # the handle's Comm (kind "handle")

    # -- the handle's Comm ----------------------------------------------------------------
    def _c(self, mpi: Any) -> Any:
        """The ``comm=`` argument of the handle's calls (None: MPI_COMM_WORLD)."""
        kind = self._kind
        if kind == "world":
            return None
        if kind == "self":
            return mpi.comm_self
        if kind == "null" or self._handle is None:
            raise MPIException("invalid communicator (MPI_COMM_NULL)", None, "MPI_ERR_COMM")
        return self._handle

    def _p2p(self, call: str, blocking: bool, **kwargs: Any) -> Any:
        ctx = current()
        mpi = ctx.mpi
        comm = self._c(mpi)
        method = getattr(mpi, call)
        return ctx.call(lambda: method(comm=comm, **kwargs), self._key())

    def _key(self) -> Any:
        """This communicator in the rank's table of error handlers."""
        return self._kind if self._handle is None else self._handle.context

    # -- error handlers ---------------------------------------------------------------------
    def Set_errhandler(self, errhandler: Any) -> None:
        """MPI_ERRORS_RETURN (mpi4py's default: errors raise MPI.Exception) or
        MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT (an MPI error ends the run, even if the
        script would catch it)."""
        if not isinstance(errhandler, Errhandler):
            raise MPIException(f"{errhandler!r} is not an error handler", None,
                               "MPI_ERR_ARG")
        current().fatal[self._key()] = errhandler.fatal

    def Get_errhandler(self) -> Any:
        return ERRORS_ARE_FATAL if current().fatal.get(self._key()) else ERRORS_RETURN

    def _inherit(self, made: Comm) -> Comm:
        """A new communicator keeps its parent's error handler (6.4.2)."""
        fatal = current().fatal
        if self._key() in fatal and made._kind == "handle":
            fatal[made._key()] = fatal[self._key()]
        return made

    # -- identity -------------------------------------------------------------------------
    def Get_rank(self) -> int:
        mpi = current().mpi
        comm = self._c(mpi)
        return mpi.rank if comm is None else comm.rank

    def Get_size(self) -> int:
        mpi = current().mpi
        comm = self._c(mpi)
        return mpi.size if comm is None else comm.size

    rank = property(Get_rank)
    size = property(Get_size)

    def Get_name(self) -> str:
        if self._kind == "world":
            return "MPI_COMM_WORLD"
        if self._kind == "self":
            return "MPI_COMM_SELF"
        return self._c(current().mpi).name

    name = property(Get_name)

    def Is_inter(self) -> bool:
        return False

    def Is_intra(self) -> bool:
        return True

    is_inter = property(Is_inter)
    is_intra = property(Is_intra)

    def __bool__(self) -> bool:
        return self._kind != "null" and not (self._handle is not None and self._handle.freed)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Comm):
            return NotImplemented
        if self._kind != "handle" or other._kind != "handle":
            return self._kind == other._kind
        return self._handle == other._handle

    def __hash__(self) -> int:
        return hash(self._kind) if self._kind != "handle" else hash(self._handle)

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Intracomm {self._kind if self._kind != 'handle' else 'comm'}>"

    # -- communicators ---------------------------------------------------------------------
    def Dup(self, info: Any = None) -> Comm:
        return self._inherit(Comm("handle", self._p2p("comm_dup", True)))

    Clone = Dup

    def Split(self, color: int = 0, key: int = 0) -> Comm:
        made = self._p2p("comm_split", True, color=color, key=key)
        return Comm("null") if made is None else self._inherit(Comm("handle", made))

    def Free(self) -> None:
        if self._kind in ("world", "self"):
            raise MPIException(f"cannot free {self.Get_name()}", None, "MPI_ERR_COMM")
        ctx = current()
        handle = self._c(ctx.mpi)
        ctx.call(lambda: ctx.mpi.comm_free(handle))

    def Abort(self, errorcode: int = 0) -> None:
        raise Aborted(f"MPI_Abort({self.Get_name()}, {errorcode}) called by rank "
                      f"{current().mpi.rank}")

    # -- communicator buffers (MPI 4.1) ----------------------------------------------------
    def Attach_buffer(self, buf: Any) -> None:
        attach(buf, self)

    def Detach_buffer(self) -> Any:
        return detach(self)

    def Flush_buffer(self) -> None:
        flush(self)

    def Iflush_buffer(self) -> Request:
        return iflush(self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Comm", name)


Intracomm = Comm


COMM_WORLD = Comm("world")
COMM_SELF = Comm("self")
COMM_NULL = Comm("null")
