"""The life of what a rank program is handed: requests, communicators, groups, windows.

The correctness checks (:mod:`mpisim.mpi.findings`) need what a real run cannot see: which
nonblocking operations a process started and never completed, which objects it made and
never freed, and whether it touched a pending operation's buffer. Each handle keeps a
:class:`Lifecycle` only when the run is checked (it always is under ``mpisim.run``); the
cost is one list append per nonblocking call, compacted as requests complete, and, for a
nonblocking operation on a numpy buffer, one copy of that buffer (to tell a write to it).

The rules, at MPI_Finalize (a rank whose program returned):

- a nonblocking operation's request still active (never completed by a wait or a
  successful test, nor freed): an error (MPI 4.1 §3.7.3, §11.2.2);
- a persistent request, a communicator, a group or a window never freed: a leak;
- a buffer of a pending nonblocking send changed, or of a pending receive written, before
  the wait or test that completes it (§3.7.2): an error, found at that wait or test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.sites import site_text
from ..mpi.findings import Call, Findings

__all__ = ["Lifecycle"]

_UINT8 = np.dtype(np.uint8)

# The requests a rank's list may hold before its completed ones are dropped (after, twice
# the requests still active). Small: the list keeps a completed request alive, with its
# buffer, status and call site, until then; at 1,024 a 1,024-process halo replay held a
# million of them (366 MB resident; at 64, 179 MB; docs/contributing/performance.md).
COMPACT_AT = 64

LEAK_RULES = {"comm": "leak-comm", "group": "leak-group", "window": "leak-window",
              "datatype": "leak-datatype", "request": "leak-request"}


class Lifecycle:
    """What one rank was handed and must give back (see the module)."""

    __slots__ = ("_cap", "findings", "made", "rank", "requests", "watched")

    def __init__(self, rank: int, findings: Findings) -> None:
        self.rank = rank
        self.findings = findings
        # (each list made by its first entry: most ranks of a large run never add one, and
        # two empty lists are 112 bytes a rank)
        self.requests: list[Any] | tuple[()] = ()  # nonblocking requests issued (compacted)
        self._cap = COMPACT_AT
        self.watched = 0                # requests whose buffer is watched (snapshot)
        self.made: list[tuple[str, Any, str, Any]] | tuple[()] = ()  # (kind, object, call, where)

    # -- requests ------------------------------------------------------------------------
    def issued(self, req: Any, buf: Any) -> None:
        """A nonblocking call handed the program ``req`` (on ``buf``)."""
        reqs = self.requests
        if not isinstance(reqs, list):  # (the shared empty tuple: none issued yet)
            reqs = self.requests = []
        reqs.append(req)
        if len(reqs) > self._cap:
            reqs[:] = [r for r in reqs if r.active]
            self._cap = max(COMPACT_AT, 2 * len(reqs))
        self.watch(req, buf)

    def watch(self, req: Any, buf: Any) -> None:
        """``req``'s numpy ``buf`` is the library's until a wait or test completes it
        (§3.7.2): a copy kept to compare (a send's, a receive's, a nonblocking collective's
        send buffer, a persistent request's at each start)."""
        if isinstance(buf, np.ndarray) and buf.size:
            req.buf = buf
            req.snapshot = buf.copy()
            self.watched += 1

    def completing(self, reqs: list[Any], call: str, where: Any) -> None:
        """A wait or test on ``reqs``: was a pending operation's buffer touched?"""
        for req in reqs:
            snap = req.snapshot
            if snap is None or not req.active:
                continue
            if _touched(req, snap):
                req.snapshot = None  # reported once
                what = ("wrote into the receive buffer" if req.kind == "recv"
                        else "changed the send buffer")
                self.findings.add("buffer-modified", (
                    f"rank {self.rank} {what} of its {req.call} before {call} completed it "
                    "(the buffer of a pending nonblocking operation must not be modified)"),
                    (Call(self.rank, req.call, site_text(req.where)),
                     Call(self.rank, call, site_text(where))))

    # -- objects -------------------------------------------------------------------------
    def made_one(self, kind: str, obj: Any, call: str, where: Any) -> None:
        """The program was handed ``obj`` (a communicator, group, window...)."""
        if obj is not None:
            made = self.made
            if not isinstance(made, list):  # (the shared empty tuple: none made yet)
                made = self.made = []
            made.append((kind, obj, call, where))

    # -- MPI_Finalize --------------------------------------------------------------------
    def finalize(self) -> None:
        """What the rank left behind when its program returned, as findings."""
        for req in self.requests:
            if req.active and not req.freed and not getattr(req, "persistent", False):
                envelope = "" if req.kind == "coll" else (
                    f" ({'from' if req.kind == 'recv' else 'to'} "
                    f"{'ANY_SOURCE' if req.peer == -2 else f'rank {req.peer}'}, "
                    f"tag {'ANY_TAG' if req.tag == -1 else req.tag})")
                self.findings.add("request-not-completed", (
                    f"rank {self.rank}'s {req.call}{envelope} was never completed by a wait "
                    "or test, nor freed, before MPI_Finalize"),
                    (Call(self.rank, req.call, site_text(req.where)),))
        self.requests = ()
        for kind, obj, call, where in self.made:
            if getattr(obj, "freed", True):
                continue
            rule = LEAK_RULES[kind]
            if kind == "window":
                self._epochs(obj, call, where)
            if kind == "request" and obj.active:
                self.findings.add("request-not-completed", (
                    f"rank {self.rank}'s persistent request of {call} was active at "
                    "MPI_Finalize"), (Call(self.rank, call, site_text(where)),))
            self.findings.add(rule, f"rank {self.rank}'s {_name(kind, obj)} made by {call} "
                                    "was never freed", (Call(self.rank, call, site_text(where)),))
        self.made = ()


    def _epochs(self, win: Any, call: str, where: Any) -> None:
        """An epoch of ``win`` the rank left open (a fence epoch with operations and no
        closing fence, a start, post or lock without its complete, wait or unlock)."""
        e = win.epochs
        open_ = [what for what, is_open in (
            ("a fence epoch with operations (no closing MPI_Win_fence)", e.fence == 2),
            ("an access epoch of MPI_Win_start (no MPI_Win_complete)", e.start is not None),
            ("an exposure epoch of MPI_Win_post (no MPI_Win_wait)", e.post is not None),
            (f"a lock on rank(s) {', '.join(map(str, sorted(e.locks)))} (no MPI_Win_unlock)",
             bool(e.locks)),
            ("MPI_Win_lock_all (no MPI_Win_unlock_all)", e.lock_all is not None)) if is_open]
        if open_:
            self.findings.add("rma-epoch-open", f"rank {self.rank} left {'; '.join(open_)} "
                              f"on {win.name} at MPI_Finalize",
                              (Call(self.rank, call, site_text(where)),))


def _name(kind: str, obj: Any) -> str:
    name = getattr(obj, "name", None)
    return f"{kind} {name}" if isinstance(name, str) and name else kind


def _touched(req: Any, snap: np.ndarray) -> bool:
    """Whether the program wrote to ``req``'s buffer since it was posted (a send), or
    since its data was delivered (a receive)."""
    buf = req.buf
    if buf.shape != snap.shape:
        return True
    if req.kind != "recv" or req.status is None:  # (a send's, a collective's send buffer)
        return not np.array_equal(buf, snap, equal_nan=buf.dtype.kind in "fc")
    data = req.status.data
    if not isinstance(data, np.ndarray) or not buf.flags.c_contiguous or req.status.error \
            or getattr(req.datatype, "numpy_dtype", None) is None:
        return False
    got = np.ascontiguousarray(data).reshape(-1).view(_UINT8)
    mine = buf.reshape(-1).view(_UINT8)[: got.size]
    return not np.array_equal(mine, got[: mine.size])
