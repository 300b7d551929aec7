"""Where the members of a collective call meet: their calls must match (MPI 4.1 §6.1).

Every member of a communicator must make the same collective calls in the same order, a
blocking one never matching a nonblocking one (6.12), with the same root and op and type
signatures that match between each sender and receiver (6.1, 6.9); a program that does
not is erroneous, and real libraries then hang, fail or complete with a wrong result
(docs/guide/facts-collectives.md). Each call's :class:`Signature` is compared with those of
the members already in the same call (the communicator's n-th collective), as each member
enters; what differs is a :class:`Mismatch`, reported with each rank's call, arguments and
place, and answered as the profile's library answers it (:func:`answer`):

- a different collective, or a different root (of anything but a broadcast): the member
  that meets it hangs there (MPICH 5.0.2 and Open MPI 5.0.11 hang), so the run ends as a
  deadlock whose blocked calls say why;
- a broadcast whose ranks name different roots: the profile's ``bcast_root_mismatch``:
  ``own_root`` (each rank follows its own root's tree: Open MPI, hangs or completes as the
  tree goes) or ``lowest_self_root`` (every rank receives the data of the lowest rank that
  named itself root, none: a hang; MPICH on one node);
- a sender's block larger than the receiver's count: MPI_ERR_TRUNCATE at the receiver
  (both libraries); smaller: the profile's ``short_collective_message`` (MPI_ERR_OTHER in
  MPICH, nothing in Open MPI);
- a different op, or type signatures of the same size that differ: the call completes, each
  rank reducing with its own op (the libraries' results differ and are wrong).

Every mismatch is also a warning of the run, so ``mpisim check`` reports the program as
erroneous even when it completes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.sites import site_text
from ..mpi.errors import ErrOther, ErrTruncate, MPIError

__all__ = ["MISMATCH", "Meetings", "Mismatch", "Signature", "answer"]

MISMATCH = "mismatched collective calls"
"""How every mismatch's warning begins (``mpisim check`` looks for it)."""


@dataclass
class Signature:
    """What one member's call says: its name (``MPI_Bcast``; a nonblocking collective never
    matches a blocking one, 6.12), root, op, and the bytes it sends to and expects from each
    member (by rank in the communicator; an int: the same for every other member; a member
    not named: nothing known)."""

    root: int | None = None
    op: str | None = None
    sends: dict[int, int] | int = field(default_factory=dict)
    expects: dict[int, int] | int = field(default_factory=dict)
    types: str | None = None     # the elements' basic type, when known (INT, float64...)
    call: str = ""
    rank: int = 0                # in the communicator
    world: int = 0
    where: Any = None            # its place (a scenario's op, or a program site)
    args: str = ""               # the arguments as a report shows them

    def sent_to(self, rank: int) -> int | None:
        """The bytes it sends to ``rank`` (None: none, or not known)."""
        if rank == self.rank:
            return None
        return self.sends if isinstance(self.sends, int) else self.sends.get(rank)

    def expected_from(self, rank: int) -> int | None:
        if rank == self.rank:
            return None
        return self.expects if isinstance(self.expects, int) else self.expects.get(rank)

    def shown(self) -> str:
        where = f" at {site_text(self.where)}" if self.where else ""
        return f"rank {self.world}: {self.call}({self.args}){where}"


@dataclass
class Mismatch:
    """What differs at one meeting: its kinds (``call``, ``root``, ``op``, ``count``,
    ``type``) and each member's call."""

    comm: str
    index: int                   # the communicator's index-th collective call
    kinds: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    calls: dict[int, Signature] = field(default_factory=dict)

    def body(self) -> str:
        """What differs, then every member's call: ``rank R: MPI_X(args) at where``."""
        calls = "; ".join(s.shown() for _, s in sorted(self.calls.items()))
        return f"{', '.join(self.details)}: {calls}"

    def text(self) -> str:
        where = "" if self.comm == "MPI_COMM_WORLD" else f" on {self.comm}"
        return (f"{MISMATCH}{where} (its collective call {self.index + 1}; MPI 4.1 §6.1: "
                f"erroneous): {self.body()}")


