"""The result of a run: outcome, summaries, the explanation, the trace, the JSON.

``to_json()`` is deterministic (same scenario, parameters and seed: byte-identical text),
with the keys listed in ``docs/contract.md``. ``report()`` is for people: the outcome, the
cause (who waits for whom, or which call failed and why) and what to try.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..buffered.summary import BufferSummary
from ..engine.sites import site_text
from ..engine.trace import Trace
from ..mpi.causes import Cause, advice
from ..mpi.findings import ERROR, Finding
from ..report.findings import finding_lines
from ..report.text import settings_text
from ..values.units import format_size, format_time
from .deadlock import Deadlock

__all__ = ["IN_FORCE", "ErrorInfo", "Outcome", "RankSummary", "Result", "settings_in_force",
           "unreceived_entry"]


class Outcome(Enum):
    """How a run ended; ``.value`` is the JSON word, ``exit_code`` the CLI's status."""

    COMPLETED = "completed"
    DEADLOCK = "deadlock"
    ERROR = "error"
    TIMEOUT = "timeout"

    @property
    def exit_code(self) -> int:
        """The CLI's exit status for this outcome: 0 completed, 3 deadlock, 4 error,
        5 timeout (``docs/contract.md`` lists every code)."""
        return {"completed": 0, "deadlock": 3, "error": 4, "timeout": 5}[self.value]

    def __str__(self) -> str:
        return self.value


@dataclass
class ErrorInfo:
    """The error that ended a run: an uncaught MPIError, or an exception in a program.

    Parameters
    ----------
    rank
        The rank whose error ended the run.
    call
        The MPI call that failed (``"MPI_Bsend"``), or for an exception in the program the
        last call it made (None before its first).
    error_class
        The MPI error class (``"MPI_ERR_BUFFER"``), or the Python exception's class name.
    time
        The simulated time of the error, in seconds.
    message
        What went wrong, in words.
    info
        Figures that go with an MPI error (for an overflow, in bytes: ``requested``,
        ``entry_bytes``, ``free``, ``largest_free``, ``capacity``, ``entries``).
    where
        The call's place in the program (``file.py:12 (program)``), when known.
    traceback
        The program's traceback, for an exception raised by the program (not by mpisim).
    """

    rank: int
    call: str | None
    error_class: str
    time: float
    message: str
    info: dict[str, Any] = field(default_factory=dict)
    where: str | None = None
    traceback: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON's ``error``: rank, call, class, time, message, ``where`` when known,
        and an overflow's figures (requested, entry_bytes, free, largest_free...)."""
        d = {"rank": self.rank, "call": self.call, "error_class": self.error_class,
             "time": self.time, "message": self.message}
        if self.where is not None:
            d["where"] = self.where
        for key in ("requested", "entry_bytes", "free", "largest_free", "capacity", "entries"):
            if key in self.info:
                d[key] = self.info[key]
        return d


@dataclass
class RankSummary:
    """One rank at the end of the run (the JSON's ``ranks[r]``).

    Parameters
    ----------
    rank
        The rank.
    finished
        Whether its program returned.
    end_time
        When it returned, in simulated seconds (None if it did not).
    buffer
        Its attached buffer's summary: ``size``, ``peak_used``, ``peak_live``,
        ``peak_entries``, ``bsends``, ``overflows`` (bytes and counts).
    buffers
        The summaries of its communicator and session buffers (MPI 4.1), by name.
    spawned
        For a process started by MPI_Comm_spawn (MPI 4.1 §11.8), how: ``by`` (the
        spawning processes), ``call``, ``time`` (its start, simulated seconds),
        ``world_rank`` (its rank in its own MPI_COMM_WORLD), ``appnum`` and ``program``;
        None for the run's own ranks.
    """

    rank: int
    finished: bool
    end_time: float | None
    buffer: BufferSummary
    buffers: dict[str, BufferSummary] = field(default_factory=dict)  # communicators', sessions'
    spawned: dict[str, Any] | None = None  # how a spawned process was started

    def to_dict(self) -> dict[str, Any]:
        """The JSON's ``ranks[r]``: whether it finished, when, and its buffers' summaries."""
        d: dict[str, Any] = {"rank": self.rank, "finished": self.finished,
                             "end_time": self.end_time, "buffer": self.buffer.to_dict()}
        if self.buffers:
            d["buffers"] = {name: s.to_dict() for name, s in self.buffers.items()}
        if self.spawned is not None:
            d["spawned"] = dict(self.spawned)
        return d


