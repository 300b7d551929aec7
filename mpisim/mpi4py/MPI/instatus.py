"""MPI_ERR_IN_STATUS: how a call completing several requests reports that some failed
(MPI 4.1 §3.7.5, §3.7.3 and §9.4: "the error code of each request is in the MPI_ERROR field
of its status"; the single-completion calls raise the request's own error and leave that
field alone).

What the libraries do differs, and is followed here as observed with mpi4py 4.1.2 over
MPICH 5.0.2 and Open MPI 5.0.11, a truncated receive among others:

- ``Waitall``: MPICH waits for every request, then takes them in order: those before the
  first failing one are completed, the failing one is completed with its error in its
  status, and every later one is left active (its status says MPI_ERR_PENDING; a later
  wait completes it, raising its own error if it has one). Open MPI completes them all,
  each status holding its request's error or MPI_SUCCESS. The stand-in follows Open MPI
  under an ``openmpi`` profile, MPICH otherwise. (Open MPI returns as soon as a request
  has failed, leaving those not complete yet pending; the stand-in's Waitall, as the
  engine's, returns once all are complete.)
- ``Testall``: all complete, both complete them all with each error in its status. Not
  all complete, MPICH still reports the failed ones: each complete request's status is
  filled (its error in it), each incomplete one says MPI_ERR_PENDING, and no request is
  completed; Open MPI reports nothing (flag false).
- ``Waitsome``/``Testsome``: the requests completed by the call, each status with its error
  or MPI_SUCCESS.

mpi4py gives MPI a fresh status per request (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS) and
copies every one back into the script's list, so a status the call did not fill is reset
to that.
"""

from __future__ import annotations

from typing import Any

from ...handle.access import config_of
from ..bridge import current
from ..exceptions import CODES
from ..exceptions import Exception as MPIException
from .status import Status, fill

__all__ = ["failed", "fresh", "library_completes_all", "pending", "reported", "statuses_into"]

_PENDING = CODES["MPI_ERR_PENDING"]


def library_completes_all() -> bool:
    """Whether a failed Waitall completes every request (Open MPI) rather than stopping at
    the first error (MPICH, and the stand-in's default)."""
    return config_of(current().mpi).profile.collectives_family == "openmpi"


def fresh(error: int = 0) -> Status:
    """The status mpi4py gives MPI (MPI_ANY_SOURCE, MPI_ANY_TAG), with ``error``."""
    status = Status()
    status._error = error
    return status


def reported(request: Any) -> Status:
    """The status of a completed engine request, its error (or MPI_SUCCESS) in it."""
    status = Status()
    fill(status, request.status)
    status._error = _code(request.error)
    return status


def pending() -> Status:
    """The status of a request left active by a failed call (MPI_ERR_PENDING)."""
    return fresh(_PENDING)


def _code(error: Any) -> int:
    if error is None:
        return 0
    return CODES.get(getattr(error, "error_class", ""), CODES["MPI_ERR_OTHER"])


def statuses_into(statuses: Any, made: list[Status], count: int,
                  outcount: int | None = None) -> None:
    """Copy ``made`` into the script's ``statuses`` as mpi4py copies its C array back: a
    list shorter than ``outcount`` (default ``count``) is extended to it, and each of the
    first ``count`` entries it holds is set, those past ``made`` to a fresh status."""
    if statuses is None:
        return
    outcount = count if outcount is None else outcount
    if isinstance(statuses, list):
        statuses.extend(Status() for _ in range(outcount - len(statuses)))
    for k, status in enumerate(statuses[:count]):
        source = made[k] if k < len(made) else fresh()
        status._source, status._tag, status._error = source._source, source._tag, source._error
        status._bytes, status._cancelled = source._bytes, source._cancelled


def failed() -> MPIException:
    """The exception of a call whose statuses hold the errors."""
    return MPIException("See the MPI_ERROR field in MPI_Status for the error code", None,
                        "MPI_ERR_IN_STATUS")  # MPICH's words
