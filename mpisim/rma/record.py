"""The trace of one-sided communication: one row per operation, one per epoch.

An operation's row (``trace.rma``, :data:`~mpisim.engine.trace.RMA_DTYPE`) holds its
window, origin, target, call, bytes, when it was made (its bytes or request leave then),
when it reached the target and when the target applied it; an epoch's row
(``trace.epochs``, :data:`~mpisim.engine.trace.EPOCH_DTYPE`) a rank's span of one
synchronization on one window: a fence round, an access epoch (start to complete, lock to
unlock, lock_all to unlock_all) or an exposure epoch (post to wait), open (NaN end) if the
run ended inside it. The rows go into the run's recorder
(:class:`~mpisim.engine.trace.Recorder`), while it records (a run's first million events).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["RmaRecord"]


class RmaRecord:
    """Writes operations' and epochs' rows into the run's recorder (see the module)."""

    __slots__ = ("recorder",)

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder

    def sent(self, op: Any, start: float, arrive: float) -> None:
        """``op`` left its origin at ``start``, reaches its target at ``arrive``."""
        recorder = self.recorder
        if not recorder.enabled:
            return
        op.row = len(recorder.rma_rows)
        recorder.rma_rows.append([op.window, op.origin, op.target, op.call, op.nbytes, start,
                                  arrive, math.nan])

    def applied(self, op: Any, when: float) -> None:
        """The target applied ``op`` (wrote, read or combined its memory) at ``when``."""
        rows = self.recorder.rma_rows
        if 0 <= op.row < len(rows):
            rows[op.row][7] = when

    def opened(self, window: str, rank: int, kind: str, peer: int, when: float) -> int:
        """A rank opened an epoch (``peer``: its target or origin, -1 for a group); its row,
        -1 when not recorded."""
        recorder = self.recorder
        if not recorder.enabled:
            return -1
        recorder.epoch_rows.append([window, rank, kind, peer, when, math.nan])
        return len(recorder.epoch_rows) - 1

    def closed(self, row: int, when: float) -> None:
        rows = self.recorder.epoch_rows
        if 0 <= row < len(rows):
            rows[row][5] = when