@dataclass
class Result:
    """Everything a run produced.

    :func:`mpisim.run`, :meth:`mpisim.Simulation.run`, a scenario's ``run()`` and the
    what-if functions return one; you read its fields, you do not build one. Times are
    simulated seconds, sizes bytes. ``to_json()`` gives the JSON ``docs/contract.md``
    describes, ``report()`` an account in words, and in a notebook it shows itself
    (outcome, cause, buffers).

    Parameters
    ----------
    scenario
        The run's name (``name=``, else the program's or the scenario file's).
    outcome
        How the run ended: ``Outcome.COMPLETED``, ``DEADLOCK``, ``ERROR`` or ``TIMEOUT``.
    sim_time
        The simulated time at which it ended, in seconds.
    params
        The keyword arguments the programs were given (``params=``).
    ranks
        Each rank's summary, by rank: whether and when it finished, and its attached
        buffer's peaks (``ranks[r].buffer.peak_used``, bytes).
    returned
        What each rank's program returned (None for a rank that did not finish).
    messages
        Counts over the run: ``{"sent": ..., "received": ..., "bytes": ...}``.
    trace
        The recorded calls, messages and buffer events that plots read (empty with
        ``trace=False``).
    error
        The error that ended the run (rank, call, MPI error class, message, place), or
        None.
    deadlock
        Who waits for whom when the run deadlocked (blocked calls, cycles), or None.
    timeout_reason
        Why a run stopped early (``until`` or ``max_events`` reached), or None.
    warnings
        Sentences about things that are not errors (a trace cut short, mismatched
        collective calls, conflicting one-sided accesses).
    unreceived
        The messages sent but never received: ``src``, ``dst``, ``tag``, ``bytes``,
        ``call`` and ``where`` of each.
    settings
        The settings in force and where each came from: ``{"mpi.allocator": {"value":
        "circular", "from": "profile"}, ...}``.
    findings
        The correctness findings (erroneous calls, leaks, warnings), each citing the rule
        of the MPI standard it breaks.

    Examples
    --------
    A buffered send into a buffer too small for it:

    >>> import mpisim as ms
    >>> def program(mpi):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.buffer_attach(size=100)
    ...     yield mpi.bsend(count=100, datatype=ms.INT, dest=peer, tag=0)
    ...     yield mpi.recv(count=100, datatype=ms.INT, source=peer, tag=0)
    >>> result = ms.run(program, ranks=2)
    >>> result.outcome, result.exit_code
    (<Outcome.ERROR: 'error'>, 4)
    >>> result.error.error_class, result.error.rank
    ('MPI_ERR_BUFFER', 0)
    >>> print(result.report())  # doctest: +ELLIPSIS
    program: ERROR at t = 0 s (2 ranks, 0 messages sent, 0 received, 0 B)
      rank 0, MPI_Bsend at ...
      MPI_ERR_BUFFER: bsend of 400 B needs an entry of 496 B ...
    >>> result.to_dict()["ranks"][0]["buffer"]["overflows"]
    1
    """

    scenario: str
    outcome: Outcome
    sim_time: float
    params: dict[str, Any]
    ranks: list[RankSummary]
    returned: list[Any]
    messages: dict[str, int]
    trace: Trace
    error: ErrorInfo | None = None
    deadlock: Deadlock | None = None
    timeout_reason: str | None = None
    warnings: list[str] = field(default_factory=list)
    unreceived: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)  # correctness (mpisim.mpi.findings)

    @property
    def erroneous(self) -> bool:
        """Whether the run found the program erroneous: a finding of kind ``error``
        (leaks and warnings are not errors)."""
        return any(f.kind == ERROR for f in self.findings)

    @property
    def exit_code(self) -> int:
        """The CLI's exit status for this run (see :attr:`Outcome.exit_code`)."""
        return self.outcome.exit_code

    def failing_ranks(self) -> list[int]:
        """The ranks to look at first: the one whose error ended the run, the blocked ones
        (in the deadlock's order), those that overflowed, and after a timeout the unfinished
        ones (an error stops the others where they are: they did not fail). Reports and
        plots show these before the rest."""
        first: list[int] = []
        if self.error is not None:
            first.append(self.error.rank)
        if self.deadlock is not None:
            first += [b.rank for b in self.deadlock.blocked]
        first += [r.rank for r in self.ranks if r.buffer.overflows]
        if self.outcome is Outcome.TIMEOUT:
            first += [r.rank for r in self.ranks if not r.finished]
        return list(dict.fromkeys(first))

    def ranks_in_order(self) -> list[int]:
        """Every rank, :meth:`failing_ranks` first, then the rest by number."""
        first = self.failing_ranks()
        return first + [r.rank for r in self.ranks if r.rank not in set(first)]

    # -- JSON ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The result as the JSON's plain data (the keys ``docs/contract.md`` lists)."""
        return {
            "scenario": self.scenario,
            "outcome": self.outcome.value,
            "sim_time": _finite(self.sim_time),
            "params": _jsonable(self.params),
            "error": None if self.error is None else _jsonable(self.error.to_dict()),
            "deadlock": None if self.deadlock is None else self.deadlock.to_dict(),
            "timeout": self.timeout_reason,
            "ranks": [r.to_dict() for r in self.ranks],
            "messages": dict(self.messages),
            "warnings": list(self.warnings),
            "unreceived": [dict(u) for u in self.unreceived],
            "settings": {k: dict(v) for k, v in self.settings.items()},
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self, indent: int | None = None) -> str:
        """:meth:`to_dict` as JSON text: byte-identical for the same scenario, parameters
        and seed (no NaN: a time never reached is null).

        Parameters
        ----------
        indent
            Spaces per level of indentation; None (the default): one line.
        """
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    # -- views: the report and plot modules import no model type, so they stand below this
    # one; they are imported here, on first use, so that a run never loads matplotlib
    def to_chrome_trace(self, path: Any) -> None:
        """Write the run as a Chrome/Perfetto trace (JSON) to ``path``: one track per rank,
        its calls as slices and its buffer as counters (see :mod:`mpisim.plot` for figures).

        Parameters
        ----------
        path
            The file to write (a str or path; ``run.json``), which ui.perfetto.dev or
            chrome://tracing opens.
        """
        from ..report.export import write_chrome_trace

        write_chrome_trace(self, path)

    def plot_occupancy(self, **kwargs: Any) -> Any:
        """The figure of buffer occupancy over simulated time: used bytes, live entries and
        the largest free block per rank (see :func:`mpisim.plot.plot_occupancy`).

        Parameters
        ----------
        **kwargs
            Passed to :func:`mpisim.plot.plot_occupancy`: ``ranks``, ``ax``.
        """
        from ..plot import plot_occupancy

        return plot_occupancy(self, **kwargs)

    def plot_timeline(self, **kwargs: Any) -> Any:
        """The figure of each rank's calls and messages over simulated time (see
        :func:`mpisim.plot.plot_timeline`).

        Parameters
        ----------
        **kwargs
            Passed to :func:`mpisim.plot.plot_timeline`: ``ranks``, ``ax``,
            ``max_messages``, ``window``.
        """
        from ..plot import plot_timeline

        return plot_timeline(self, **kwargs)

    def plot_layout(self, rank: int, **kwargs: Any) -> Any:
        """The figure of ``rank``'s buffer, byte by byte, over simulated time: where each
        entry was placed and when it was freed (see :func:`mpisim.plot.plot_layout`).

        Parameters
        ----------
        rank
            The rank whose attached buffer is drawn.
        **kwargs
            Passed to :func:`mpisim.plot.plot_layout`: ``time``, ``ax``, ``buffer``.
        """
        from ..plot import plot_layout

        return plot_layout(self, rank, **kwargs)

    def _repr_html_(self) -> str:
        """Jupyter: outcome badge, cause, buffer peaks, occupancy."""
        from ..report.display import result_html

        return result_html(self)

    def __repr__(self) -> str:
        return (f"<Result {self.scenario}: {self.outcome.value} at "
                f"{format_time(self.sim_time)}, {len(self.ranks)} ranks>")

    # -- text ----------------------------------------------------------------------------
    def report(self, findings: str = "summary") -> str:
        """A readable account of the run.

        Parameters
        ----------
        findings
            How the correctness findings are listed: ``"summary"`` (default), each error
            and warning with its calls and each leak once per call site with its count and
            ranks; ``"all"``, every finding with its calls (``findings`` keeps them all).
        """
        m = self.messages
        spawned = sum(1 for r in self.ranks if r.spawned is not None)  # (MPI 4.1 §11.8)
        processes = _plural(len(self.ranks) - spawned, "rank") + (
            f" and {spawned} spawned" if spawned else "")
        lines = [f"{self.scenario}: {self.outcome.value.upper()} at t = "
                 f"{format_time(self.sim_time)} ({processes}, "
                 f"{_plural(m['sent'], 'message')} sent, {m['received']} received, "
                 f"{format_size(m['bytes'])})"]
        if self.deadlock is not None:
            lines += _deadlock_lines(self.deadlock, {r.rank: r.spawned for r in self.ranks
                                                     if r.spawned is not None})
        if self.error is not None:
            lines += _error_lines(self.error)
        if self.timeout_reason:
            lines.append(f"  stopped: {self.timeout_reason}")
            if self.outcome is Outcome.TIMEOUT:
                lines.append("  try: " + ("a larger --timeout if the program is just slow; "
                             "otherwise look at the line a rank's own code was running (a "
                             "loop that never ends)" if "(--timeout)" in self.timeout_reason
                             else "a larger until or max_events if the program is just "
                             "long; otherwise look for a loop that never ends"))
        if self.settings:
            lines.append("  settings in force: " + settings_text(self.settings))
        lines += [f"  warning: {w}" for w in self.warnings]
        lines += _unreceived_lines(self.unreceived)
        lines += finding_lines(self.findings, findings)
        lines += _buffer_lines([self.ranks[r] for r in self.ranks_in_order()],
                               set(self.failing_ranks()))
        return "\n".join(lines)


