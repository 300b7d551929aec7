"""Message races, explored rather than sampled (as ISP and DAMPI do).

A program with wildcard receives (MPI_ANY_SOURCE) may behave differently depending on
which sender's message arrives first; one run shows one order. :func:`check_races` runs
the program as written, finds for each wildcard receive the other senders that could have
matched it in some valid execution (a happens-before analysis of the run:
:mod:`mpisim.p2p.order`), and runs the program again along each alternative: the earlier
wildcard receives forced to the senders they matched, that one forced to the other sender
(the receive is posted with that source, as ISP rewrites it). Every new run may reveal new
alternatives for later receives; the exploration goes on, breadth first, until no order is
left or ``max_orders`` runs were made (the report says which, and how many orders it
tried).

A program whose ranks run threads (``mpi.spawn_thread``, ``threading.Thread`` in a script)
has a second kind of order: which of a rank's threads runnable at one instant runs first.
After the wildcard orders, the exploration runs the program with the thread orders of the
seeds 1, 2, ... (each seed draws one interleaving: :mod:`mpisim.engine.threads`), as many
as ``max_orders`` leaves room for, and compares them as it compares the others.

Two orders *differ* when their outcomes (completed, deadlock, error and its class), the
calls a deadlock blocks or an error ends, the correctness findings (rule and calls) or the
values the rank programs return differ. A program whose orders differ is *racy*: the
report names the two orders, the wildcard receives whose choice decides between them (rank,
call, place, the sender in each), and what differs. Orders that only change which receive
gets which message, with the same outcome and results, are benign (a reduction of
values received in any order is race-free).

A recording (``check --races run.trace``) replays without its data, so two orders that
deliver different bytes to a wildcard receive look alike; but the recorder hashed each
message's bytes at its send (MPI 4.1 §3.7.2's buffers, unless recorded with ``--no-hash``).
Orders whose outcomes agree are then compared on those hashes: a wildcard receive that gets
the bytes of one sender in one order and other bytes from another sender in the other makes
the program ``RACY (data)`` (it may depend on which), the receive and the two senders named;
senders of the same bytes leave it ``RACE-FREE``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..handle.access import explore_races, threads_of
from ..mpi.findings import Call, Finding
from ..p2p.order import Order, Wildcard
from .target import Target

__all__ = ["MAX_ORDERS", "Explored", "Races", "check_races"]

MAX_ORDERS = 32
"""Runs a race exploration makes at most by default (``max_orders``)."""

Forced = dict[tuple[int, int], int]  # (rank, wildcard number) -> the sender it must match


class Explored:
    """The rank programs with some wildcard receives forced to a sender (picklable);
    ``order`` is the happens-before record of the run they were last called in."""

    def __init__(self, program: Any, forced: Forced) -> None:
        self.program = program
        self.forced = forced
        self.order: Order | None = None
        self.handles: list[Any] = []  # the ranks it was called for (their threads, after)
        self.__name__ = getattr(program, "__name__", "program")

    def threaded(self) -> bool:
        """Whether a rank of the run it was last called in spawned threads."""
        return any(threads_of(h) for h in self.handles)

    def __call__(self, mpi: Any, **params: Any) -> Any:
        self.handles.append(mpi)
        self.order = explore_races(mpi, {k: s for (r, k), s in self.forced.items()
                                         if r == mpi.rank})
        self.order.forced = self.forced  # (for the processes the ranks spawn)
        program = self.program
        if isinstance(program, list | tuple):
            program = program[mpi.rank]
        return program(mpi, **params)


@dataclass
class Tried:
    """One order tried: the forced choices, the run's result, its wildcard matches."""

    forced: Forced
    result: Any
    wildcards: list[Wildcard]
    seed: int = 0  # the thread order's seed (0: threads in the order they became runnable)

    def digest(self) -> tuple:
        """What two orders are compared on (see the module)."""
        r = self.result
        error = None if r.error is None else (r.error.rank, r.error.call, r.error.error_class)
        blocked = () if r.deadlock is None else tuple((b.rank, b.call)
                                                      for b in r.deadlock.blocked)
        findings = tuple(sorted((f.rule, tuple((c.rank, c.call) for c in f.calls))
                                for f in r.findings))
        return (r.outcome.value, error, blocked, findings, tuple(map(repr, r.returned)))

    def describe(self) -> str:
        r = self.result
        what = r.outcome.value
        if r.error is not None:
            what += f" ({r.error.error_class} at rank {r.error.rank}, {r.error.call})"
        if r.deadlock is not None:
            what += " (blocked: " + ", ".join(f"rank {b.rank} in {b.call}"
                                               for b in r.deadlock.blocked[:4]) + ")"
        errors = sorted({f.rule for f in r.findings if f.kind == "error"})
        if errors:
            what += "; findings: " + ", ".join(errors)
        return what


