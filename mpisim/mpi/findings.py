"""Correctness findings: what a run shows to be wrong with a program, rule by rule.

A run's outcome (completed, deadlock, error) says how it ended; its *findings* say where
the program broke a rule of the standard, whether or not the run noticed: a send of
MPI_INT received as MPI_FLOAT completes (same size), yet MPI 4.1 §3.3.1 makes it
erroneous. Each :class:`Finding` names its rule (an id of :data:`RULES`), the standard's
section, its kind and every call involved (rank, MPI call, program place), so a report can
point at the lines to change.

Kinds, as correctness tools (MUST, the MPI Bugs Initiative) use them:

- ``error``: the program is erroneous (the standard says so, or leaves the result
  undefined);
- ``leak``: an object (request, communicator, group, datatype, window) never freed: not
  erroneous, but a resource lost until the process ends;
- ``warning``: legal but fragile (a message race whose outcome depends on arrival order).

Findings are gathered by one :class:`Findings` per run, which the layers that see a rule
broken (matching, collective meetings, one-sided epochs, the handle's calls) add to; the
same rule broken at the same places is one finding (a loop does not repeat it), and a run
keeps at most :data:`MAX_FINDINGS` of them (further ones are counted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["ERROR", "LEAK", "MAX_FINDINGS", "RULES", "WARNING", "Call", "Finding", "Findings",
           "Rule"]

ERROR, LEAK, WARNING = "error", "leak", "warning"

MAX_FINDINGS = 100
"""Distinct findings a run keeps one by one; further ones are counted."""


class Rule(NamedTuple):
    """One rule a finding breaks: the standard's section, the kind, what it says."""

    section: str
    kind: str
    title: str


RULES: dict[str, Rule] = {
    # point-to-point (chapter 3)
    "type-mismatch": Rule("3.3.1", ERROR, "the type signatures of a matched send and receive "
                          "differ"),
    "invalid-argument": Rule("3.2.2, 9.4", ERROR, "a call was given an invalid handle or "
                             "argument (its error class says which)"),
    "request-not-completed": Rule("3.7.3, 11.2.2", ERROR, "a nonblocking operation's request "
                                  "was never completed (wait, test) nor freed before "
                                  "MPI_Finalize"),
    "request-active-reuse": Rule("3.9", ERROR, "a persistent request was started while "
                                 "still active"),
    "request-active-free": Rule("6.12", ERROR, "a nonblocking collective's request was freed "
                                "(MPI_Request_free) while active"),
    "request-free-active-send": Rule("3.7.3", WARNING, "an active send request was freed "
                                     "(MPI_Request_free): legal, but the program can never "
                                     "learn that the send completed"),
    "request-free-active-recv": Rule("3.7.3", ERROR, "an active receive request was freed "
                                     "(MPI_Request_free): the program can never know when its "
                                     "buffer holds the message (\"an active receive request "
                                     "should never be freed\")"),
    "buffer-modified": Rule("3.7.2", ERROR, "the buffer of a pending nonblocking operation was "
                            "modified before the operation completed"),
    "recv-overlap": Rule("3.7.2", ERROR, "two pending receives (or a receive and a "
                         "nonblocking collective's receive buffer) write overlapping memory: "
                         "a receive buffer must not be accessed until its receive completes"),
    "message-race": Rule("3.5", WARNING, "a wildcard receive matched different senders in "
                         "different valid orders, and the program's outcome differs"),
    # collectives (chapter 6)
    "collective-order": Rule("6.1, 6.12", ERROR, "the members of a communicator made different "
                             "collective calls at the same point of their order"),
    "collective-root": Rule("6.1", ERROR, "the members of a rooted collective named different "
                            "roots"),
    "collective-op": Rule("6.9.1", ERROR, "the members of a reduction gave different ops"),
    "collective-count": Rule("6.1", ERROR, "the data a member sends in a collective differs in "
                             "size from what its receiver expects"),
    "collective-overlap": Rule("6.5, 6.7, 6.8", ERROR, "the counts and displacements of a v "
                               "or w collective make two blocks write the same location of "
                               "the receive buffer"),
    "collective-type": Rule("6.1, 3.3.1", ERROR, "the type signatures of a collective's members "
                            "differ (same size)"),
    # one-sided (chapter 12)
    "rma-conflict": Rule("12.7", ERROR, "conflicting accesses to one window location in one "
                         "epoch"),
    "rma-local-overlap": Rule("12.7, 3.7.2", ERROR, "an RMA operation and a send or receive "
                              "at its target access the same window bytes in one epoch, one "
                              "of them writing"),
    "rma-target-finalized": Rule("11.2.2, 12.2.5", ERROR, "a process was asked for one-sided "
                                 "communication after it called MPI_Finalize (its window was "
                                 "never freed)"),
    "rma-sync": Rule("12.5", ERROR, "an RMA call outside an epoch, or a synchronization call "
                     "out of place (MPI_ERR_RMA_SYNC)"),
    "rma-epoch-open": Rule("12.5", ERROR, "an access or exposure epoch was still open at "
                           "MPI_Finalize (a missing fence, complete, wait or unlock)"),
    # threads (§11.6)
    "thread-level": Rule("11.2.1, 11.6", ERROR, "an MPI call the process's level of thread "
                         "support forbids: from a second thread under MPI_THREAD_SINGLE, "
                         "from a thread other than the main one under MPI_THREAD_FUNNELED, "
                         "or while another thread is in a call under "
                         "MPI_THREAD_SERIALIZED"),
    "thread-same-request": Rule("11.6.2", ERROR, "two threads waited on the same request at "
                                "once"),
    "thread-concurrent-collective": Rule("11.6.2", ERROR, "two threads of a process were in "
                                         "collective calls on the same communicator at "
                                         "once: their order, which matching follows, is "
                                         "not defined"),
    "thread-probe-race": Rule("11.6.2, 3.8.2", ERROR, "two threads of a process probed the "
                              "same message before either received it: the receive after "
                              "each probe may take another message (MPI_Mprobe and "
                              "MPI_Mrecv exist for this)"),
    # resources
    "leak-request": Rule("3.9, 3.7.3", LEAK, "a persistent request was never freed"),
    "leak-comm": Rule("7.4.3", LEAK, "a communicator was never freed (MPI_Comm_free)"),
    "leak-group": Rule("7.3.3", LEAK, "a group was never freed (MPI_Group_free)"),
    "leak-datatype": Rule("5.1.9", LEAK, "a derived datatype was never freed (MPI_Type_free)"),
    "leak-window": Rule("12.2.5", LEAK, "a window was never freed (MPI_Win_free)"),
}
"""Every rule a finding may name: its id -> (section of MPI 4.1, kind, title)."""


