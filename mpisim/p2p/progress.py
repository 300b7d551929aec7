"""Receiver progress: small sends that complete only once the receiver has taken them.

The standard lets a standard-mode send complete as soon as its message is buffered somewhere
(3.4); where, and how much, is the implementation's choice. Measured on one host with
shared memory (the ``mpich`` and ``openmpi`` profiles set these values):

- **MPICH** keeps up to ``eager_cells`` (64) eager messages per sender-receiver pair in
  shared-memory cells. A send that finds a free cell is complete at once. The cell is freed
  by the receiver's *progress*, not by matching: once the receiver makes any MPI call, the
  messages that arrived move to its unexpected queue. A send that finds every cell of its
  pair taken completes when the receiver next makes progress (64, 65, 200 and 1000 eager
  sends to a sleeping receiver all complete; the 65th waits as long as the receiver slept).
- **Open MPI** (shared memory) takes the first ``eager_cells`` (16) messages of a pair into
  its queue, then a per-pair box of ``eager_box`` (4088) bytes in which a message of n bytes
  takes ``ceil16(n + 24)`` bytes; only messages of at most ``local_send_limit`` (256) bytes
  go there. A send that finds no room, or is larger, completes when the receiver makes
  progress. This is an approximation fitted to the measured counts (sends that complete
  before a sleeping receiver wakes: 143 of 8 B, 58 of 64 B, 30 of 256 B; from 300 B, none),
  which it reproduces exactly; it changes which call waits, never an outcome.
- **MPICH** (ch4:ucx): an eager message posted while an earlier rendezvous message of its pair
  is not matched yet completes only at the receiver's progress
  (``eager_waits_for_rendezvous``).
- **Rendezvous needs the receiver's progress** (``rendezvous_needs_progress``; MPICH 5.0.2
  and Open MPI 5.0.11, measured): without an asynchronous progress thread a receiver answers
  a request-to-send (clear-to-send) only while it is inside MPI. A receiver that posted its
  receive and then computes for 0.5 s leaves the sender's rendezvous ``MPI_Send`` waiting
  until its next MPI call (``MPI_Wait``). A request-to-send that arrives while its receiver
  computes is therefore held like an eager message, then sequenced and matched at the next
  call; the clear-to-send goes from then, and the send completes once its data has left
  (the holding never completes a rendezvous send by itself). Synchronous and buffered sends
  over rendezvous are the same; the standard's ideal transport (off) answers at once.

A rank makes progress whenever it is inside MPI: blocked in a call, or at each call it makes.
It makes none while it computes (``mpi.compute``): messages that arrive then are held until
its next MPI call, or the end of its program (MPI_Finalize). What that call takes is the
profile's ``eager_release``:

- ``progress``: every held message, at once (the first model; Open MPI's profiles keep it);
- ``poll``: **MPICH** polls its cells one message at a time. A call that does not block
  polls once, so it takes the oldest held message (and frees its cell); a call that
  blocks polls until it can return, taking held messages in arrival order until one lets
  it go on (or all). Messages that arrive while some are still held queue behind them.
  Measured with MPICH 5.0.2 (sender 100 eager 8-byte sends ahead of a receiver that slept
  0.3 s): with one receive per 50 ms, each send after the 64th waited one receive period
  (one cell per receive); five MPI_Iprobe calls 50 ms apart let five sends go; a receive
  whose message had not arrived let all go. Every MPI_Finalize takes them all. A send that
  found every cell of its pair taken waits in the sender's queue and completes as soon as
  a cell is freed, oldest first (MPICH copies it into that cell).

Only standard-mode sends (including those the buffered mode posts for its entries, 3.6.1)
are subject to this; synchronous and ready sends have their own completion rules, and a
bsend that bypasses the attached buffer is local.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["BOX_ALIGN", "BOX_HEADER", "CELL", "ReceiverProgress", "box_slot"]

CELL = -1
"""``Message.slot`` of a message that holds one of its pair's cells (> 0: box bytes)."""

BOX_HEADER = 24
"""Bytes a message's header takes in a box slot (Open MPI: match header and box header)."""

BOX_ALIGN = 16
"""Box slots are rounded up to this many bytes."""