@dataclass
class Races:
    """The answer of :func:`check_races`; ``to_dict()`` is ``check --races --json``.

    Parameters
    ----------
    name
        The name of what was explored.
    tried
        The orders run, the program as written first: each with the wildcard receives it
        forced, its Result (``.result``) and what each wildcard receive matched.
    alternatives
        How many (wildcard receive, other possible sender) pairs were found.
    max_orders
        The most runs allowed.
    exhausted
        Whether every order found was tried (False: ``max_orders`` was reached first).
    differing
        The indices in ``tried`` of two orders that differ, or None (no race found).
    deciding
        The wildcard receives whose choice decides between those two orders, in words
        (rank, call, place, the sender in each).
    data
        Whether what differs is the bytes a wildcard receive gets (a recording's hashes),
        the outcomes being the same: ``RACY (data)``.
    blind
        Whether the orders were explored on a recording that holds no data hashes (made
        with ``--no-hash``): orders that deliver different bytes cannot be told apart.
    """

    name: str
    tried: list[Any]             # each a Tried: forced choices, result, wildcard matches
    alternatives: int           # (wildcard receive, other sender) pairs found
    max_orders: int
    exhausted: bool             # every order found was tried (the bound was not reached)
    differing: tuple[int, int] | None = None  # indices into tried
    deciding: list[str] = field(default_factory=list)
    data: bool = False          # the orders differ only in the bytes a receive gets
    blind: bool = False         # a recording without the data's hashes (--no-hash)

    @property
    def racy(self) -> bool:
        return self.differing is not None

    @property
    def wildcards(self) -> int:
        """Wildcard receives matched in the run as written."""
        return len(self.tried[0].wildcards) if self.tried else 0

    @property
    def exit_code(self) -> int:
        """The CLI's status: 0 race-free (as far as explored), 8 racy (a finding)."""
        return 8 if self.racy else 0

    def finding(self) -> Finding | None:
        """The race as a correctness finding (kind warning), with the deciding calls."""
        if self.differing is None:
            return None
        a, b = (self.tried[i] for i in self.differing)
        calls = [Call(w.rank, w.call, w.where) for w in _decided(a, b)]
        if self.data:
            return Finding("message-race", "the orders deliver different bytes to a wildcard "
                           "receive: " + "; ".join(self.deciding), calls)
        return Finding("message-race", f"order {self.differing[0] + 1}: {a.describe()}; "
                       f"order {self.differing[1] + 1}: {b.describe()}", calls)

    def to_dict(self) -> dict[str, Any]:
        found = self.finding()
        return {"scenario": self.name, "racy": self.racy, "data": self.data,
                "orders_tried": len(self.tried),
                "max_orders": self.max_orders, "exhausted": self.exhausted,
                "wildcard_receives": self.wildcards, "alternatives": self.alternatives,
                "orders": [{"forced": [{"rank": r, "receive": k, "source": s}
                                       for (r, k), s in sorted(t.forced.items())],
                            "thread_seed": t.seed,
                            "outcome": t.result.outcome.value,
                            "findings": [f.rule for f in t.result.findings]}
                           for t in self.tried],
                "race": None if found is None else found.to_dict(),
                "as_written": self.tried[0].result.to_dict() if self.tried else None}

    def report(self) -> str:
        head = ("RACY (data)" if self.data else "RACY") if self.racy else "RACE-FREE"
        bound = ("every order found" if self.exhausted else
                 f"stopped at the bound, max_orders = {self.max_orders}")
        threads = sum(1 for t in self.tried if t.seed)
        lines = [f"{self.name}: {head} ({len(self.tried)} order(s) tried, {bound}; "
                 f"{self.wildcards} wildcard receive(s) as written, {self.alternatives} "
                 "alternative match(es) found"
                 + (f"; {threads} thread order(s)" if threads else "") + ")"]
        if self.racy and self.differing is not None:  # (racy: two orders differ)
            a, b = self.differing
            same = self.tried[a].describe() == self.tried[b].describe() and not self.data
            for i in (a, b):
                lines.append(f"  order {i + 1}: {_choices(self.tried[i])}")
                lines.append(f"      -> {self.tried[i].describe()}")
                if same:  # (what differs is what the programs returned)
                    lines.append(f"         returned {_short(self.tried[i].result.returned)}")
            lines += ["  decided by:"] + [f"    {d}" for d in self.deciding]
        elif self.alternatives:
            lines.append("  the orders differ only in which receive gets which message: "
                         "same outcome, findings and results"
                         + ("; the recording holds no data hashes (recorded with --no-hash): "
                            "whether the messages' bytes differ is not known" if self.blind
                            else ""))
        elif threads:
            lines.append("  the threads' orders tried give the same outcome, findings and "
                         "results")
        elif not self.wildcards:
            lines.append("  no wildcard receive: the matching is deterministic")
        return "\n".join(lines)


