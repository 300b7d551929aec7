"""MPI_Message (MPI 4.1 §3.8.2): a message a matched probe has taken out of matching.

MPI_Mprobe and MPI_Improbe match a message as a receive would, and take it: no other
receive or probe can match it afterwards (the guarantee a probe then a receive lacks when
two threads, or two libraries, receive from the same source). The caller receives it with
MPI_Mrecv or MPI_Imrecv through the :class:`Matched` handle they return, once.
:data:`NO_PROC` is MPI_MESSAGE_NO_PROC, what a matched probe of MPI_PROC_NULL returns: its
receive completes at once with the PROC_NULL status.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NO_PROC", "Matched"]


class Matched:
    """The handle of a matched message (MPI_Message): its rank, the message (None for
    MPI_MESSAGE_NO_PROC) and its communicator (None: MPI_COMM_WORLD)."""

    __slots__ = ("comm", "msg", "rank", "received")

    def __init__(self, rank: int, msg: Any, comm: Any = None) -> None:
        self.rank = rank
        self.msg = msg
        self.comm = comm
        self.received = False  # a matched message is received once

    def __repr__(self) -> str:
        if self.msg is None:
            return "<MPI_MESSAGE_NO_PROC>"
        state = "received" if self.received else "matched"
        return (f"<MPI_Message from rank {self.msg.src} tag {self.msg.tag} "
                f"{self.msg.nbytes} B {state}>")


NO_PROC = Matched(-1, None)
"""MPI_MESSAGE_NO_PROC: the message of a matched probe of MPI_PROC_NULL."""
