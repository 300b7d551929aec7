"""Message matching at a receiver: the posted-receive and unexpected-message queues.

MPI matches a message to a receive by (communicator, source, tag), with ANY_SOURCE and
ANY_TAG as wildcards on the receive side (3.5); the communicator is its context id
(``ctx``), so a message on a duplicate never matches a receive on the original. Both queues
are kept in order — posted receives in posting order, unexpected messages in arrival order —
and searched from the front, which gives the standard's two ordering rules: a message
matches the *first* posted receive that fits it, and a receive matches the *first* arrived
message that fits it. Since the transport hands each pair's envelopes to matching in
sending order, messages from one sender cannot overtake each other (non-overtaking, 3.5),
whatever their protocol.

Only the envelope needs to have arrived to match: for a rendezvous message the envelope is
the request-to-send, and its data follows after the match.
"""

from __future__ import annotations

from typing import Any

from ..mpi.constants import ANY_SOURCE, ANY_TAG

__all__ = ["MatchQueues"]


class MatchQueues:
    """One rank's matching state.

    ``eager_bytes`` counts eager data parked in the unexpected queue or in flight towards it:
    the network's ``system_buffer`` bounds it.
    """

    __slots__ = ("eager_bytes", "posted", "probes", "unexpected")

    def __init__(self) -> None:
        self.posted: list[Any] = []       # receive Requests, posting order
        self.unexpected: list[Any] = []   # Messages, arrival order
        # blocked probes: (source, tag, callback, ctx, takes: a matched probe); a list once
        # one waits (most ranks never probe)
        self.probes: list[Any] | tuple[Any, ...] = ()
        self.eager_bytes = 0

    def take_posted(self, src: int, tag: int, ctx: int = 0) -> Any:
        """Remove and return the first posted receive that matches (src, tag) on the
        communicator context ``ctx``, or None."""
        posted = self.posted
        for i, req in enumerate(posted):
            peer = req.peer
            rtag = req.tag  # (the tag compared without building a tuple per receive)
            if (peer in (src, ANY_SOURCE)) and (rtag == tag or rtag == ANY_TAG) \
                    and req.ctx == ctx:  # noqa: SIM109
                del posted[i]
                return req
        return None

    def find_unexpected(self, source: int, tag: int, ctx: int = 0) -> int:
        """Index of the first arrived message that matches (source, tag, ctx), or -1."""
        for i, msg in enumerate(self.unexpected):
            if (source == msg.src or source == ANY_SOURCE) and (tag == msg.tag or tag == ANY_TAG) \
                    and msg.ctx == ctx:
                return i
        return -1

    def take_unexpected(self, source: int, tag: int, ctx: int = 0) -> Any:
        """Remove and return the first arrived message that matches, or None."""
        i = self.find_unexpected(source, tag, ctx)
        if i < 0:
            return None
        return self.unexpected.pop(i)