def check_races(scenario: Any, *, max_orders: int = MAX_ORDERS, **run_kwargs: Any) -> Races:
    """Explore the matching orders of ``scenario``'s wildcard receives (see the module).

    The program runs as written, then again with each wildcard receive (MPI_ANY_SOURCE)
    forced to each other sender that could have matched it, breadth first. A program whose
    orders differ (outcome, blocked calls, findings or returned values) is racy.

    Parameters
    ----------
    scenario
        What to explore: a scenario file's path, a loaded ``mpisim.scenario.Scenario`` (or
        an mpi4py script's), or a rank program function (then ``run_kwargs`` carry
        ``ranks=``).
    max_orders
        The most runs made, the first being the program as written (default 32); the
        answer says whether every order was tried (``exhausted``).
    **run_kwargs
        The arguments of each run, as :func:`mpisim.run` takes them (``ranks``,
        ``params``, ``network``, ``mpi``...); with a scenario, they override its settings.

    Returns
    -------
    Races
        ``racy`` (bool), the orders tried, the wildcard receives whose choice decides
        between two orders that differ, ``report()`` and ``exit_code``.

    Raises
    ------
    ValueError
        ``max_orders`` is not a positive whole number.
    """
    if isinstance(max_orders, bool) or not isinstance(max_orders, int) or max_orders < 1:
        raise ValueError(f"max_orders: expected a positive integer, got {max_orders!r}")
    target = Target.of(scenario, run_kwargs)
    program = target.run_kwargs({})["program"]
    frontier: list[Forced] = [{}]
    seen = {_key({})}
    tried: list[Tried] = []
    alternatives = 0
    while frontier and len(tried) < max_orders:
        forced = frontier.pop(0)
        explored = Explored(program, forced)
        result = target.run({}, program=explored)
        order = explored.order
        wildcards = order.wildcards if order is not None else []
        tried.append(Tried(forced, result, wildcards))
        for i, w in enumerate(wildcards):
            if (w.rank, w.number) in forced:
                continue
            prefix = {(v.rank, v.number): v.source for v in wildcards[:i]}
            for source in order.alternatives(w):  # type: ignore[union-attr]  # (wildcards: an order)
                alternatives += 1
                choice = {**prefix, (w.rank, w.number): source}
                if _key(choice) not in seen:
                    seen.add(_key(choice))
                    frontier.append(choice)
    if tried and explored.threaded():  # (the last run's threads: the program has them)
        for seed in range(1, max_orders - len(tried) + 1):
            explored = Explored(program, {})
            tried.append(Tried({}, target.run({}, program=explored, seed=seed), [], seed))
    sampled = any(t.seed for t in tried)  # (thread orders are drawn, never exhausted)
    races = Races(target.name if hasattr(target, "name") else _name(tried), tried,
                  alternatives, max_orders, not frontier and not sampled)
    _judge(races, program)
    return races


