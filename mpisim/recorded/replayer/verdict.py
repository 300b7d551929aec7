"""How a recorded run ended, and whether its replay ended the same way: the paragraph
``mpisim replay`` prints before the report and the verdict line after it.

A recorded run ends in one of five ways
(:meth:`~mpisim.recorded.read.records.Trace.outcome`), each with its verdict:

- **completed** (every process returned from MPI_Finalize): agrees when the replay completes.
- **stopped** (``killed``: a signal, or logs cut by SIGKILL). Told apart by where each process
  was when stopped: *a deadlock* when every unfinished process was inside MPI; *slow* when a
  process was outside MPI for a long stretch (at least ``SLOW_FACTOR`` times its longest
  earlier one, and at least ``SLOW_MIN`` s); otherwise *endless* (still making MPI calls:
  a run that would go on, or needed longer than it was given). A process stopped outside MPI
  was running: the replay keeps it computing (:mod:`.program`) and ends when nothing else can
  happen. The replay agrees when each process reached the same point: the same call in
  progress, or computing after the same last call. A replay that ends in a deadlock (no
  process can move) is judged on the blocked calls: the same processes blocked at the same
  calls as in the recording, MPI_Finalize included (collective, MPI 4.1 §11.2.2).
- **unfinalized** (processes ended their program without MPI_Finalize: erroneous, MPI 4.1
  §11.2.2): agrees when the replay ran every recorded call to the end (it finalizes them).
- **error** (a process exited or aborted inside a call): said, with the replay's outcome.

A DIFFERS verdict says what differs and what to try (the recording's profile when another
was used; ``--as-matched`` when wildcards matched differently; the eager limit when buffering
decided it; ``--compute-scale 0`` when timing may have).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from ..library import LibraryProfile, library_name
from ..read.records import RankLog, Trace
from ..read.records import seconds_text as _seconds

__all__ = ["SLOW_FACTOR", "SLOW_MIN", "as_run", "compare", "describe", "stop_kind"]

SLOW_FACTOR = 10.0
SLOW_MIN = 0.01


def as_run(trace: Trace, spawned: dict[int, tuple[str, int]] | None = None) -> Trace:
    """The recording as a replay runs it: its ranks, then every spawned process (MPI 4.1
    §11.8.2) under its number in the replay (``spawned``: the replay's (spawn, rank) of each;
    one not started there, or without a replay, numbered after them in the recording's
    order), so that the verdict compares each process with its own log."""
    if not trace.spawns:
        return trace
    number = {where: n for n, where in (spawned or {}).items()}
    logs = list(trace.ranks)
    following = max([len(logs) - 1, *number.values()]) + 1
    for spawn, children in trace.spawns.items():
        for rank, log in enumerate(children):
            n = number.get((spawn, rank))
            if n is None:
                n, following = following, following + 1
            logs.append(replace(log, rank=n))
    return Trace(trace.path, sorted(logs, key=lambda log: log.rank))


def _who(log: RankLog) -> str:
    """A process as the replay's reports name it: rank N, and a spawned one's spawn and
    rank in its own MPI_COMM_WORLD."""
    if log.spawn is None:
        return f"rank {log.rank}"
    return f"rank {log.rank} (spawn {log.spawn}, rank {log.header.get('rank', '?').split()[0]})"


def stuck(log: RankLog) -> bool:
    """Whether a stopped process had been where it was for long: at least SLOW_FACTOR
    times its longest earlier stretch of the same kind (in a call, or outside MPI) and at
    least SLOW_MIN s. A log that does not say (a recording made before it was logged, a
    log cut by SIGKILL) counts as stuck."""
    if log.last is None:
        return True
    kind, since = log.last
    return since >= max(SLOW_MIN, SLOW_FACTOR * log.calls.longest(kind))


def stop_kind(trace: Trace) -> str:
    """Why a stopped run may have been stopped, from where its processes were (module)."""
    stopped = [r for r in trace.ranks if r.ended != "finalized"]
    broken = [r for r in stopped if r.broken]
    if broken and not (len(broken[0].calls) and broken[0].blocked is not None):
        return f"{broken[0].broken}; replayed up to there"  # a damaged compact recording
    if broken:
        return (f"{_who(broken[0])}'s log ends abruptly inside call "
                f"{broken[0].calls[-1].number} (MPI_{broken[0].calls[-1].name}): replayed up "
                "to that call")
    if any(r.ended == "cut" for r in stopped):
        return ("stopped by SIGKILL (the logs do not say where each process was: "
                "stop it with --timeout to know)")
    if all(r.blocked is not None and stuck(r) for r in stopped):
        return "a deadlock: every unfinished process was waiting inside MPI when stopped"
    slow = [r for r in stopped if r.running and stuck(r)]
    if slow and slow[0].last is not None:
        r, since = slow[0], slow[0].last[1]
        return (f"slow: rank {r.rank} had been computing for {_seconds(since)} when stopped, "
                f"over {SLOW_FACTOR:g}x its longest stretch outside MPI before "
                f"({_seconds(_longest_gap(r))})")
    return ("endless: the processes were still making MPI calls when stopped (a run that "
            "goes on, or needs longer than it was given)")


def _longest_gap(log: RankLog) -> float:
    return log.calls.longest("g")


def describe(trace: Trace, library: LibraryProfile, profile: str | None,
             recorded_profile: bool) -> str:
    """One paragraph on the recorded run: library, processes, how each ended, and the
    profile the replay runs under and why."""
    outcome = trace.outcome()
    how = {"killed": f"stopped ({stop_kind(trace)})",
           "unfinalized": "ended without MPI_Finalize (erroneous, MPI 4.1 §11.2.2)",
           "error": "ended in an error"}.get(outcome, outcome)
    spawned = sum(1 for log in trace.ranks if log.spawn is not None)
    started = f" ({spawned} of them spawned)" if spawned else ""
    lines = [f"recording {os.path.basename(trace.path)}: {trace.size} "
             f"process{'es' if trace.size != 1 else ''}{started}, "
             f"{sum(len(r.calls) for r in trace.ranks)} calls, {library_name(trace.library)}; "
             f"{how}"]
    if profile is not None:
        if recorded_profile:
            lines.append(f"  replayed under profile {profile}: {library.reason}")
        elif profile != library.profile:
            lines.append(f"  replayed under profile {profile} (given); the recording's "
                         f"library would choose {library.profile}")
    for log in trace.ranks:
        if log.ended != "finalized":
            inside = " and".join(f" was in MPI_{c.name} at {c.where()}"
                                 for c in log.in_progress)
            inside += " and" if inside else ""
            lines.append(f"  {_who(log)}{inside} {log.end_text()}")
    errors = [(r.rank, i) for r in trace.ranks for i in r.calls.errors().tolist()]
    for rank, i in errors[:5]:
        call = trace.ranks[rank].calls[i]
        lines.append(f"  rank {rank} {call.where()}: MPI_{call.name} returned {call.error}")
    if len(errors) > 5:
        lines.append(f"  ... {len(errors) - 5} more calls returned errors")
    return "\n".join(lines)


def compare(trace: Trace, result: Any, reached: dict[int, tuple[str, int]],
            library: LibraryProfile, diverged: bool = False) -> str:
    """Whether the replay ended as the recorded run did (one line; a DIFFERS line says what
    to try)."""
    recorded, got = trace.outcome(), result.outcome.value
    if recorded == "completed":
        if got == "completed":
            return "agrees with the recording: both completed"
        return _differs(f"the recorded run completed, the replay ended in {got}"
                        f"{_detail(result)}", trace, result, library, diverged)
    if recorded == "unfinalized":
        short = [r.rank for r in trace.ranks if reached.get(r.rank, ("", 0)) !=
                 ("done", r.calls[-1].number if r.calls else 0)]
        if got == "completed" and not short:
            return ("agrees with the recording: every process ran all its recorded calls "
                    "(the recorded processes exited without MPI_Finalize; the replay "
                    "finalizes them)")
        return _differs(f"the recorded processes ran all their calls and exited without "
                        f"MPI_Finalize; the replay ended in {got}{_detail(result)}", trace,
                        result, library, diverged)
    if recorded == "killed":
        return _stopped(trace, result, reached, library, diverged)
    return (f"the recorded run ended in an error; the replay ended in {got}"
            + (f" ({result.error.error_class} in {result.error.call} on rank "
               f"{result.error.rank})" if result.error is not None else ""))


def _stopped(trace: Trace, result: Any, reached: dict[int, tuple[str, int]],
             library: LibraryProfile, diverged: bool) -> str:
    got = result.outcome.value
    if got == "error":
        return _differs(f"the recording was stopped ({stop_kind(trace)}); the replay ended "
                        f"in an error{_detail(result)}", trace, result, library, diverged)
    if result.deadlock is not None:
        return _deadlocked(trace, result, reached, library, diverged)
    for log in trace.ranks:
        miss = _missed(log, reached.get(log.rank))
        if miss is not None:
            return _differs(f"{miss} (the replay ended in {got}{_detail(result)})", trace,
                            result, library, diverged)
    places = "; ".join(_place(log, reached.get(log.rank)) for log in trace.ranks
                       if log.ended != "finalized")
    return ("agrees with the recording: stopped while running; the replay reached the same "
            f"point ({places})")


def _deadlocked(trace: Trace, result: Any, reached: dict[int, tuple[str, int]],
                library: LibraryProfile, diverged: bool) -> str:
    """A stopped recording whose replay deadlocked: judged on the blocked calls. Each
    process the recording shows inside a call must be blocked in the replay at that call
    (MPI_Finalize included: it waits for the others, MPI 4.1 §11.2.2), and no other."""
    blocked: dict[int, list[tuple[str, int | None]]] = {}
    for b in result.deadlock.blocked:  # (a thread joining another is in no MPI call)
        if not b.call.startswith("join "):
            blocked.setdefault(b.rank, []).append((b.call, _number(b.where)))
    same, wrong = [], []
    for log in trace.ranks:  # a threaded process's calls: one per blocked thread (§11.6)
        recorded = log.in_progress if log.ended != "finalized" else []
        got = blocked.get(log.rank, [])
        if recorded and {n for _, n in got} == {c.number for c in recorded}:
            same += [f"{_who(log)} in MPI_{c.name} at call {c.number}"
                     + (f" (thread {c.thread})" if c.thread else "") for c in recorded]
        elif recorded or got:
            call, number = got[0] if got else (None, None)
            wrong.append(_blocked_apart(log, recorded[-1] if recorded else None, call,
                                        number, reached.get(log.rank)))
    if not wrong:
        return f"agrees with the recording: the same calls are blocked ({', '.join(same)})"
    return _differs(f"{'; '.join(wrong)} (the replay ended in deadlock{_detail(result)})",
                    trace, result, library, diverged)


def _blocked_apart(log: RankLog, recorded: Any, call: str | None, number: int | None,
                   state: tuple[str, int] | None) -> str:
    """Where rank ``log.rank`` is blocked in the replay (``call`` at ``number``, or not
    blocked) against where the recording has it, in words."""
    if call is None:
        got = f"{_who(log)} {_state(log, state or ('in', 0))}"
    else:
        at = f" at call {number}" if number is not None else ""
        got = f"{_who(log)} was blocked in {call}{at}"
    if recorded is None:
        return f"{got}; the recorded process {log.end_text()}"
    return (f"{got}; the recorded process was in MPI_{recorded.name} at {recorded.where()} "
            "when stopped")


def _missed(log: RankLog, state: tuple[str, int] | None) -> str | None:
    """Where rank ``log.rank``'s replay is not where the recorded process was, in words
    (None: the same point). A process stopped in a call it had not been in for long (not
    :func:`stuck`) may be in it or past it."""
    kind, number = state or ("in", 0)
    if not log.calls:
        return None
    last = log.calls[-1]
    if log.ended == "finalized":
        return None if kind == "done" else \
            f"{_who(log)} {_state(log, (kind, number))}; the recorded process finalized"
    if not log.stopped:
        return None
    if kind == "done" and number == last.number and last.name == "Finalize":
        return None  # its program was over, as the recorded process's (in MPI_Finalize)
    if log.broken and number == last.number:
        return None  # its log ends abruptly in this call: nothing is known past it
    if number == last.number and (kind == "running" or (kind == "in" and log.blocked)):
        if kind == "in" or log.blocked is None or not stuck(log):
            return None
        return (f"{_who(log)} got past MPI_{last.name} at {last.where()}, where the "
                "recorded process was stuck when stopped")
    if log.running:
        return (f"{_who(log)} {_state(log, (kind, number))}; the recorded process went on "
                f"to call {last.number} (MPI_{last.name}) and was computing after it")
    return (f"{_who(log)} {_state(log, (kind, number))}; the recorded process was in "
            f"MPI_{last.name} at {last.where()} when stopped")


def _state(log: RankLog, state: tuple[str, int]) -> str:
    kind, number = state
    call = log.calls[number - 1] if 0 < number <= len(log.calls) else None
    name = f"MPI_{call.name} at {call.where()}" if call is not None else f"call {number}"
    if kind == "in":
        return f"was blocked in {name}"
    if kind == "done" and log.blocked is not None and number == log.blocked.number:
        return f"got past {name}, the call it was stopped in"
    return {"after": f"got past {name}", "running": f"was computing after {name}",
            "done": f"ended after {name}"}.get(kind, kind)


def _place(log: RankLog, state: tuple[str, int] | None) -> str:
    last = log.calls[-1]
    if log.broken:
        return f"{_who(log)} at MPI_{last.name} call {last.number}, where its log ends"
    if log.running:
        return f"{_who(log)} computing after call {last.number}"
    if state is not None and state[0] == "running":
        return f"{_who(log)} past MPI_{last.name} call {last.number} (in it when stopped)"
    return f"{_who(log)} in MPI_{last.name} call {last.number}"


def _detail(result: Any) -> str:
    if result.error is not None:
        e = result.error
        return f" ({e.error_class} in {e.call} on rank {e.rank})"
    if result.deadlock is not None:
        return " (" + ", ".join(f"rank {b.rank} in {b.call}" for b in
                                result.deadlock.blocked[:4]) + ")"
    return ""


def _differs(what: str, trace: Trace, result: Any, library: LibraryProfile,
             diverged: bool) -> str:
    return f"DIFFERS from the recording: {what}; try: " + "; ".join(
        _hints(trace, result, library, diverged))


def _hints(trace: Trace, result: Any, library: LibraryProfile, diverged: bool) -> list[str]:
    """What to try after a DIFFERS verdict, the likeliest first."""
    hints = []
    profile = (getattr(result, "settings", None) or {}).get("mpi.profile", {}).get("value")
    if profile is not None and profile != library.profile:
        hints.append(f"--set mpi.profile={library.profile} (the recording's library; this "
                     f"replay used {profile})")
    elif not library.exact:
        hints.append(f"a profile of {library.library} (mpisim calibrate, then --set "
                     "mpi.profile=FILE.yaml): the replay used " + library.profile)
    if diverged:
        hints.append("--as-matched (wildcard receives matched differently in the replay)")
    error = getattr(result, "error", None)
    if error is not None and error.error_class == "MPI_ERR_SPAWN":  # (MPI 4.1 §11.10.1)
        hints.append(f"--set mpi.universe={trace.size} (the processes the recording ran, "
                     "spawned ones included)")
    got, recorded = result.outcome.value, trace.outcome()
    if got == "deadlock" and recorded != "killed":
        hints.append("a larger network.eager_limit (the library buffered what the replay "
                     "did not)")
    elif got == "completed" and recorded == "killed":
        hints.append("a smaller network.eager_limit (the replay buffered what the library "
                     "did not)")
    hints.append("--compute-scale 0 (if the timing between calls decided it)")
    return hints


def _number(where: Any) -> int | None:
    text = str(where or "")
    if text.startswith("call "):
        head = text[5:].split(",", 1)[0].split()[0]
        if head.isdigit():
            return int(head)
    return None


def _calls(pairs: set[tuple[int, int | None]]) -> str:
    return ", ".join(f"rank {r} call {n}" for r, n in sorted(pairs, key=lambda p: (p[0],
                                                                              p[1] or 0)))