IN_FORCE = (("profile", "mpi"), ("allocator", "mpi"), ("sizing", "mpi"),
            ("bsend_overhead", "mpi"), ("eager_limit", "network"), ("eager_cells", "network"))
"""The settings a report shows as in force: (name, group)."""


def settings_in_force(given_mpi: Any, config: Any, given_net: Any, net: Any
                      ) -> dict[str, dict[str, Any]]:
    """``{"mpi.allocator": {"value": "circular", "from": "given"}, ...}``: the effective
    value of each IN_FORCE setting and where it came from: "given" to the run, or the
    profile's ("profile"; the profile itself is "default" when it is the standard one and
    nobody named it). The scenario edge tells "given" apart into the file and ``--set``.
    A profile named by its short name (``mpich``) carries the release it models
    (``"release": "MPICH 4.0"``), which reports print beside it."""
    profile = config.profile.name
    values = {"mpi.profile": profile, "mpi.allocator": config.allocator,
              "mpi.sizing": config.sizing, "mpi.bsend_overhead": config.bsend_overhead,
              "network.eager_limit": net.eager_limit, "network.eager_cells": net.eager_cells}
    out: dict[str, dict[str, Any]] = {}
    for name, group in IN_FORCE:
        given = getattr(given_mpi if group == "mpi" else given_net, name, None)
        source = "given" if given is not None and name != "sizing" else "profile"
        if name == "profile":
            source = "default" if given == "standard" else "given"
        out[f"{group}.{name}"] = {"value": values[f"{group}.{name}"], "from": source}
    from ..profiles.names import label, release

    if label(profile) != profile:  # a short name: the release it stands for, in every report
        out["mpi.profile"]["release"] = release(profile)
    return out


