"""A recorded process's threads, replayed as simulated threads of its rank (MPI 4.1 §11.6).

The recorder gives each call its thread (``t=``: 0 the thread that called MPI_Init, then 1,
2... in the order of each thread's first call). A process whose calls came from several
threads is replayed so: thread 0's calls are the rank's program, each other thread's run in
a simulated thread of the rank (``mpi.spawn_thread``, named ``thread N`` as recorded)
started right after MPI_Init (a thread's first gap counts from MPI_Init's return). Each
thread replays its own calls in their order with their recorded gaps; requests,
communicators and the other objects are the process's, shared by its threads, and a call
that blocks blocks only its thread. Thread 0 joins the others before its MPI_Finalize: the
recorded process had (MPI 4.1 §11.2.2: no thread calls MPI after MPI_Finalize).

The level the recording's MPI_Init_thread provided is the replay's (``mpi.init_thread``),
so the thread-level rules apply (a call from a second thread under MPI_THREAD_FUNNELED is
a finding, §11.6.2). A threaded process's calls are all read before its replay starts (a
single-threaded one's a block at a time).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any, Protocol

__all__ = ["Item", "ReplayRank", "is_threaded", "run_threads"]


Item = tuple[int, int, int, float, int]
"""A call to replay: its number on the rank (1 = MPI_Init), shape id, result id (-1: it
never returned), the time outside MPI before it (s, recorded), the request id its shape's
ids are relative to (0: none, :class:`~..read.records.CallList`)."""


class ReplayRank(Protocol):
    """What a thread's replay asks of its rank's (:class:`.program.ReplayRank`, which stands
    above this module: the rank's loop, :meth:`play`, runs its threads' calls too)."""

    mpi: Any
    log: Any

    def prepare(self) -> None: ...

    def play(self, items: Iterable[Item], end: bool = False) -> Generator[Any, Any, bool]: ...

    def end(self) -> Generator[Any, Any, None]: ...


def is_threaded(replay: ReplayRank) -> bool:
    """Whether the recorded process made calls from more than one thread."""
    return any(shape.args.get("t", 0) for shape in replay.log.calls.shapes)


def run_threads(replay: ReplayRank, stride: int) -> Generator[Any, Any, None]:
    """The rank's program of a threaded recording: MPI_Init, the other threads started,
    thread 0's calls, the others joined before its MPI_Finalize, then the rank's end.
    ``stride``: calls read at a time. Each thread's calls are replayed by the rank's own
    loop (:meth:`.program.ReplayRank.play`)."""
    mpi, calls = replay.mpi, replay.log.calls
    replay.prepare()
    by_thread: dict[int, list[Item]] = {}
    shapes = calls.shapes
    for item in calls.replayed(stride):
        by_thread.setdefault(int(shapes[item[1]].args.get("t", 0)), []).append(item)
    own = by_thread.pop(0, [])
    stopped = yield from replay.play(own[:1])  # MPI_Init (its level)
    threads = [mpi.spawn_thread(replay.play, items, name=f"thread {t}")
               for t, items in sorted(by_thread.items())]
    last = own[-1] if len(own) > 1 else None
    if not stopped:
        finalize = last is not None and shapes[last[1]].name == "Finalize"
        stopped = yield from replay.play(own[1:-1] if finalize else own[1:])
        if not stopped:
            for thread in threads:  # noqa: UP028 (each joined: the engine sends its value)
                yield thread
            if finalize and last is not None:
                stopped = yield from replay.play([last])
    yield from replay.end()
