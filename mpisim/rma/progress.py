"""When a target serves what reaches it: at once, or at its next MPI call.

MPI lets an implementation serve one-sided requests only while the target is inside MPI
(MPI 4.1 §12.7, "progress"). Measured on one node (docs/guide/facts-rma.md), with the
target asleep 0.5 s outside MPI:

- MPICH 5.0.2 grants a lock only inside MPI, whatever the window (``MPI_Win_lock`` waits
  for the target's next call: ``rma_lock_progress``), and serves operations on a window over
  the program's own memory (MPI_Win_create) only inside MPI; on memory it allocated
  (MPI_Win_allocate) the origin writes the shared memory itself (``rma_progress:
  created``).
- Open MPI 5.0.11 serves everything of a created window only inside MPI and nothing of an
  allocated one needs the target (``rma_progress: created``, no ``rma_lock_progress``).

:class:`TargetService` applies that: a request (an operation's data, a get's request, a
lock request or release) that reaches a target computing (``mpi.compute``, a sleep in an
mpi4py script) is held, and served when the target next enters MPI, in arrival order;
otherwise it is served when it arrives. It learns that a rank enters MPI from the
transport's receiver progress (:class:`~mpisim.p2p.progress.ReceiverProgress`), which it
adds, tracking only who computes, to a run whose profile has none.

A process that has called MPI_Finalize serves nothing that needs it inside MPI, ever: MPICH
5.0.2 never grants a lock asked of a process in MPI_Finalize (``MPI_Win_lock`` hangs;
tests/data/real/rma/lock_finalized.py). Whatever the profile, a request that reaches it is
an error of the program (``rma-target-finalized``, MPI 4.1 §11.2.2: a process completes its
part in the others' communications, and frees its windows, before MPI_Finalize).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.clock import callback_at
from ..mpi.findings import Call
from ..p2p.progress import ReceiverProgress

__all__ = ["TargetService"]


class TargetService:
    """Serves requests at their targets (see the module)."""

    __slots__ = ("env", "findings", "gone", "held", "progress")

    def __init__(self, env: Any, transport: Any, size: int, needed: bool) -> None:
        self.env = env
        self.held: dict[int, list[Callable[[], None]]] = {}
        self.gone: set[int] = set()  # ranks in MPI_Finalize
        self.findings = transport.findings
        progress = transport.progress
        if progress is None and needed:  # only who computes is tracked (no p2p effect)
            progress = transport.progress = ReceiverProgress(size, None, None, None, False)
        self.progress = progress
        if progress is not None:
            progress.listeners.append(self._entered)

    def serve(self, target: int, when: float, fn: Callable[[], None], needs_mpi: bool,
              what: tuple[int, str, str] | None = None) -> None:
        """Run ``fn`` at ``target`` at time ``when``, or, if ``needs_mpi`` and the target
        is then computing, at its next MPI call (never, once it is in MPI_Finalize).
        ``what``: the origin's rank, call and place, for a finding."""
        callback_at(self.env, when, self._arrived, (target, fn, needs_mpi, what))

    def _arrived(self, ev: Any) -> None:
        target, fn, needs_mpi, what = ev._value
        progress = self.progress
        if target in self.gone:
            self._after_finalize(target, what)
            if needs_mpi:
                self.held.setdefault(target, []).append(fn)
                return
        elif needs_mpi and progress is not None and progress.computing[target]:
            self.held.setdefault(target, []).append(fn)
            return
        fn()

    def _entered(self, rank: int) -> None:
        """``rank`` makes an MPI call after computing: serve what waited for it (not in
        MPI_Finalize: see the module)."""
        if rank in self.gone:
            return
        for fn in self.held.pop(rank, ()):
            fn()

    def finalized(self, rank: int) -> None:
        """``rank`` calls MPI_Finalize: what waits for it inside MPI waits for ever."""
        self.gone.add(rank)
        if self.held.get(rank):  # requests that waited for its next call: it never comes
            self._after_finalize(rank, None)

    def _after_finalize(self, target: int, what: tuple[int, str, str] | None) -> None:
        if self.findings is None:
            return
        origin = "" if what is None else f" ({what[1]} of rank {what[0]})"
        calls = () if what is None else (Call(what[0], what[1], what[2]),)
        self.findings.add("rma-target-finalized", (
            f"rank {target} was asked for one-sided communication{origin} after it called "
            "MPI_Finalize: its window was never freed (MPI_Win_free is collective and comes "
            "before MPI_Finalize, MPI 4.1 §11.2.2)"), calls)

    def waiting(self, rank: int) -> int:
        """How many requests wait for ``rank`` to enter MPI."""
        return len(self.held.get(rank, ()))