class Call(NamedTuple):
    """One call a finding involves: its rank (in MPI_COMM_WORLD), MPI name and place in the
    program (``file.py:line (function)``, or a scenario's ``programs[0].ops[3]``).

    Parameters
    ----------
    rank
        The rank that made the call (in MPI_COMM_WORLD).
    call
        Its MPI name (``"MPI_Isend"``).
    where
        Its place in the program, or None when unknown.
    """

    rank: int
    call: str
    where: str | None = None

    def text(self) -> str:
        where = f" at {self.where}" if self.where else ""
        return f"rank {self.rank}: {self.call}{where}"


@dataclass
class Finding:
    """One rule broken: the rule's id, section and kind, what happened, the calls.

    A run's correctness checks make them (``Result.findings``).

    Parameters
    ----------
    rule
        The rule's id (``"type-mismatch"``, ``"request-not-completed"``...), a key of
        ``mpisim.mpi.findings.RULES``.
    message
        What happened, in words.
    calls
        The calls involved, each with its rank, MPI name and place in the program.
    section
        The section of MPI 4.1 that states the rule (``"3.7.3"``). Default: the rule's.
    kind
        ``"error"`` (the program is erroneous), ``"leak"`` (an object never freed) or
        ``"warning"``. Default: the rule's.
    """

    rule: str
    message: str
    calls: list[Call] = field(default_factory=list)
    section: str = ""
    kind: str = ""

    def __post_init__(self) -> None:
        rule = RULES[self.rule]
        self.section = self.section or rule.section
        self.kind = self.kind or rule.kind

    def to_dict(self) -> dict[str, Any]:
        """The JSON's ``findings[i]``."""
        return {"rule": self.rule, "section": self.section, "kind": self.kind,
                "message": self.message,
                "calls": [{"rank": c.rank, "call": c.call, "where": c.where} for c in self.calls]}

    def text(self) -> str:
        """One line: kind, rule, section, message; the calls follow in :meth:`lines`."""
        return f"{self.kind} [{self.rule}, MPI 4.1 §{self.section}]: {self.message}"

    def lines(self) -> list[str]:
        return [self.text(), *(f"    {c.text()}" for c in self.calls)]


class Findings:
    """The findings of one run, each distinct one once, in the order found."""

    def __init__(self) -> None:
        self._found: dict[tuple[Any, ...], Finding] = {}
        self.more = 0

    def add(self, rule: str, message: str, calls: list[Call] | tuple[Call, ...] = ()) -> None:
        """Record that ``rule`` was broken by ``calls`` (the same rule at the same calls is
        recorded once)."""
        key = (rule, tuple(calls))
        if key in self._found:
            return
        if len(self._found) >= MAX_FINDINGS:
            self.more += 1
            return
        self._found[key] = Finding(rule, message, list(calls))

    def __len__(self) -> int:
        return len(self._found)

    def list(self) -> list[Finding]:
        """The findings, in the order found."""
        return list(self._found.values())
