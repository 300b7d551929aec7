"""Conflicting accesses to one target location in one epoch (MPI 4.1 §12.7).

Two RMA accesses to overlapping bytes of one target's window conflict when they are
concurrent and not both reads, unless both are accumulates with the same op (or one with
MPI_NO_OP, an atomic read): §12.7 leaves the outcome undefined (a put and a get: the get
may see either value; two puts: either wins). The run goes on, and its result carries a
warning naming both calls and where the program made them.

*Concurrent* means neither was completed before the other was made: an access stays open
until its origin's call that completes it returns (MPI_Win_flush, MPI_Win_unlock,
MPI_Win_complete, MPI_Win_fence); accesses of different fence rounds, or of different
exposure epochs of the target, are never concurrent (the synchronization between them
orders them, whatever instant each process leaves it); passive-target accesses are
concurrent while both are open (shared locks; exclusive locks serialize their epochs, so
theirs never are).
"""

from __future__ import annotations

from typing import Any

from ..engine.sites import site_text

__all__ = ["Access", "Conflicts"]

MAX_WARNINGS = 20
"""Distinct conflicts a run reports one by one; further ones are counted."""


class Access:
    """One operation's bytes at its target, and what it does there."""

    __slots__ = ("call", "epoch", "hi", "lo", "op", "open", "origin", "reads", "where")

    def __init__(self, call: str, origin: int, lo: int, hi: int, reads: bool, op: str | None,
                 epoch: tuple, where: Any) -> None:
        self.call = call
        self.origin = origin
        self.lo, self.hi = lo, hi      # byte offsets in the target's memory, hi exclusive
        self.reads = reads             # it only reads (get, or an accumulate with NO_OP)
        self.op = op                   # the accumulate family's op (None: put or get)
        self.epoch = epoch             # ("fence", round), ("pscw", post), ("passive",)
        self.open = True
        self.where = where

    def conflicts(self, other: Access) -> bool:
        """Whether ``other``, open, conflicts with this one (see the module)."""
        if not other.open or other.hi <= self.lo or self.hi <= other.lo:
            return False
        if self.epoch != other.epoch:
            return False
        if self.reads and other.reads:
            return False
        if self.op is not None and other.op is not None:
            same = self.op == other.op or "MPI_NO_OP" in (self.op, other.op)
            return not same
        return True


class Conflicts:
    """The open accesses of a run, per window and target, and the warnings found."""

    def __init__(self) -> None:
        self.open: dict[tuple[int, int], list[Access]] = {}
        self.found: dict[tuple, str] = {}
        self.pairs: list[tuple[str, Access, Access]] = []  # (text, first, second), as found
        self.more = 0

    def record(self, window: Any, target: int, access: Access) -> None:
        """A new access to ``target``'s part of ``window``: warn for each open one it
        conflicts with; keep it open."""
        key = (window.info.number, target)
        accesses = [a for a in self.open.get(key, ()) if a.open]
        for other in accesses:
            if access.conflicts(other):
                self._warn(window, target, other, access)
        accesses.append(access)
        self.open[key] = accesses

    def _warn(self, window: Any, target: int, first: Access, second: Access) -> None:
        pair = (window.info.number, target, first.call, site_text(first.where), second.call,
                site_text(second.where))
        if pair in self.found:
            return
        if len(self.found) >= MAX_WARNINGS:
            self.more += 1
            return
        lo, hi = max(first.lo, second.lo), min(first.hi, second.hi)
        self.found[pair] = (
            f"conflicting accesses (MPI 4.1 §12.7) to bytes {lo}..{hi - 1} of rank {target}'s "
            f"part of {window.name} in one epoch: rank {first.origin}'s {first.call}"
            f"{_at(first.where)} and rank {second.origin}'s {second.call}{_at(second.where)}; "
            "the outcome is undefined")
        self.pairs.append((self.found[pair], first, second))

    def warnings(self) -> list[str]:
        """The warnings of the run, in the order found."""
        out = list(self.found.values())
        if self.more:
            out.append(f"{self.more} more conflicting access(es) of RMA operations")
        return out


def _at(where: Any) -> str:
    text = site_text(where)
    return f" ({text})" if text else ""
