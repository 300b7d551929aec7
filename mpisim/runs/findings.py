"""A run's correctness findings, gathered when its Result is made.

Most rules are checked where the run sees them broken, into the run's
:class:`~mpisim.mpi.findings.Findings`: type signatures at each match (the transport),
buffers of pending operations at each wait or test, requests freed while active (the
handle). This module adds, once per Result, what only the end of the run shows:

- what each rank whose program returned left behind at MPI_Finalize (requests never
  completed, objects never freed, epochs left open: :mod:`mpisim.handle.lifecycle`);
- the mismatched collective calls the meetings found (:mod:`mpisim.collectives.meeting`),
  one finding per kind of difference;
- the conflicting RMA accesses (:mod:`mpisim.rma.conflicts`);
- the error that ended the run, when its class says the program passed an invalid handle
  or argument (MPI_ERR_COMM, MPI_ERR_TYPE, MPI_ERR_OP...) or made an RMA call out of its
  epoch: the outcome already says ERROR, the finding names the rule.
"""

from __future__ import annotations

from typing import Any

from ..engine.sites import site_text
from ..handle.access import lifecycle_of
from ..mpi.findings import ERROR, LEAK, WARNING, Call, Finding, Findings

__all__ = ["ARGUMENT_CLASSES", "gather"]

ARGUMENT_CLASSES = frozenset({
    "MPI_ERR_COMM", "MPI_ERR_TYPE", "MPI_ERR_OP", "MPI_ERR_COUNT", "MPI_ERR_RANK",
    "MPI_ERR_TAG", "MPI_ERR_ROOT", "MPI_ERR_GROUP", "MPI_ERR_ARG", "MPI_ERR_REQUEST",
    "MPI_ERR_BUFFER_NULL", "MPI_ERR_WIN", "MPI_ERR_DISP", "MPI_ERR_INFO", "MPI_ERR_KEYVAL",
    "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_LOCKTYPE", "MPI_ERR_ASSERT", "MPI_ERR_SIZE",
    "MPI_ERR_BASE"})
"""Error classes of an invalid handle or argument (MPI 4.1 §9.4, Table 9.1)."""

_KINDS = {"call": "collective-order", "root": "collective-root", "op": "collective-op",
          "count": "collective-count", "type": "collective-type"}


def gather(findings: Findings, handles: list[Any], finished: list[bool], meetings: Any,
           conflicts: Any, error: Any) -> list[Finding]:
    """Every finding of the run (see the module), in the order found."""
    for rank, handle in enumerate(handles):
        life = lifecycle_of(handle)
        if finished[rank] and life is not None:
            life.finalize()
    for m in meetings.mismatches.values():
        calls = tuple(Call(s.world, s.call, site_text(s.where))
                      for _, s in sorted(m.calls.items()))
        for kind in m.kinds:
            findings.add(_KINDS[kind], m.text(), calls)
    for text, first, second in conflicts.pairs:
        findings.add("rma-conflict", text, (
            Call(first.origin, first.call, site_text(first.where)),
            Call(second.origin, second.call, site_text(second.where))))
    if error is not None:
        _from_error(findings, error)
    order = {ERROR: 0, WARNING: 1, LEAK: 2}
    return sorted(findings.list(), key=lambda f: order.get(f.kind, 3))


def _from_error(findings: Findings, error: Any) -> None:
    """The error that ended the run, as the finding its class stands for (if any)."""
    calls = (Call(error.rank, error.call or "(before its MPI call)", error.where),)
    if error.error_class == "MPI_ERR_REQUEST" and error.call in ("MPI_Start", "MPI_Startall"):
        findings.add("request-active-reuse", error.message, calls)
    elif error.error_class == "MPI_ERR_RMA_SYNC":
        findings.add("rma-sync", error.message, calls)
    elif error.error_class in ARGUMENT_CLASSES:
        findings.add("invalid-argument", f"{error.error_class}: {error.message}", calls)
