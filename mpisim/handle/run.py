"""What one run's ranks share beyond point-to-point: :class:`RunState`.

The simulation (:class:`mpisim.runs.simulation.Simulation`) builds one and hands it to every
rank's handle at construction: the run's one-sided communication, its MPI-IO (made with the
first file call), its correctness findings and its poll watch. Each is typed here, so a
checker follows a handle's call to the chapter state it works on; none rides on the
point-to-point transport.

It lives with the handle, not on the ground floor: it names the chapters' run-wide objects
(``rma``, ``io``), which stand above the engine. The transport keeps what its own message
path reads (the findings of a type mismatch, a race exploration's order, where a rank is),
given to it as typed fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..io.runtime import FileIO
    from ..mpi.findings import Findings
    from ..p2p.protocols import Transport
    from ..rma.runtime import OneSided

__all__ = ["PollCounter", "RunState"]


class PollCounter(Protocol):
    """The run's poll watch (:class:`mpisim.runs.deadlock.PollWatch`), as a handle sees it:
    told of each poll that found nothing (a loop of them that never ends is a livelock)."""

    def failed_poll(self, mpi: Any, later: Any) -> None: ...


class RunState:
    """One run's state shared by all its ranks (see the module).

    ``transport`` moves the run's messages; ``one_sided`` is its one-sided communication
    (None: the handle was built outside a run, and window calls are refused);
    ``findings`` collects the correctness findings (None: not checked); ``poll_watch``
    counts failed polls (None: no livelock detection); ``file_io`` is the run's MPI-IO,
    None until the first file call makes it (a run without files adds nothing).
    """

    __slots__ = ("daemons", "dynamic", "file_io", "findings", "one_sided", "poll_watch",
                 "thread_failed", "thread_seed", "transport", "waiting")

    def __init__(self, transport: Transport, one_sided: OneSided | None = None,
                 findings: Findings | None = None) -> None:
        self.transport = transport
        self.one_sided = one_sided
        self.findings = findings
        self.poll_watch: PollCounter | None = None  # set once the run's processes exist
        self.file_io: FileIO | None = None
        self.dynamic: Any = None  # the run's spawned processes and ports (MPI 4.1 §11.8),
        # a :class:`mpisim.handle.dynamic.Spawner`; None: a handle outside a run
        # told when an exception escapes one of a rank's threads (mpisim.engine.threads);
        # the simulation ends the run with it, a handle outside a run raises it
        self.thread_failed: Callable[[Any], None] = _raise_thread_error
        # the event a rank's program waits for (the thread-level checks ask whether the
        # main thread is inside a call); None: not known
        self.waiting: Callable[[int], Any] | None = None
        # the order of a rank's threads runnable at one instant: 0, the order they became
        # runnable in; another seed, an order drawn from it (handle.threads.Host.defer)
        self.thread_seed = 0
        self.daemons = 0  # daemon threads spawned: the run ends when every rank has, as a
        # process exits without waiting for its daemon threads

    def __repr__(self) -> str:
        return f"<run state of {self.transport.size} ranks>"


def _raise_thread_error(thread: Any) -> None:
    raise thread._value