def unreceived_entry(msg: Any) -> dict[str, Any]:
    """A message never received, as the result reports it (the send's place included)."""
    return {"src": msg.src, "dst": msg.dst, "tag": msg.tag, "bytes": msg.nbytes,
            "call": msg.call.replace("(internal)", ""), "where": site_text(msg.where)}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _deadlock_lines(dl: Deadlock, spawned: dict[int, Any] | None = None) -> list[str]:
    ranks = len({b.rank for b in dl.blocked})
    threads = sum(b.thread is not None for b in dl.blocked)
    blocked = _plural(ranks, "rank") + (f" ({_plural(threads, 'thread')} of theirs)"
                                        if threads else "")
    lines = [f"{blocked} blocked forever:"]
    if dl.livelock:
        lines[0] = (f"{blocked} blocked forever (a livelock: rank "
                    f"{', '.join(map(str, dl.livelock))} polls for what can never come):")
    for b in dl.blocked[:32]:
        args = []
        if b.peer is not None:
            args.append(f"peer={b.peer}")
        if b.tag is not None:
            args.append(f"tag={'ANY_TAG' if b.tag == -1 else b.tag}")
        if b.bytes:
            args.append(format_size(b.bytes))
        where = f" at {b.where}" if b.where else ""
        thread = f" (thread {b.thread!r})" if b.thread is not None else ""
        call = b.call if b.cause is Cause.THREAD else f"{b.call}({', '.join(args)})"
        child = (spawned or {}).get(b.rank)  # a spawned process's rank in its own world
        own = f" (spawned: rank {child['world_rank']} of its world)" if child else ""
        lines.append(f"  rank {b.rank}{own}{thread}: {call}{where}")
        lines.append(f"      {b.reason}")
        if b.waits_for:
            joiner = " or " if b.any_of else " and "
            shown = joiner.join(str(w) for w in b.waits_for[:16])
            more = f" (+{len(b.waits_for) - 16} more)" if len(b.waits_for) > 16 else ""
            lines.append(f"      waits for rank {shown}{more}")
    if len(dl.blocked) > 32:
        lines.append(f"  ... and {len(dl.blocked) - 32} more blocked ranks")
    for c in dl.cycles[:5]:
        lines.append("  cycle: " + " -> ".join(str(r) for r in [*c, c[0]]))
    for nodes in dl.thread_cycles[:5]:
        lines.append("  thread cycle: " + " -> ".join(_thread_node(n)
                                                       for n in [*nodes, nodes[0]]))
    for k in dl.knots[:3]:
        if len(k) > 2:
            lines.append(f"  knot: ranks {', '.join(map(str, k))} wait only on one another")
    lines += [f"  try: {text}" for text in advice(b.cause for b in dl.blocked)]
    return lines


