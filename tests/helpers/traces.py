"""Synthetic traces built with the recorder's own dtypes, and a real :class:`Result` around
them: the exports and the plots are checked on rows written by hand."""

from __future__ import annotations

import math

import numpy as np

from mpisim.buffered.summary import BufferSummary
from mpisim.engine.trace import BUFFER_DTYPE, CALL_DTYPE, ENTRY_DTYPE, MESSAGE_DTYPE, Trace
from mpisim.runs.deadlock import Blocked, Deadlock
from mpisim.runs.result import Outcome, RankSummary, Result

NAN = float("nan")


class TraceBuilder:
    """Rows for the four trace arrays, then a real :class:`Result` around them."""

    def __init__(self, nranks: int) -> None:
        self.nranks = nranks
        self.buffer_rows: list[tuple] = []
        self.entry_rows: list[tuple] = []
        self.message_rows: list[tuple] = []
        self.call_rows: list[tuple] = []

    def buffer(self, rank, time, event, capacity, used, live, entries, largest_free,
               requested=0):
        self.buffer_rows.append((rank, time, event, capacity, used, live, entries,
                                 largest_free, requested))
        return self

    def entry(self, rank, msg, offset, size, alloc, done=NAN, freed=NAN, attach=0):
        self.entry_rows.append((rank, msg, offset, size, size - 96, alloc, done, freed,
                                attach))
        return self

    def message(self, id, src, dst, post, recv_done, *, tag=0, nbytes=100, mode="standard",
                protocol="eager", match=NAN, send_done=NAN):
        self.message_rows.append((id, src, dst, tag, nbytes, mode, protocol, post, match,
                                  send_done, recv_done))
        return self

    def call(self, rank, call, start, end):
        self.call_rows.append((rank, call, start, end))
        return self

    def trace(self) -> Trace:
        return Trace(np.array(self.buffer_rows, dtype=BUFFER_DTYPE),
                     np.array(self.entry_rows, dtype=ENTRY_DTYPE),
                     np.array(self.message_rows, dtype=MESSAGE_DTYPE),
                     np.array(self.call_rows, dtype=CALL_DTYPE))

    def result(self, outcome=Outcome.COMPLETED, sim_time=None, deadlock=None,
               scenario="synthetic") -> Result:
        trace = self.trace()
        if sim_time is None:
            times = [0.0, *trace.buffer["time"], *trace.calls["start"],
                     *trace.calls["end"], *trace.messages["recv_done"]]
            sim_time = max(t for t in times if not math.isnan(t))
        ranks = []
        for r in range(self.nranks):
            summary = BufferSummary()
            rows = trace.buffer_of(r)
            if len(rows):
                summary.size = int(rows["capacity"].max())
                summary.peak_used = int(rows["used"].max())
                summary.peak_live = int(rows["live"].max())
            ranks.append(RankSummary(r, outcome == Outcome.COMPLETED, sim_time, summary))
        m = trace.messages
        return Result(scenario, outcome, sim_time, {}, ranks, [None] * self.nranks,
                      {"sent": len(m), "received": int(np.isfinite(m["recv_done"]).sum()),
                       "bytes": int(m["bytes"].sum())}, trace, deadlock=deadlock)


def exchange_result() -> Result:
    """Two ranks, one buffered message each way, one standard message never received."""
    b = TraceBuilder(2)
    for r in (0, 1):
        (b.buffer(r, 0.0, "attach", 4096, 0, 0, 0, 4096)
          .buffer(r, 1e-6, "bsend", 4096, 1096, 1096, 1, 3000, 1096)
          .buffer(r, 3e-6, "complete", 4096, 1096, 0, 1, 3000)
          .entry(r, r, 0, 1096, 1e-6, 3e-6, 5e-6)
          .buffer(r, 5e-6, "detach", 0, 0, 0, 0, 0)
          .message(r, r, 1 - r, 1e-6, 2.5e-6, mode="buffered", match=2e-6, send_done=3e-6)
          .call(r, "MPI_Buffer_attach", 0.0, 1e-6)
          .call(r, "MPI_Bsend", 1e-6, 1e-6)
          .call(r, "MPI_Recv", 1e-6, 2.5e-6)
          .call(r, "MPI_Buffer_detach", 2.5e-6, 5e-6))
    b.message(2, 0, 1, 5e-6, NAN).call(0, "MPI_Send", 5e-6, 6e-6).call(1, "MPI_Recv", 5e-6, NAN)
    dl = Deadlock([Blocked(1, "MPI_Recv", 0, 7, 8, [0], "programs[0].ops[4]")], [])
    return b.result(Outcome.DEADLOCK, sim_time=6e-6, deadlock=dl)
