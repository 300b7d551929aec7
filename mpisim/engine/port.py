"""A rank's port: how the chapters below the handle (one-sided communication, MPI-IO, the
collectives) and the front ends above it reach one MPI process.

A chapter's call is made on the handle (``mpi.win_fence``...), which hands the chapter its
:class:`RankPort`. Through it the chapter reads the rank's clock, per-call overhead and
communicators, and *enters* the call: the step every MPI call takes first (refuse it if the
program never yielded its previous call's event, count it against a loop that never lets
time advance, log it in the trace, keep what it works on for the deadlock analysis).

The port is typed, and it lives on the ground floor, so the import contract sees every
chapter's dependency on it; what it asks of the handle is the narrow :class:`Entry`
protocol. The port delegates the entry to the handle rather than owning its state: the
handle's own point-to-point path enters its calls inlined (one call per message saved),
and both must keep one state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .clock import Clock

__all__ = ["Entry", "RankPort"]


class Entry(Protocol):
    """What a port asks of its rank (the handle, :class:`mpisim.handle.base.HandleBase`,
    answers it): the call-entry step, a communicator argument checked, the program's
    place, and the objects handed to the program (kept for the checks at MPI_Finalize)."""

    _where: Any  # the program's place the interpreters set: a scenario op's location, a
    # replay's "call N, SITE", a (code, offset) site; None: found from the frames

    def _enter(self, call: str, peer: int | None = None, tag: int | None = None,
               nbytes: int | None = 0, obj: Any = None) -> None: ...

    def _comm(self, comm: Any) -> Any: ...

    def _site(self) -> Any: ...

    def _issued(self, req: Any, buf: Any) -> None: ...

    def _made(self, kind: str, obj: Any, call: str, where: Any = None) -> None: ...


class RankPort:
    """One MPI process as the chapters and the front ends see it.

    ``rank`` is its rank in MPI_COMM_WORLD; ``env`` the run's clock (its SimPy environment,
    ``env.now``, in simulated seconds); ``overhead`` the network's per-call overhead in
    seconds; ``comms`` the run's communicators (:class:`~mpisim.mpi.comm.Communicators`).
    The MPI objects are named, not imported: the engine and the MPI objects are one floor,
    and neither stands on the other.
    """

    __slots__ = ("_rank", "comms", "env", "overhead", "rank")

    def __init__(self, rank: Entry, number: int, env: Clock, overhead: float,
                 comms: Any) -> None:
        self._rank = rank
        self.rank = number
        self.env = env
        self.overhead = overhead
        self.comms = comms

    def __repr__(self) -> str:
        return f"<port of rank {self.rank}>"

    def enter(self, call: str, peer: int | None = None, tag: int | None = None,
              nbytes: int | None = 0, obj: Any = None) -> None:
        """``call`` starts, working on ``peer``, ``tag``, ``nbytes`` and ``obj`` (what the
        deadlock analysis reports it waits for): see :meth:`HandleBase._enter
        <mpisim.handle.base.HandleBase._enter>`. Raises NotYielded when the program did not
        yield its previous call's event."""
        self._rank._enter(call, peer, tag, nbytes, obj)

    @property
    def where(self) -> Any:
        """The program's place the interpreters (scenario, replay, the mpi4py stand-in)
        set before each call, reported with what the call does; None: found from the
        program's frames."""
        return self._rank._where

    @where.setter
    def where(self, where: Any) -> None:
        self._rank._where = where

    def comm(self, comm: Any) -> Any:
        """``comm`` checked as a communicator argument: the :class:`~mpisim.mpi.comm.Comm`
        (None: MPI_COMM_WORLD); raises ErrComm for anything else or a freed one."""
        return self._rank._comm(comm)

    def site(self) -> Any:
        """Where the program is: the place the interpreters set, else its innermost frame
        outside mpisim (printed by :func:`~mpisim.engine.sites.site_text`)."""
        return self._rank._site()

    def issued(self, req: Any, buf: Any = None) -> None:
        """A nonblocking call handed the program ``req`` (on ``buf``): kept, to be
        completed before MPI_Finalize (the correctness checks)."""
        self._rank._issued(req, buf)

    def made(self, kind: str, obj: Any, call: str, where: Any = None) -> None:
        """The program was handed a new ``kind`` object (``"comm"``, ``"window"``,
        ``"request"``, ``"datatype"``...) by ``call``, made at ``where`` (default: the
        program's current place): kept for the checks at MPI_Finalize."""
        self._rank._made(kind, obj, call, where)
