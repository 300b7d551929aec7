"""The one-sided state of one run: what every window and every rank shares.

A run has one :class:`OneSided` (the simulation makes it and keeps it in the run's state,
:class:`~mpisim.handle.run.RunState`, where every rank's handle finds it): the settings of
the profile in force that decide how a target serves requests (``rma_lock``, ``rma_progress``,
``rma_lock_progress``, see :mod:`.progress` and :mod:`.passive`), the target service, the
order of the operations of each origin-target pair, the conflicts found
(:mod:`.conflicts`) and the trace of operations and epochs.
"""

from __future__ import annotations

from typing import Any

from ..engine.trace import Recorder
from .conflicts import Conflicts
from .constants import WIN_FLAVOR_CREATE, WIN_FLAVOR_DYNAMIC
from .progress import TargetService
from .record import RmaRecord

__all__ = ["OneSided"]


class OneSided:
    """The run's one-sided communication (see the module)."""

    def __init__(self, env: Any, transport: Any, comms: Any, colls: Any, config: Any) -> None:
        self.env = env
        self.tp = transport
        self.net = transport.net
        self.comms = comms
        self.colls = colls
        self.size = transport.size
        self.lock_mode: str = config.rma_lock
        self.progress_mode: str = config.rma_progress
        self.lock_progress: bool = config.rma_lock_progress
        self._service: TargetService | None = None
        self.conflicts = Conflicts()
        self.created = 0          # windows made (their names: win#1, win#2...)
        self._last: dict[int, float] = {}
        recorder: Recorder = transport.recorder
        self.record = RmaRecord(recorder)

    def serving(self) -> TargetService:
        """The target service, made with the run's first window (a run without one-sided
        communication adds nothing to its transport)."""
        if self._service is None:
            needed = self.progress_mode != "none" or self.lock_progress
            self._service = TargetService(self.env, self.tp, self.size, needed)
        return self._service

    @property
    def service(self) -> TargetService:
        return self.serving()

    def finalized(self, rank: int) -> None:
        """``rank`` calls MPI_Finalize: its windows serve nothing more (see TargetService)."""
        if self._service is not None:
            self._service.finalized(rank)

    @property
    def overhead(self) -> float:
        return self.net.overhead

    def needs_mpi(self, flavor: int) -> bool:
        """Whether the target serves the operations of a window of ``flavor`` only inside
        MPI (``rma_progress``)."""
        mode = self.progress_mode
        return mode == "all" or (mode == "created" and flavor in (WIN_FLAVOR_CREATE,
                                                                  WIN_FLAVOR_DYNAMIC))

    def in_order(self, origin: int, target: int, arrive: float) -> float:
        """When a request from ``origin`` reaching ``target`` at ``arrive`` is in its turn:
        never before the pair's earlier one (operations of a pair arrive in order)."""
        key = origin * self.size + target
        last = self._last.get(key)
        if last is not None and last > arrive:
            arrive = last
        self._last[key] = arrive
        return arrive

    def record_sent(self, op: Any, start: float, arrive: float) -> None:
        self.record.sent(op, start, arrive)

    def record_applied(self, op: Any, when: float) -> None:
        self.record.applied(op, when)

    def warnings(self) -> list[str]:
        """The run's warnings about one-sided communication (conflicting accesses)."""
        return self.conflicts.warnings()
