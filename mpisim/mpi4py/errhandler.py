"""``MPI.Errhandler`` of the stand-in and its three predefined handlers.

``ERRORS_RETURN`` (mpi4py's default: an MPI error raises ``MPI.Exception``),
``ERRORS_ARE_FATAL`` and ``ERRORS_ABORT`` (an MPI error ends the run, even where the script
would catch it). ``Comm.Set_errhandler`` and ``Comm.Get_errhandler`` take and give them.
"""

from __future__ import annotations

__all__ = ["ERRORS_ABORT", "ERRORS_ARE_FATAL", "ERRORS_RETURN", "Errhandler"]


class Errhandler:
    """``MPI.ERRORS_RETURN``, ``MPI.ERRORS_ARE_FATAL``, ``MPI.ERRORS_ABORT``."""

    def __init__(self, name: str, fatal: bool) -> None:
        self.name = name
        self.fatal = fatal

    def Free(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Errhandler {self.name}>"


ERRORS_RETURN = Errhandler("ERRORS_RETURN", False)
ERRORS_ARE_FATAL = Errhandler("ERRORS_ARE_FATAL", True)
ERRORS_ABORT = Errhandler("ERRORS_ABORT", True)
