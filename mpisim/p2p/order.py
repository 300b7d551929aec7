"""Happens-before of a run's messages, for the exploration of message races.

A wildcard receive (MPI_ANY_SOURCE) matches whichever fitting message its process sees
first; in another valid execution a different sender's message could have come first
(MPI 4.1 §3.5 orders messages between one pair only). To find those senders without
trying every interleaving, the run keeps a vector clock per process (Lamport's
happens-before, as DAMPI does): a send carries its sender's clock, a match merges it into
the receiver's. A message *m* could have matched a wildcard receive *W* of process *r*
instead of the one it did when

- its envelope fits *W* (destination *r*, communicator, tag), its sender differs;
- it was not sent causally after *W* (its clock's entry for *r* is below *W*'s);
- it was not matched at *r* before *W* (unmatched, or matched by a later receive).

Messages are not the only edges: a spawned process starts knowing what its parents did
before their MPI_Comm_spawn, and each parent returns from it knowing the others' past
(MPI 4.1 §11.8.2: the spawn is collective over the parents and the children's MPI_Init),
and the two groups an MPI_Comm_accept/MPI_Comm_connect joins
learn each other's past (§11.9.2), so a message sent after such a call never looks
concurrent with what came before it (:meth:`Order.meet`).

:class:`Order` is hung on the transport only by a race exploration (``Transport.order``);
an ordinary run pays one ``is None`` test per send and per match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ..mpi.constants import ANY_TAG

__all__ = ["Order", "Wildcard"]


class Wildcard(NamedTuple):
    """One wildcard receive's match: its rank and number there, the sender it matched,
    its envelope, the receiver's clock at the match, and the call and its place."""

    rank: int
    number: int
    source: int
    tag: int              # the receive's tag (ANY_TAG possible)
    ctx: int
    clock: int            # the receiver's own clock entry at the match
    call: str
    where: str | None
    sent_at: Any = None   # the send's place (its message's ``where``): which send it was


class Order:
    """Vector clocks of one run and its wildcard matches (see the module)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.clocks = [[0] * size for _ in range(size)]
        self.sends: dict[int, tuple[int, int, int, int, tuple[int, ...]]] = {}
        self.matched_at: dict[int, int] = {}   # message id -> receiver's clock at its match
        self.wildcards: list[Wildcard] = []     # in the order the matches happened
        # the exploration's forced senders, (process, wildcard number) -> sender: what a
        # process spawned during the run is told at its start (the ranks' are told first)
        self.forced: dict[tuple[int, int], int] = {}

    def grow(self, count: int) -> None:
        """``count`` processes join the run (spawned, MPI 4.1 §11.8): a clock entry for
        each in every clock, and their own clocks (a message's clock taken before keeps
        its length: no process that joined later can be in its past)."""
        for clock in self.clocks:
            clock.extend([0] * count)
        self.size += count
        self.clocks.extend([0] * self.size for _ in range(count))

    def meet(self, knowers: Sequence[int], learners: Sequence[int]) -> None:
        """A call that joins processes orders what ``knowers`` did before it ahead of
        what ``learners`` do after it: each learner's clock takes in every knower's.
        MPI_Comm_spawn: the children's MPI_Init returns only once every parent has called
        it, and no parent returns before the children's MPI_Init (MPI 4.1 §11.8.2: "a
        collective operation over the union of parent and child processes"), so the
        parents' calls come before the children's start and every parent's return;
        MPI_Comm_accept/MPI_Comm_connect: both groups, each way (§11.9.2)."""
        clocks = self.clocks
        known = [max(column) for column in zip(*(clocks[k] for k in knowers), strict=True)]
        for r in learners:
            clock = clocks[r]
            for i, v in enumerate(known):
                if v > clock[i]:
                    clock[i] = v

    def sent(self, msg: Any) -> None:
        """A send: its sender's clock ticks; the message carries a copy."""
        clock = self.clocks[msg.src]
        clock[msg.src] += 1
        self.sends[msg.id] = (msg.src, msg.dst, msg.tag, msg.ctx, tuple(clock))

    def matched(self, msg: Any, req: Any, where: str | None = None) -> None:
        """A match: the receiver learns what the sender knew; a wildcard one is kept."""
        r = msg.dst
        clock = self.clocks[r]
        sent = self.sends.get(msg.id)
        if sent is not None:
            for i, v in enumerate(sent[4]):
                if v > clock[i]:
                    clock[i] = v
        clock[r] += 1
        self.matched_at[msg.id] = clock[r]
        if req.wild is not None:
            self.wildcards.append(Wildcard(r, req.wild, msg.src, req.tag, msg.ctx, clock[r],
                                           req.call, where, msg.where))

    def alternatives(self, w: Wildcard) -> list[int]:
        """The other senders whose message could have matched ``w`` (see the module)."""
        found = set()
        for mid, (src, dst, tag, ctx, clock) in self.sends.items():
            if dst != w.rank or src == w.source or ctx != w.ctx or src in found:
                continue
            if w.tag != ANY_TAG and tag != w.tag:
                continue
            if clock[w.rank] >= w.clock:
                continue  # sent after the receiver had made this match: caused by it
            at = self.matched_at.get(mid)
            if at is not None and at < w.clock:
                continue  # matched at the receiver before w
            found.add(src)
        return sorted(found)