def box_slot(nbytes: int) -> int:
    """Bytes a message of ``nbytes`` takes in a pair's box: ceil16(nbytes + 24)."""
    return -(-(nbytes + BOX_HEADER) // BOX_ALIGN) * BOX_ALIGN


class ReceiverProgress:
    """Per-pair room for messages whose sends complete before the receiver takes them,
    and which ranks are computing (outside MPI, so making no progress)."""

    __slots__ = ("blocked", "box", "box_used", "cells", "cells_used", "computing", "held",
                 "listeners", "local_limit", "polls", "rendezvous_pending", "waiting",
                 "waits_for_rendezvous")

    def __init__(self, size: int, cells: int | None, box: int | None,
                 local_limit: int | None, waits_for_rendezvous: bool,
                 release: str = "progress") -> None:
        self.polls = release == "poll"  # one held message per MPI call (see the module)
        self.blocked: Any = None  # rank -> whether it waits inside a call (set by the run)
        self.waiting: dict[int, list[Any]] = {}  # (poll) per pair: sends waiting for a cell
        self.cells = cells
        self.box = box
        self.local_limit = local_limit
        self.waits_for_rendezvous = waits_for_rendezvous
        self.computing = [False] * size
        self.held: dict[int, list[Any]] = {}
        self.cells_used: dict[int, int] = {}
        self.box_used: dict[int, int] = {}
        self.rendezvous_pending: dict[int, int] = {}
        self.listeners: list[Any] = []  # called with a rank that enters MPI after computing
        # (one-sided requests held for it: mpisim.rma.progress)

    @staticmethod
    def needed(net: Any) -> bool:
        """Whether the network's settings ask for any of this."""
        return (net.eager_cells is not None or net.eager_box is not None
                or net.local_send_limit is not None or net.eager_waits_for_rendezvous
                or net.rendezvous_needs_progress)

    def admit(self, msg: Any, key: int) -> bool:
        """Room for an eager standard-mode message of pair ``key``: True if its send is
        complete at once (``msg.slot`` then says what it holds until the receiver takes it)."""
        if self.waits_for_rendezvous and self.rendezvous_pending.get(key):
            return False
        nbytes = msg.nbytes
        if self.local_limit is not None and nbytes > self.local_limit:
            return False
        cells, box = self.cells, self.box
        if cells is None and box is None:
            return True
        if cells is not None:
            used = self.cells_used.get(key, 0)
            if used < cells:
                self.cells_used[key] = used + 1
                msg.slot = CELL
                return True
        if box is not None:
            need = box_slot(nbytes)
            used = self.box_used.get(key, 0)
            if used + need <= box:
                self.box_used[key] = used + need
                msg.slot = need
                return True
        if self.polls and cells is not None:  # it waits for a cell (see the module)
            self.waiting.setdefault(key, []).append(msg)
        return False

    def release(self, msg: Any, key: int) -> Sequence[Any]:
        """The receiver took the message: free what it held. Under ``poll``, the sends of
        the pair that waited for a cell take the freed room, oldest first: returned, their
        sends complete now."""
        slot = msg.slot
        msg.slot = 0
        if slot == CELL:
            self.cells_used[key] -= 1
        elif slot > 0:
            self.box_used[key] -= slot
        waiting = self.waiting.get(key) if self.polls else None
        if not waiting:
            return ()  # (no list made per message taken)
        if msg in waiting:  # taken before it found room: it waits no more
            waiting.remove(msg)
        admitted = []
        while waiting and self.cells_used.get(key, 0) < (self.cells or 0):
            nxt = waiting.pop(0)
            self.cells_used[key] = self.cells_used.get(key, 0) + 1
            nxt.slot = CELL
            admitted.append(nxt)
        return admitted

    def rendezvous_posted(self, key: int) -> None:
        if self.waits_for_rendezvous:
            self.rendezvous_pending[key] = self.rendezvous_pending.get(key, 0) + 1

    def rendezvous_matched(self, key: int) -> None:
        if self.waits_for_rendezvous:
            self.rendezvous_pending[key] -= 1

    def hold(self, msg: Any) -> None:
        """A message arrived while its receiver computes: it waits for the next MPI call."""
        held = self.held.get(msg.dst)
        if held is None:
            self.held[msg.dst] = [msg]
        else:
            held.append(msg)

    def take_held(self, rank: int) -> list[Any]:
        """The receiver enters MPI: the messages held for it, in arrival order (and the
        listeners serve what else waited for it)."""
        self.entered(rank)
        return self.held.pop(rank, [])

    def entered(self, rank: int) -> None:
        """The rank makes an MPI call: it no longer computes (the listeners serve what else
        waited for it)."""
        self.computing[rank] = False
        for listener in self.listeners:
            listener(rank)

    def waits_held(self, rank: int) -> bool:
        """Whether a message arriving for ``rank`` now must be held: it computes, or (``poll``)
        messages are still held for it, which it takes first."""
        return self.computing[rank] or (self.polls and bool(self.held.get(rank)))

    def take_one(self, rank: int) -> Any:
        """One poll (``poll``): the oldest message held for ``rank``, or None."""
        held = self.held.get(rank)
        if not held:
            return None
        msg = held.pop(0)
        if not held:
            del self.held[rank]
        return msg
