"""Is a program safe? (MPI 3.5: it completes when every send is synchronous.)

Section 3.5 calls a program *safe* when it does not rely on system buffering: it still
completes if every send is replaced by a synchronous send (Example 3.10, both ranks send
then receive, is unsafe). :func:`check_safe` runs the program twice: as written, then with
``mpi.force_ssend`` (the engine's switch that makes every send of any mode — standard,
buffered, ready, and their nonblocking forms — synchronous).

Collectives are made synchronizing in that second run too (``mpi.sync_collectives``: no
member leaves a collective before every member has entered it). MPI 4.1 §6.1: "a correct,
portable program must invoke collective communications so that deadlock will not occur,
whether collective communications are synchronizing or not". A program whose sends and
receives around a broadcast complete only because the broadcast's root leaves early (as it
does in MPICH and Open MPI) is not safe; the report names the collective each blocked rank
waits in and the members it waits for. ``collectives="as_written"`` keeps the collectives as
the profile's algorithms run them.

``buffered=True`` asks the question a Bsend user asks instead: does the program rely on
system buffering *beyond its attached buffer*? Buffered sends stay buffered (they use the
buffer the program attached, 3.6) and every other send (standard, ready, and their
nonblocking forms) becomes synchronous; this is done by the program's handle, without a
setting: the rank programs run under :class:`SynchronousSends`, which makes ``send``,
``isend``, ``rsend`` and ``irsend`` of each rank's handle call ``ssend``/``issend``.

The verdict: **safe** when both runs complete and neither made a mismatched collective call
(MPI 4.1 §6.1: the members' calls differ in collective, root, op or counts; erroneous even
when the library lets it complete, see :mod:`mpisim.collectives.meeting`). A program that
does not complete as written
(deadlock, a timeout) is reported not safe with that reason, even if its synchronous form
would complete: it is wrong before any question of buffering. One that ends in an MPI error
as written (an overflow, a truncation...) cannot be judged: the error stops it before the
question is asked, so the verdict is CANNOT JUDGE (``judged`` False, exit status 4, as a run
that ends in an error), never NOT SAFE. The reason names the blocked calls of the first
deadlock (rank, call, peer, tag, scenario location) or the error that ended the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from ..collectives.meeting import MISMATCH
from ..mpi.constants import ANY_SOURCE, ANY_TAG
from .executors import Workers
from .target import Target

__all__ = ["Safety", "SynchronousSends", "check_safe"]

SHOWN_BLOCKED = 4


@dataclass
class Safety:
    """The answer of :func:`check_safe`; ``to_dict()`` is the CLI's ``check --json``.

    Parameters
    ----------
    safe
        Whether the program is safe: both runs complete and no collective call was
        mismatched.
    as_written
        The Result of the run as written.
    synchronous
        The Result of the run with every send synchronous (``buffered``: every send but
        the buffered ones).
    reason
        Why it is not safe, or cannot be judged, in words (the blocked calls or the
        error); empty when safe.
    buffered
        Whether buffered sends stayed buffered in the second run.
    collectives
        How collectives ran in the second run: ``"synchronizing"`` or ``"as_written"``.
    """

    safe: bool
    as_written: Any
    synchronous: Any
    reason: str
    buffered: bool = False
    collectives: str = "synchronizing"  # or "as_written" (see check_safe)

    def to_dict(self) -> dict[str, Any]:
        return {"safe": self.safe, "buffered": self.buffered,
                "collectives": self.collectives,
                "as_written": self.as_written.to_dict(),
                "synchronous": self.synchronous.to_dict()}

    @property
    def judged(self) -> bool:
        """False when the program cannot be judged: it ends in an MPI error as written, or
        a run was stopped at a limit (simulated time, events, wall clock, the end of a
        stopped recording) while it was still running, so that it neither completed nor
        deadlocked: a slow run is no unsafe one."""
        written, synchronous = self.as_written.outcome.value, self.synchronous.outcome.value
        if written in ("error", "timeout"):
            return False
        return not (written == "completed" and synchronous == "timeout")

    @property
    def exit_code(self) -> int:
        """The CLI's status: 0 safe, 3 not, 4 cannot judge (an error as written, or a run
        stopped at a limit while still running)."""
        return 0 if self.safe else 3 if self.judged else 4

    def __repr__(self) -> str:
        return (f"<Safety {self.as_written.scenario}: {'safe' if self.safe else 'not safe'} "
                f"(as written {self.as_written.outcome.value}, synchronous "
                f"{self.synchronous.outcome.value})>")

    def _repr_html_(self) -> str:
        from ..report.display import safety_html

        return safety_html(self)

    def report(self) -> str:
        head = "SAFE" if self.safe else "NOT SAFE" if self.judged else "CANNOT JUDGE"
        if self.buffered:
            rule = ("with its attached buffers: bsends buffered, every other send synchronous; "
                    "safe when it needs no system buffering beyond its attached buffers")
        else:
            rule = "MPI 3.5: a safe program completes when every send is synchronous"
        if self.collectives == SYNCHRONIZING:
            rule += " and, §6.1, every collective synchronizing"
        changed = _changed(self.buffered, self.collectives)
        written, synchronous = self.as_written.outcome.value, self.synchronous.outcome.value
        other = ""  # each run's outcome once, the one that decides with its reason
        if self.reason.startswith(AS_WRITTEN):
            written = self.reason.removeprefix(AS_WRITTEN)
        elif self.reason.startswith(f"{changed} {NOT_COMPLETE}"):
            synchronous = self.reason.removeprefix(f"{changed} {NOT_COMPLETE}")
        else:
            other = self.reason
        lines = [f"{self.as_written.scenario}: {head} ({rule})",
                 f"  as written: {written}", f"  {changed}: {synchronous}"]
        if other:
            lines.append(f"  {other}")
        bsends = sum(r.buffer.bsends for r in getattr(self.as_written, "ranks", []))
        if not self.safe and not self.buffered and bsends and \
                self.as_written.outcome.value == "completed":
            lines.append("  note: 3.5's check makes bsends synchronous too; `check --buffered` "
                         "asks whether it relies on buffering beyond its attached buffer")
        if getattr(self.as_written, "settings", None):
            from ..report.text import settings_text

            lines.append("  settings in force: " + settings_text(self.as_written.settings))
        return "\n".join(lines)


SYNCHRONIZING = "synchronizing"
COLLECTIVES = (SYNCHRONIZING, "as_written")
"""How ``check_safe`` runs collectives in its second run."""


def check_safe(scenario: Any, *, buffered: bool = False, collectives: str = SYNCHRONIZING,
               executor: Executor | None = None, jobs: int | None = None,
               **run_kwargs: Any) -> Safety:
    """Run ``scenario`` as written and with every send synchronous; safe if both complete.

    MPI 4.1 §3.5 calls a program safe when it does not rely on system buffering: it still
    completes when every send is synchronous. A program that does not complete as written
    is not safe; one that ends in an MPI error as written cannot be judged.

    Parameters
    ----------
    scenario
        What to check: a scenario file's path, a loaded ``mpisim.scenario.Scenario``, or a
        rank program function (then ``run_kwargs`` carry ``ranks=``).
    buffered
        False (the default): every send of any mode becomes synchronous. True: buffered
        sends stay buffered (they use the buffer the program attached) and only the other
        modes become synchronous, to ask whether the program relies on buffering beyond
        its attached buffer.
    collectives
        ``"synchronizing"`` (the default): in the second run every collective is also
        synchronizing, no member leaving it before all have entered (MPI 4.1 §6.1: a
        correct program must not deadlock whether collectives synchronize or not).
        ``"as_written"``: the collectives run as the profile's algorithms run them.
    executor
        Where the two (independent) runs go: any ``concurrent.futures.Executor``.
        Default: None, a local pool of ``jobs`` workers.
    jobs
        Workers of the local pool. Default: None, the machine's cores; ``1``: one run
        after the other in this process.
    **run_kwargs
        The arguments of each run, as :func:`mpisim.run` takes them (``ranks``,
        ``network``, ``mpi``, ``params``...); with a scenario, they override its settings.

    Returns
    -------
    Safety
        ``safe`` (bool), ``reason`` (the blocked calls or the error, in words), both
        results (``as_written``, ``synchronous``), ``report()`` and ``exit_code`` (0 safe,
        3 not safe, 4 cannot judge).

    Examples
    --------
    Example 3.10 with standard sends completes (the messages go eager) but is not safe:

    >>> import mpisim as ms
    >>> def program(mpi, count=100):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.send(count=count, datatype=ms.INT, dest=peer, tag=0)
    ...     yield mpi.recv(count=count, datatype=ms.INT, source=peer, tag=0)
    >>> verdict = ms.check_safe(program, ranks=2, jobs=1)
    >>> verdict.safe, verdict.as_written.outcome, verdict.synchronous.outcome
    (False, <Outcome.COMPLETED: 'completed'>, <Outcome.DEADLOCK: 'deadlock'>)
    >>> verdict.exit_code
    3
    """
    if collectives not in COLLECTIVES:
        raise ValueError(f"check_safe: collectives must be one of {', '.join(COLLECTIVES)}, "
                         f"got {collectives!r}")
    target = Target.of(scenario, run_kwargs)
    with Workers(executor, jobs) as workers:
        as_written, synchronous = workers.map(_runs, (target, buffered, collectives),
                                              ["as written", "synchronous"], sample=False)
    completed = as_written.outcome.value == synchronous.outcome.value == "completed"
    mismatch = _mismatch(as_written) or _mismatch(synchronous)
    safe = completed and mismatch is None
    if safe:
        reason = ""
    elif completed:  # completes, yet erroneous: never safe (MPI 4.1 §6.1)
        reason = f"it completes but is erroneous: {mismatch}"
    else:
        reason = _reason(as_written, synchronous, buffered, collectives)
    return Safety(safe, as_written, synchronous, reason, buffered, collectives)


def _runs(job: tuple[Target, bool, str], modes: Sequence[str]) -> list[Any]:
    """Worker side: the run as written, or with its sends synchronous (``buffered``: only
    the non-buffered ones) and, unless ``as_written``, its collectives synchronizing."""
    target, buffered, collectives = job
    synchronizing = {"mpi.sync_collectives": True} if collectives == SYNCHRONIZING else {}
    out = []
    for mode in modes:
        if mode == "as written":
            out.append(target.run({}))
        elif buffered:
            program = target.run_kwargs({})["program"]
            out.append(target.run(synchronizing, program=SynchronousSends(program)))
        else:
            out.append(target.run({"mpi.force_ssend": True, **synchronizing}))
    return out


def _mismatch(result: Any) -> str | None:
    """The first mismatched collective call of a run (its warning), if any."""
    return next((w for w in result.warnings if w.startswith(MISMATCH)), None)


class SynchronousSends:
    """The rank programs with every non-buffered send synchronous (picklable)."""

    SWAPS = (("send", "ssend"), ("isend", "issend"), ("rsend", "ssend"), ("irsend", "issend"))

    def __init__(self, program: Any) -> None:
        self.program = program
        self.__name__ = getattr(program, "__name__", "program")

    def __call__(self, mpi: Any, **params: Any) -> Any:
        for name, synchronous in self.SWAPS:
            setattr(mpi, name, getattr(mpi, synchronous))
        program = self.program
        if isinstance(program, list | tuple):
            program = program[mpi.rank]
        return program(mpi, **params)


NOT_COMPLETE = "it does not complete: "
AS_WRITTEN = f"as written {NOT_COMPLETE}"


def _changed(buffered: bool, collectives: str) -> str:
    """What the second run changed, in words."""
    sends = "with every non-buffered send synchronous" if buffered else \
        "with every send synchronous"
    return sends + (" and every collective synchronizing" if collectives == SYNCHRONIZING
                    else "")


def _reason(as_written: Any, synchronous: Any, buffered: bool = False,
            collectives: str = SYNCHRONIZING) -> str:
    if as_written.outcome.value != "completed":
        return AS_WRITTEN + _why(as_written)
    return f"{_changed(buffered, collectives)} {NOT_COMPLETE}" + _why(synchronous)


def _why(result: Any) -> str:
    outcome = result.outcome.value
    if result.deadlock is not None:
        blocked = result.deadlock.blocked
        calls = "; ".join(_blocked(b) for b in blocked[:SHOWN_BLOCKED])
        more = f"; and {len(blocked) - SHOWN_BLOCKED} more" if len(blocked) > SHOWN_BLOCKED \
            else ""
        cycles = result.deadlock.cycles
        cycle = (" (cycle " + " -> ".join(str(r) for r in [*cycles[0], cycles[0][0]]) + ")"
                 if cycles else "")
        return f"deadlock: {calls}{more}{cycle}"
    if result.error is not None:
        e = result.error
        where = f" at {e.where}" if getattr(e, "where", None) else ""
        return f"error: rank {e.rank}, {e.call}{where}: {e.error_class}: {e.message}"
    if outcome == "timeout":
        return "timeout: " + (getattr(result, "timeout_reason", None) or "a run limit reached")
    return outcome


def _blocked(b: Any) -> str:
    args = []
    if b.peer is not None:
        args.append(f"peer {'ANY_SOURCE' if b.peer == ANY_SOURCE else b.peer}")
    if b.tag is not None:
        args.append(f"tag {'ANY_TAG' if b.tag == ANY_TAG else b.tag}")
    where = f" at {b.where}" if b.where else ""
    return f"rank {b.rank} blocked in {b.call}({', '.join(args)}){where}"
