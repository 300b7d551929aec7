"""Channels: what the transport keeps per (sender, receiver) pair, in one object.

Matching order is posting order per pair and communicator (non-overtaking, 3.5): a
:class:`Channel` numbers its pair's messages as they are posted (``posted``), knows the
number of the next one allowed to match (``expected``), and holds the envelopes that
arrived before an earlier one of their pair (``early``, by number) until it arrives.

The wire between two ranks is FIFO whatever the communicator: the channel of the world
communicator (context 0) keeps the pair's latest arrival time, and every channel of the
pair points to it as its ``wire``.

One object per pair that has communicated, looked up once when a message is posted and
carried by the message from then on, instead of a lookup per step in one dictionary per
counter.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Channel"]


class Channel:
    """One (sender, receiver, context) pair's message order, and the pair's wire."""

    __slots__ = ("early", "expected", "last_arrival", "posted", "wire")

    def __init__(self, wire: Channel | None = None) -> None:
        self.posted = 0          # sequence number of the next message posted
        self.expected = 0        # sequence number of the next message to match
        self.early: dict[int, Any] | None = None  # arrived before an earlier one, by number
        self.last_arrival = 0.0  # (on the wire) the latest arrival time so far
        self.wire = self if wire is None else wire

    def in_order(self, arrive: float) -> float:
        """Keep the wire FIFO: a message never arrives before an earlier one of the pair."""
        wire = self.wire
        if arrive < wire.last_arrival:
            return wire.last_arrival
        wire.last_arrival = arrive
        return arrive