def _thread_node(node: str) -> str:
    rank, _, name = node.partition(":")
    return f"rank {rank} thread {name!r}"


def _error_lines(err: ErrorInfo) -> list[str]:
    where = f" at {err.where}" if err.where else ""
    call = err.call if err.traceback is None and err.call else (
        f"in the program (last call {err.call})" if err.call else
        "in the program" if err.error_class == "NotYielded" else  # (a yield, not a call)
        "in the program, before its first MPI call")
    lines = [f"  rank {err.rank}, {call}{where}, t = {format_time(err.time)}:",
             f"  {err.error_class}: {err.message}"]
    if err.error_class == "MPI_ERR_BUFFER":
        lines.append("  try: attach a larger buffer (min-buffer finds the smallest that works), "
                     "or receive earlier so that entries complete")
    if err.traceback:
        lines += ["  " + ln for ln in err.traceback.rstrip().splitlines()]
    return lines


def _unreceived_lines(unreceived: list[dict[str, Any]]) -> list[str]:
    """Each message never received: sender, receiver, tag, size, the send and its place."""
    lines = []
    for u in unreceived[:16]:
        where = f" at {u['where']}" if u.get("where") else ""
        lines.append(f"    rank {u['src']} -> rank {u['dst']}, tag {u['tag']}, "
                     f"{format_size(u['bytes'])}: {u['call']}{where}")
    if len(unreceived) > 16:
        lines.append(f"    ... and {len(unreceived) - 16} more")
    return lines


def _buffer_lines(ranks: list[RankSummary], failing: set[int]) -> list[str]:
    """The attached buffers, failing ranks first (marked *), at most 16 rows."""
    used = [r for r in ranks if r.buffer.size or r.buffer.bsends or r.buffer.overflows
            or r.buffers]
    if not used:
        return []
    mark = any(r.rank in failing for r in used)
    lines = ["attached buffers" + (" (* failed or blocked; shown first):"
                                   if mark else ":"),
             "  rank        size   peak used   peak live  entries  bsends  overflows"]
    for r in used[:16]:
        b = r.buffer
        star = "*" if r.rank in failing else " "
        lines.append(f" {star}{r.rank:>4} {b.size:>11} {b.peak_used:>11} {b.peak_live:>11} "
                     f"{b.peak_entries:>8} {b.bsends:>7} {b.overflows:>10}")
    if len(used) > 16:
        lines.append(f"  ... {len(used) - 16} more ranks")
    named = [(r, name, b) for r in ranks for name, b in r.buffers.items()]
    if named:
        lines.append("  communicator and session buffers (MPI 4.1):")
        for r, name, b in named[:16]:
            star = "*" if r.rank in failing else " "
            lines.append(f" {star}{r.rank:>4} {b.size:>11} {b.peak_used:>11} {b.peak_live:>11} "
                         f"{b.peak_entries:>8} {b.bsends:>7} {b.overflows:>10}  {name}")
    return lines


def _finite(x: float) -> float | None:
    return x if isinstance(x, float) and math.isfinite(x) else (x if isinstance(x, int) else None)


def _jsonable(value: Any) -> Any:
    """Plain JSON types (numpy scalars and arrays to Python, NaN to null)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    if isinstance(value, float):
        return _finite(value)
    if value is None or isinstance(value, bool | int | str):
        return value
    return repr(value)