class Meetings:
    """The signatures of the collective calls in progress, by (context, call index)."""

    def __init__(self) -> None:
        self._open: dict[tuple[int, int], dict[int, Signature]] = {}
        self.mismatches: dict[tuple[int, int], Mismatch] = {}
        self.errors: dict[tuple[int, int, int], MPIError] = {}  # raised at the call's end

    def meet(self, key: tuple[int, int], sig: Signature, members: int,
             comm: str) -> list[tuple[str, str]]:
        """Add ``sig`` to its meeting; the differences it has with the earlier members'
        calls, as (kind, detail) pairs."""
        met = self._open.setdefault(key, {})
        found: list[tuple[str, str]] = []
        for other in _compared(met, sig):
            found += _differences(other, sig)
        met[sig.rank] = sig
        if found or key in self.mismatches:
            m = self.mismatches.setdefault(key, Mismatch(comm, key[1]))
            for kind, detail in found:
                if kind not in m.kinds:
                    m.kinds.append(kind)
                if detail not in m.details:
                    m.details.append(detail)
            m.calls = dict(met)
        if len(met) == members:
            del self._open[key]
        return found

    def mismatch(self, key: tuple[int, int]) -> Mismatch | None:
        return self.mismatches.get(key)

    def warnings(self) -> list[str]:
        """One line per mismatched meeting, in the order they happened."""
        return [m.text() for m in self.mismatches.values()]


def _compared(met: dict[int, Signature], sig: Signature) -> list[Signature]:
    """The earlier members ``sig`` is compared with: the first one (everyone must match it)
    and the root (whom a rooted call sends to or receives from); the root with every one.
    So a meeting costs a comparison per member, not per pair."""
    if not met:
        return []
    if sig.root is not None and sig.root == sig.rank:
        return list(met.values())
    first = next(iter(met.values()))
    root = met.get(sig.root) if sig.root is not None else None
    return [first] if root is None or root is first else [first, root]


def _differences(a: Signature, b: Signature) -> list[tuple[str, str]]:
    """What differs between two members' calls of one meeting."""
    sends = a.sends
    if sends.__class__ is int and sends == a.expects == b.sends == b.expects \
            and a.call == b.call and a.root == b.root and a.op == b.op and a.types == b.types:
        return []  # the same call, the same bytes to and from every member (an allreduce's)
    if a.call != b.call:
        return [("call", f"{a.call} meets {b.call}")]
    out = []
    if a.root != b.root:
        out.append(("root", f"roots {a.root} and {b.root}"))
    if a.op is not None and b.op is not None and a.op != b.op:
        out.append(("op", f"ops {a.op} and {b.op}"))
    for s, r in ((a, b), (b, a)):
        sent, expected = s.sent_to(r.rank), r.expected_from(s.rank)
        if sent is not None and expected is not None and sent != expected:
            out.append(("count", f"rank {s.world} sends {sent} B where rank {r.world} "
                                 f"expects {expected} B"))
        elif sent is not None and sent == expected and s.types and r.types \
                and s.types != r.types:
            out.append(("type", f"types {s.types} and {r.types} (same size)"))
    return out


def answer(meetings: Meetings, key: tuple[int, int], sig: Signature,
           found: list[tuple[str, str]], profile: Any) -> str:
    """How the member entering with ``sig`` goes on, as the profile's library does: "run"
    (its algorithm), "hang" (never completes), or "root R" (a broadcast run from root R).
    A count mismatch records, for the receiving member, the error its call ends with."""
    kinds = {kind for kind, _ in found}
    for s, r in _pairs(meetings, key, sig):
        sent, expected = s.sent_to(r.rank), r.expected_from(s.rank)
        if sent is None or expected is None or sent == expected:
            continue
        error = _receive_error(s, r, sent, expected, profile)
        if error is not None:
            meetings.errors.setdefault((*key, r.world), error)
    if "call" in kinds:
        return "hang"
    if "root" in kinds:
        if sig.call not in ("MPI_Bcast", "MPI_Ibcast"):
            return "hang"
        if getattr(profile, "bcast_root_mismatch", "own_root") == "lowest_self_root":
            return _lowest_self_root(meetings, key, sig)
    return "run"


def _pairs(meetings: Meetings, key: tuple[int, int], sig: Signature) -> list[tuple[Any, Any]]:
    """(sender, receiver) pairs of ``sig`` with the members it was compared with."""
    m = meetings.mismatch(key)
    calls = m.calls if m else {}
    others = _compared({k: s for k, s in calls.items() if k != sig.rank}, sig)
    return [(o, sig) for o in others] + [(sig, o) for o in others]


def _receive_error(s: Signature, r: Signature, sent: int, expected: int,
                   profile: Any) -> MPIError | None:
    if sent > expected:
        return ErrTruncate(f"{r.call}: rank {s.world} sends {sent} B where this rank's call "
                           f"expects {expected} B (mismatched collective calls)")
    if getattr(profile, "short_collective_message", "completes") == "MPI_ERR_OTHER":
        return ErrOther(f"{r.call}: rank {s.world} sends {sent} B where this rank's call "
                        f"expects {expected} B (mismatched collective calls)")
    return None


def _lowest_self_root(meetings: Meetings, key: tuple[int, int], sig: Signature) -> str:
    m = meetings.mismatch(key)
    calls = m.calls if m else {sig.rank: sig}
    named = sorted(s.rank for s in calls.values() if s.root == s.rank)
    return f"root {named[0]}" if named else "hang"
