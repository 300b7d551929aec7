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

from ...handle.access import port_of
from ...mpi.errors import MPIError
from ..calls import Unsupported
from .objects import caught

__all__ = ["ReplayRank", "is_threaded", "run_threads"]


class ReplayRank(Protocol):
    """What a thread's replay asks of its rank's (:class:`.program.ReplayRank`, which stands
    above this module: the rank's loop hands its threads to it)."""

    mpi: Any
    log: Any
    program: Any
    scale: float
    again: Any

    def end(self) -> Generator[Any, Any, None]: ...

    def kept_op(self, s: int, res: int, shape: Any, index: int) -> tuple[Any, Any]: ...

    def note(self, call: Any, text: str) -> None: ...

    def ended_in(self, call: Any) -> None: ...

Item = tuple[int, int, int, float]
"""A call to replay: its number on the rank (1 = MPI_Init), shape id, result id (-1: it
never returned), the time outside MPI before it (s, recorded)."""


def is_threaded(replay: ReplayRank) -> bool:
    """Whether the recorded process made calls from more than one thread."""
    return any(shape.args.get("t", 0) for shape in replay.log.calls.shapes)


def run_threads(replay: ReplayRank, stride: int, generic: object
                ) -> Generator[Any, Any, None]:
    """The rank's program of a threaded recording: MPI_Init, the other threads started,
    thread 0's calls, the others joined before its MPI_Finalize, then the rank's end.
    ``stride``: calls read at a time; ``generic``: the ``after`` of an op given the Call
    (:meth:`.program.ReplayRank.op`)."""
    mpi, calls = replay.mpi, replay.log.calls
    used_shapes, used_results = calls.used()  # ops kept only for those seen again
    replay.again = (used_shapes > 1, used_results > 1)
    by_thread: dict[int, list[Item]] = {}
    shapes = calls.shapes
    for lo, shape_ids, result_ids, gaps in calls.strides(stride):
        for number, s, res, gap in zip(range(lo + 1, lo + stride + 1), shape_ids, result_ids,
                                       gaps, strict=False):
            by_thread.setdefault(int(shapes[s].args.get("t", 0)), []).append(
                (number, s, res, gap))
    own = by_thread.pop(0, [])
    stopped = yield from replay_calls(replay, own[:1], generic)  # MPI_Init (its level)
    threads = [mpi.spawn_thread(replay_calls, replay, items, generic, name=f"thread {t}")
               for t, items in sorted(by_thread.items())]
    last = own[-1] if len(own) > 1 else None
    if not stopped:
        finalize = last is not None and shapes[last[1]].name == "Finalize"
        stopped = yield from replay_calls(replay, own[1:-1] if finalize else own[1:],
                                          generic)
        if not stopped:
            for thread in threads:  # noqa: UP028 (each joined: the engine sends its value)
                yield thread
            if finalize and last is not None:
                stopped = yield from replay_calls(replay, [last], generic)
    yield from replay.end()


def replay_calls(replay: ReplayRank, items: Iterable[Item], generic: object
                 ) -> Generator[Any, Any, bool]:
    """One thread's calls in order, each after its recorded gap; True when it stopped in a
    call the recording shows in progress at the process's end."""
    mpi, log = replay.mpi, replay.log
    port, reached, rank = port_of(mpi), replay.program.reached, mpi.rank
    calls, shapes, results = log.calls, log.calls.shapes, log.calls.results
    for number, s, res, gap in items:
        reached[rank] = ("in", number)
        shape = shapes[s]
        site = log.sites.get(shape.site) if shape.site is not None else None
        thread = shape.args.get("t", 0)
        where = f"call {number}" + (f" (thread {thread})" if thread else "") + \
            (f", {site.describe()}" if site is not None else "")
        gap *= replay.scale
        if gap > 0 and shape.name != "Init":
            port.where = where
            yield mpi.compute(gap)
        port.where = where
        failed = results[res].error if res >= 0 else None
        try:
            make, after = replay.kept_op(s, res, shape, number - 1)
            if after is generic:
                yield from make(replay, calls.call(number - 1))
            else:
                value = yield make()
                if after is not None:
                    after(value, number - 1)
        except MPIError as e:
            if failed is not None and not isinstance(e, Unsupported):
                caught(replay, calls.call(number - 1), e)  # still a finding
                continue  # the recorded program went on after this call's error
            raise
        else:
            if failed is not None:
                replay.note(calls.call(number - 1), f"failed with {failed} in the "
                            "recording, succeeded in the replay")
        reached[rank] = ("after", number)
        if res < 0:
            replay.ended_in(calls.call(number - 1))
            return True
    return False
