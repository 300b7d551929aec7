"""Why a call is blocked: one typed cause per kind of wait, its words and its advice.

The transport records on each send request its effective mode (``mpi.force_ssend`` turns
any send synchronous) and protocol (eager or rendezvous); the deadlock analysis reads those
and the call's :class:`CallDetail` and gives every blocked rank one :class:`Cause`. Reports
choose their advice by cause (:data:`ADVICE`), never by the wording of a reason, so a 10-byte
``MPI_Send`` blocked under ``check`` (every send synchronous) is said to be forced
synchronous, not to have gone rendezvous.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NamedTuple

__all__ = ["ADVICE", "CallDetail", "Cause", "advice"]


class CallDetail(NamedTuple):
    """What the call a rank is in works on: its peer (a world rank, a wildcard or None),
    tag, bytes, and the object it waits on (a Request, a list of them, a buffer, a
    collective's state) — what the deadlock analysis reads."""

    peer: int | None = None
    tag: int | None = None
    nbytes: int | None = 0
    obj: Any = None


class Cause(Enum):
    """What a blocked call waits for."""

    RENDEZVOUS = "rendezvous"                # a standard send over the eager limit: the match
    SYNCHRONOUS = "synchronous"              # MPI_Ssend: the matching receive to start
    FORCED_SYNCHRONOUS = "forced synchronous"  # any send made synchronous (mpi.force_ssend)
    EAGER_CELLS = "eager cells"              # no room towards the receiver until it enters MPI
    DETACH = "detach"                        # buffer detach: the buffered messages to go
    FLUSH = "flush"                          # buffer flush: the buffered messages to go
    FINALIZE = "finalize"                    # the end of the program: buffered messages
    COLLECTIVE = "collective"                # a collective call: the members it waits for
    BARRIER = "barrier"                      # MPI_Barrier: every member to enter
    REQUESTS = "requests"                    # a wait on requests that cannot complete
    RECEIVE = "receive"                      # a receive or probe: a message never sent
    ANY_SOURCE = "any source"                # a receive from any rank: none is coming
    STALLED = "stalled"                      # a pair whose messages no longer match
    POLLING = "polling"                      # a livelock: a poll that can never succeed
    ONE_SIDED = "one-sided"                  # an RMA synchronization (MPI 4.1 §12.5): the
    # members that never fence, the post or complete never made, the lock never released
    THREAD = "thread"                        # another thread of the rank: its end, or a lock
    # (or queue, condition...) it holds


ADVICE: dict[Cause, str] = {
    Cause.RENDEZVOUS: "a larger eager limit (setting network.eager_limit), bsend with an "
                      "attached buffer, or isend/irecv (the program is unsafe, 3.5)",
    Cause.FORCED_SYNCHRONOUS: "the program completes only if MPI buffers its sends: bsend "
                              "with an attached buffer, isend/irecv, or sendrecv make it safe "
                              "(3.5)",
}
"""The advice a report gives when some blocked call has this cause."""


def advice(causes: Any) -> list[str]:
    """The advice for the causes present, once each, in :class:`Cause` order."""
    present = set(causes)
    return [ADVICE[c] for c in Cause if c in present and c in ADVICE]
