"""A run's correctness findings as a report shows them: leaks summarised per call site.

A program that never frees a datatype it makes on every rank leaks it once per rank: as
many findings, each the same rule at the same line. A report says it once, with a count
(``4 datatypes made by MPI_Type_commit at tut.py:5 never freed, ranks 0-3``); errors and
warnings are shown one by one, each with its calls. The result's JSON keeps every finding
(``Result.findings``); ``report(findings="all")`` (``--findings all``) lists each here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..mpi.findings import ERROR, LEAK, WARNING

__all__ = ["FINDINGS_SHOWN", "MAX_SHOWN", "finding_lines", "rank_ranges"]

FINDINGS_SHOWN = ("summary", "all")
"""How a report shows findings: leaks summarised per call site, or every one."""

MAX_SHOWN = 32
"""Entries a report lists (a summarised leak site is one); the rest are counted."""

_NOUNS = {"leak-datatype": "datatype", "leak-comm": "communicator", "leak-group": "group",
          "leak-window": "window", "leak-request": "persistent request"}
"""What each leak rule's object is called in a summary line."""


def finding_lines(findings: Sequence[Any], shown: str = "summary") -> list[str]:
    """The report's lines for ``findings``: a count by kind, then each error and warning
    with its calls and, with ``shown="summary"``, one line per leak rule and call site
    with its count and ranks (``"all"``: every finding with its calls)."""
    if not findings:
        return []
    kinds = [k for k in (ERROR, LEAK, WARNING) if any(f.kind == k for f in findings)]
    counts = ", ".join(f"{sum(f.kind == k for f in findings)} {k}" for k in kinds)
    entries = _entries(findings, summarise=shown != "all")
    lines = [f"correctness findings ({counts}):"]
    for entry in entries[:MAX_SHOWN]:
        lines += ["  " + ln for ln in (entry.lines() if not isinstance(entry, list)
                                       else [_leak_line(entry)])]
    if len(entries) > MAX_SHOWN:
        lines.append(f"  ... and {len(entries) - MAX_SHOWN} more")
    if any(isinstance(e, list) and len(e) > 1 for e in entries):
        lines.append("  (each leak once per call site, with its count: --findings all lists "
                     "every finding)")
    return lines


def _entries(findings: Sequence[Any], summarise: bool) -> list[Any]:
    """The findings in the order found, a leak's group (a list) in place of its first
    member when ``summarise``."""
    if not summarise:
        return list(findings)
    entries: list[Any] = []
    groups: dict[tuple, list[Any]] = {}
    for f in findings:
        if f.kind != LEAK:
            entries.append(f)
            continue
        key = (f.rule, tuple((c.call, _site(c.where)) for c in f.calls))
        group = groups.get(key)
        if group is None:
            group = groups[key] = []
            entries.append(group)
        group.append(f)
    return entries


def _leak_line(group: list[Any]) -> str:
    """One leak rule at one call site: how many, made where, on which ranks."""
    first = group[0]
    if len(group) == 1 and first.rule not in _NOUNS:
        return first.text()
    noun = _NOUNS.get(first.rule, "object")
    n = len(group)
    made = ""
    if first.calls:
        call = first.calls[0]
        where = call.where if all(f.calls[0].where == call.where for f in group) else \
            _site(call.where)  # (a replay's call numbers differ between ranks)
        made = f" made by {call.call}" + (f" at {where}" if where else "")
    ranks = sorted({c.rank for f in group for c in f.calls})
    on = f", {'rank' if len(ranks) == 1 else 'ranks'} {rank_ranges(ranks)}" if ranks else ""
    return (f"{first.kind} [{first.rule}, MPI 4.1 §{first.section}]: {n} {noun}"
            f"{'' if n == 1 else 's'}{made} never freed{on}")


def _site(where: str | None) -> str | None:
    """A call's place without a replay's call number (``call 7, prog.c:12`` -> ``prog.c:12``):
    the same line makes the same object as the 5th call of one rank and the 7th of another."""
    if where and where.startswith("call ") and ", " in where:
        return where.split(", ", 1)[1]
    return where


def rank_ranges(ranks: Iterable[int]) -> str:
    """Ranks as runs: ``0-3, 5, 7-9``."""
    runs: list[list[int]] = []
    for r in sorted(set(ranks)):
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
