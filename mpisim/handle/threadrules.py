"""The rules of MPI calls from several threads (MPI 4.1 §11.2.1, §11.6.2), checked as findings.

A process's level of thread support says who may call MPI: under ``MPI_THREAD_SINGLE`` one
thread only; under ``MPI_THREAD_FUNNELED`` the main thread only; under
``MPI_THREAD_SERIALIZED`` any thread, but never two at once; under ``MPI_THREAD_MULTIPLE``
any. At every level, two threads may not wait on the same request at once, and two
threads' collective calls on one communicator must be ordered by the program (matching
follows the order they are issued in, §11.6.2), so two threads inside collectives on one
communicator at once is erroneous.

The checks run at the edges of a thread's steps only (:class:`~mpisim.handle.threads.Host`),
so a run without threads pays nothing for them:

- after a step in which a thread made an MPI call: the level (``thread-level``), and,
  when the call blocks the thread, whether another thread of the rank is inside a call at
  the same time (``thread-level`` under SERIALIZED, ``thread-same-request`` for two waits
  on one request, ``thread-concurrent-collective`` for two collectives on one
  communicator);
- when a thread blocked inside a call resumes: whether another thread of the rank made a
  call meanwhile (``thread-level`` under SERIALIZED; the rank's main thread is seen here);
- when a thread of a rank with threads probes a message (MPI_Probe, MPI_Iprobe), whether
  another thread probed the same one and has not received it yet: each will receive "the
  message the probe returned" by its source and tag, and one of them will get another
  (``thread-probe-race``; §11.6.2: MPI_Mprobe and MPI_Mrecv, §3.8.2, take the message with
  the probe).
"""

from __future__ import annotations

from typing import Any

from ..engine.sites import site_text
from ..engine.threads import MAIN, SimThread
from ..mpi.constants import THREAD_FUNNELED, THREAD_SERIALIZED, THREAD_SINGLE
from ..mpi.findings import Call

__all__ = ["Blocked", "after_call", "in_call", "marks_of", "on_resume", "others_in_calls",
           "probed"]

_LEVEL_NAMES = {THREAD_SINGLE: "MPI_THREAD_SINGLE", THREAD_FUNNELED: "MPI_THREAD_FUNNELED",
                THREAD_SERIALIZED: "MPI_THREAD_SERIALIZED"}


class Blocked:
    """A thread (or the rank's main thread) inside a call: its name, call state, place."""

    __slots__ = ("calling", "name", "thread")

    def __init__(self, thread: Any, calling: tuple[Any, ...]) -> None:
        self.thread = thread
        self.name = thread.name
        self.calling = calling

    def call(self, rank: int, fallback: str | None = None) -> Call:
        where = site_text(self.calling[5]) or fallback
        return Call(rank, self.calling[0], where)


def in_call(event: Any, calling: tuple[Any, ...]) -> bool:
    """Whether a thread waiting for ``event`` after the call ``calling`` is inside that MPI
    call (not computing, not waiting on a lock, a queue or another thread's end)."""
    if event is None or getattr(event, "callbacks", None) is None:
        return False
    if getattr(event, "waits_on", None) is not None or getattr(event, "joins", None) \
            is not None or isinstance(event, SimThread):
        return False
    return calling[0] not in (None, "compute")


def others_in_calls(mpi: Any, thread: Any, main_calling: tuple[Any, ...],
                    main_waiting: Any) -> list[Blocked]:
    """The rank's threads but ``thread`` that are inside a call now (its main thread's
    call state is ``main_calling``, the event it waits for ``main_waiting``)."""
    found = []
    if thread is not MAIN and in_call(main_waiting, main_calling):
        found.append(Blocked(MAIN, main_calling))
    for other in mpi._threads:
        if other is thread or not other.is_alive or other.state is None:
            continue
        if in_call(other.target_event, other.state[0]):
            found.append(Blocked(other, other.state[0]))
    return found


def after_call(mpi: Any, thread: SimThread, main_calling: tuple[Any, ...]) -> None:
    """``thread`` made an MPI call in the step that ends now (its call state is the
    handle's): the thread level, and the calls of other threads it overlaps."""
    calling = mpi._calling
    call = calling[0]
    if call is None or call == "compute":
        return
    findings = mpi._life.findings
    rank = mpi.rank
    me = Call(rank, call, site_text(calling[5]) or thread.where)
    level = mpi._thread_level
    if level in (THREAD_SINGLE, THREAD_FUNNELED):
        why = ("a process given MPI_THREAD_SINGLE has one thread (MPI_Init gives it; "
               "ask for more with MPI_Init_thread)" if level == THREAD_SINGLE else
               "only the main thread may call MPI")
        findings.add("thread-level", f"thread {thread.name!r} of rank {rank} called {call} "
                     f"under {_LEVEL_NAMES[level]}: {why}", (me,))
    if not in_call(thread.target_event, calling):
        return
    waiting = mpi._run.waiting
    others = others_in_calls(mpi, thread, main_calling,
                             waiting(rank) if waiting is not None else None)
    for other in others:
        _overlap(findings, rank, thread.name, calling, me, other, level)


