"""The one collective scenarios need: MPI_Barrier.

A barrier completes on every rank once all have entered it, plus the time of a
dissemination barrier's ceil(log2 p) rounds of latency-only messages.
"""

from __future__ import annotations

import math
from typing import Any

from simpy.events import Event

from .events import fire_at, pending

__all__ = ["Barrier"]


class Barrier:
    """MPI_Barrier over all ranks (MPI_COMM_WORLD)."""

    def __init__(self, env: Any, size: int, latency: float) -> None:
        self.env = env
        self.size = size
        self.rounds_time = latency * math.ceil(math.log2(size)) if size > 1 else 0.0
        self.waiting: dict[int, Event] = {}

    def enter(self, rank: int) -> Event:
        ev = pending(self.env)
        self.waiting[rank] = ev
        if len(self.waiting) == self.size:
            when = self.env._now + self.rounds_time
            for waiter in self.waiting.values():
                fire_at(waiter, when, None)
            self.waiting = {}
        return ev

    def missing(self) -> list[int]:
        """Ranks that have not entered the barrier the others wait in."""
        return [r for r in range(self.size) if r not in self.waiting]
