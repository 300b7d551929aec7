"""What the run and the front ends may reach of a rank's handle beyond its MPI calls.

The handle's public names are MPI's; what it keeps for the run is private. The floors above
it (the run, the scenario and replay interpreters, the mpi4py stand-in, the what-if
explorations) reach that state through these functions and through the rank's port
(:func:`port_of`), never through its underscore attributes: a test
(``tests/architecture/test_privates.py``) holds them to it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from simpy.events import Event

from ..buffered.mode import BufferedMode
from ..engine.port import RankPort
from ..mpi.addresses import AddressSpace
from ..mpi.causes import CallDetail
from ..p2p.order import Order
from .base import HandleBase
from .buffers import BufferCalls
from .lifecycle import Lifecycle

__all__ = [
    "address_space",
    "bind_process",
    "buffered_of",
    "call_of",
    "call_where_of",
    "calling",
    "config_of",
    "driven",
    "explore_races",
    "finalize",
    "in_thread",
    "is_polling",
    "last_poll",
    "lifecycle_of",
    "named_buffers_of",
    "note_failed_poll",
    "port_of",
    "posted_receives",
    "stop_call_log",
    "threads_of",
    "unyielded_call",
    "watch_polls",
]


def port_of(mpi: HandleBase) -> RankPort:
    """The rank's port (:class:`~mpisim.engine.port.RankPort`): its call entry, clock,
    communicators and the program's place (``port.where``) an interpreter sets."""
    return mpi._port


def bind_process(mpi: HandleBase, proc: Any) -> None:
    """The rank's handle and its process (:class:`~mpisim.engine.process.RankProcess`):
    each call sets the process's mark of a call not yet yielded, which the process clears
    at each yield (see :mod:`mpisim.engine.yields`)."""
    mpi._proc = proc


def driven(mpi: HandleBase) -> None:
    """A driver (the mpi4py stand-in, the replayer) takes each call's event itself: the
    handle no longer refuses a call whose previous event was not yielded."""
    mpi._proc.checked = False


def address_space(mpi: HandleBase) -> AddressSpace:
    """The process's address space (MPI 4.1 §4.1.5), made when first needed."""
    return mpi._addresses()


def config_of(mpi: HandleBase) -> Any:
    """The run's MPIConfig (:class:`mpisim.profiles.library.MPIConfig`): its profile,
    buffer policy and settings."""
    return mpi._config


def lifecycle_of(mpi: HandleBase) -> Lifecycle | None:
    """What the correctness checks keep of the rank (None: not checked)."""
    return mpi._life


def posted_receives(mpi: HandleBase) -> list[Any]:
    """The receives the rank has posted and that have not matched, in posting order (3.5)."""
    return mpi._tp.queues[mpi.rank].posted


def calling(mpi: HandleBase) -> tuple[str | None, CallDetail, Any]:
    """The call the rank is in (or last made), what it works on, and where the program made
    it (the interpreters' place; None if not known)."""
    return mpi._call, mpi._detail, mpi._call_where


def explore_races(mpi: HandleBase, forced: dict[int, int]) -> Order:
    """A race exploration: the run records its happens-before order (one record for the
    run, made by its first rank), and the rank's wildcard receives number ``k`` match the
    sender ``forced[k]``. The run's order."""
    tp = mpi._tp
    order = tp.order
    if order is None:
        order = tp.order = Order(mpi.size)
    mpi._wildcards = forced
    return order


# -- what the run reads and tells of each rank (its reports, its poll watch) ------------
def call_of(mpi: HandleBase) -> str | None:
    """The MPI call the rank is in (or last made); None before its first."""
    return mpi._call


def call_where_of(mpi: HandleBase) -> Any:
    """Where the program made that call (the scenario's or replay's place), if known."""
    return mpi._call_where


def unyielded_call(mpi: HandleBase) -> str | None:
    """The call the program made and whose event it never yielded (a driver that takes
    the events itself is not asked); None if every call was yielded."""
    proc = mpi._proc
    return mpi._call if proc.unyielded and proc.checked else None


def buffered_of(mpi: HandleBase) -> BufferedMode:
    """The rank's buffered mode: its attached buffer (MPI 4.1 §3.6)."""
    return mpi._buffered


def named_buffers_of(mpi: HandleBase) -> tuple[BufferedMode, ...]:
    """The buffers attached to the rank's communicators and sessions (MPI 4.1 §3.6)."""
    return mpi._named_buffers


def finalize(mpi: BufferCalls) -> Event | None:
    """The rank's program returned: its part of MPI_Finalize (its attached buffers
    delivered); the event it waits for, or None."""
    return mpi._finalize()


def stop_call_log(mpi: HandleBase) -> None:
    """The trace stops: the rank logs no more calls."""
    mpi._log = None


def watch_polls(mpi: HandleBase, watch: Any) -> None:
    """The run's poll watch now watches the rank: its calls other than polls reset the
    watch's count (see :meth:`HandleBase._enter`)."""
    mpi._watch = watch


def note_failed_poll(mpi: HandleBase) -> None:
    """The rank's poll found nothing: kept as its last poll (a livelock report names it)."""
    mpi._last_poll = (mpi._call, mpi._detail, mpi._call_where)


def last_poll(mpi: HandleBase) -> tuple[str | None, CallDetail, Any] | None:
    """The rank's last poll that found nothing: (call, what it works on, where)."""
    return mpi._last_poll


def is_polling(mpi: HandleBase) -> bool:
    """Whether the rank's last call was a poll that found nothing (or a compute after one)."""
    return mpi._polling


def threads_of(mpi: HandleBase) -> list[Any]:
    """The threads the rank's program spawned (:class:`~mpisim.engine.threads.SimThread`),
    in spawn order; empty for a rank that spawned none."""
    return list(getattr(mpi, "_threads", ()))


@contextmanager
def in_thread(mpi: HandleBase, thread: Any) -> Iterator[None]:
    """The handle as ``thread`` (a :class:`~mpisim.engine.threads.SimThread`) sees it: its
    call and place, for a report of what that thread does; the main thread's state is back
    afterwards."""
    host = thread.host
    saved = host.show(thread)
    try:
        yield
    finally:
        host.hide(thread, saved)