def _overlap(findings: Any, rank: int, name: str, calling: tuple[Any, ...], me: Call,
             other: Blocked, level: int) -> None:
    them = other.call(rank)
    if level == THREAD_SERIALIZED:
        findings.add("thread-level", (
            f"thread {name!r} of rank {rank} called {me.call} while thread {other.name!r} "
            f"was in {them.call}, under MPI_THREAD_SERIALIZED: calls may not be made "
            "concurrently from two threads"), (them, me))
    mine, theirs = _requests(calling[4]), _requests(other.calling[4])
    if mine and theirs and any(r in theirs for r in mine):
        findings.add("thread-same-request", (
            f"threads {other.name!r} and {name!r} of rank {rank} both wait on one request "
            f"({them.call}, then {me.call}): two threads may not block on the same "
            "request"), (them, me))
    ctx, other_ctx = _collective(calling[4]), _collective(other.calling[4])
    if ctx is not None and ctx == other_ctx:
        findings.add("thread-concurrent-collective", (
            f"threads {other.name!r} and {name!r} of rank {rank} are in collective calls "
            f"on one communicator at once ({them.call}, {me.call}): the program must "
            "order them (matching follows the order they are issued in)"), (them, me))


def on_resume(mpi: Any, thread: SimThread, marks: Any, main_calling: tuple[Any, ...]) -> None:
    """``thread``, which was inside a call since ``marks`` (the call states of the rank's
    threads then), resumes: under SERIALIZED, a call another thread made meanwhile
    overlapped it."""
    if mpi._thread_level != THREAD_SERIALIZED:
        return
    main_then, others_then = marks
    rank = mpi.rank
    own = thread.state[0] if thread.state is not None else None
    if own is None:
        return
    me = Call(rank, own[0], site_text(own[5]) or thread.where)
    callers = []
    if main_calling is not main_then and main_calling[0] not in (None, "compute"):
        callers.append(Blocked(MAIN, main_calling))
    for other, then in others_then.items():
        state = other.state
        if state is not None and state[0] is not then and state[0][0] not in (None, "compute"):
            callers.append(Blocked(other, state[0]))
    for other in callers:
        findings = mpi._life.findings
        findings.add("thread-level", (
            f"thread {other.name!r} of rank {rank} called {other.calling[0]} while thread "
            f"{thread.name!r} was in {me.call}, under MPI_THREAD_SERIALIZED: calls may not "
            "be made concurrently from two threads"), (me, other.call(rank)))


def marks_of(mpi: Any, thread: SimThread, main_calling: tuple[Any, ...]) -> Any:
    """What :func:`on_resume` compares with: the call states of the rank's other threads as
    ``thread`` blocks inside a call."""
    return main_calling, {t: t.state[0] if t.state is not None else None
                          for t in mpi._threads if t is not thread}


def _requests(obj: Any) -> list[Any]:
    if isinstance(obj, list):
        return [r for r in obj if getattr(r, "active", False)]
    return [obj] if getattr(obj, "active", False) and hasattr(obj, "kind") else []


def _collective(obj: Any) -> Any:
    """The context of a collective call's channel (None: not a collective)."""
    if hasattr(obj, "entered") and hasattr(obj, "ctx"):
        return obj.ctx
    return None


def probed(mpi: Any, thread: Any, msg: Any, calling: tuple[Any, ...]) -> None:
    """``thread`` of rank ``mpi`` probed ``msg`` (by the call ``calling``), a message not
    received yet: another thread's probe of it is a race (see the module)."""
    probes = mpi._probes
    if probes is None:
        probes = mpi._probes = {}
    where = site_text(calling[5]) or (thread.where if isinstance(thread, SimThread)
                                      else site_text(mpi._site()))
    before = probes.get(msg.id)
    probes[msg.id] = (thread, Call(mpi.rank, calling[0], where))
    if before is None or before[0] is thread or mpi._life is None:
        return
    rank = mpi.rank
    mpi._life.findings.add("thread-probe-race", (
        f"threads {before[0].name!r} and {thread.name!r} of rank {rank} both probed the "
        f"message from rank {msg.src} (tag {msg.tag}) before either received it: the "
        "receive that follows each probe may take another message; use MPI_Mprobe and "
        "MPI_Mrecv"), (before[1], probes[msg.id][1]))