def _judge(races: Races, program: Any) -> None:
    """The two orders that differ, if any (outcomes first, then the bytes a recording's
    wildcard receives get), and the choices that decide between them."""
    tried = races.tried
    base = tried[0].digest()
    other = next((i for i, t in enumerate(tried[1:], 1) if t.digest() != base), None)
    if other is None:
        races.blind = callable(getattr(program, "holds_data", None)) and \
            not program.holds_data()
        data = _data_race(program, tried)
        if data is not None:
            races.differing, races.deciding, races.data = (0, data[0]), data[1], True
        return
    races.differing = (0, other)
    races.deciding = [_decision(w, tried[0], tried[other])
                      for w in _decided(tried[0], tried[other])]
    if tried[other].seed:
        races.deciding.append(
            "the order in which a rank's threads runnable at one instant run: as "
            f"written, against the thread order of seed {tried[other].seed}")


def _data_race(program: Any, tried: list[Tried]) -> tuple[int, list[str]] | None:
    """The first order that delivers other bytes than the order as written to one of its
    wildcard receives (a recording's hashes, :meth:`ReplayProgram.sent_data`), and the
    receives that get them, in words; None when every order delivers the same bytes, or
    the bytes are not known."""
    sent_data = getattr(program, "sent_data", None)
    if sent_data is None or not tried:
        return None
    first = {(w.rank, w.number): w for w in tried[0].wildcards}
    for i, t in enumerate(tried[1:], 1):
        words = []
        for w in t.wildcards:
            mine = first.get((w.rank, w.number))
            if mine is None or mine.source == w.source:
                continue
            a, b = sent_data(mine.source, mine.sent_at), sent_data(w.source, w.sent_at)
            if a is not None and b is not None and a != b:
                words.append(_bytes_decision(w, mine, a, b))
        if words:
            return i, words
    return None


def _bytes_decision(w: Wildcard, mine: Wildcard, a: str, b: str) -> str:
    where = f" at {w.where}" if w.where else ""
    return (f"rank {w.rank}'s wildcard receive #{w.number + 1} ({w.call}{where}) gets "
            f"rank {mine.source}'s bytes (hash {a}, sent at {mine.sent_at}) in one order, "
            f"rank {w.source}'s (hash {b}, sent at {w.sent_at}) in the other: the program "
            "may depend on which")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _key(forced: Forced) -> tuple:
    return tuple(sorted(forced.items()))


def _name(tried: list[Tried]) -> str:
    return tried[0].result.scenario if tried else "program"


def _decided(a: Tried, b: Tried) -> list[Wildcard]:
    """The wildcard receives of ``b``'s forced choices that ``a`` matched otherwise."""
    matched = {(w.rank, w.number): w for w in a.wildcards}
    out = []
    for w in b.wildcards:
        mine = matched.get((w.rank, w.number))
        if (w.rank, w.number) in b.forced and (mine is None or mine.source != w.source):
            out.append(w)
    return out


def _decision(w: Wildcard, a: Tried, b: Tried) -> str:
    mine = next((v for v in a.wildcards if (v.rank, v.number) == (w.rank, w.number)), None)
    first = f"rank {mine.source}" if mine is not None else "no message"
    where = f" at {w.where}" if w.where else ""
    return (f"rank {w.rank}'s wildcard receive #{w.number + 1} ({w.call}{where}): "
            f"matched {first} in one order, rank {w.source} in the other")


def _choices(t: Tried) -> str:
    if t.seed:
        return f"the threads' order of seed {t.seed} (run it with --set seed={t.seed})"
    if not t.forced:
        return "as written (the simulator's own order)"
    return "; ".join(f"rank {r}'s wildcard receive #{k + 1} from rank {s}"
                     for (r, k), s in sorted(t.forced.items()))
