"""Communicator and session buffers (MPI 4.1 §3.6): calls of the ``mpi`` handle.

MPI 4.1 lets a buffer be attached to a communicator or to a session as well as to the
process. A buffered send uses its communicator's buffer, else that of the communicator's
session, else the process's, chosen when the send starts. Each is one more
:class:`~mpisim.buffered.mode.BufferedMode`: attached one at a time (a second attach to the same
communicator or session is MPI_ERR_BUFFER), with its own allocator, recording
(``trace.named_buffers``) and summary (``result.ranks[r].buffers``), flushed without
detaching it; ``BUFFER_AUTOMATIC`` works for any of them. MPI_Finalize waits for every
buffer of the process; freeing a communicator with a buffer attached detaches it first,
waiting for its messages (MPI 4.1 leaves this open; MPICH detaches it). A profile whose
library lacks these calls (``mpi41_buffers`` false: Open MPI 5.0) refuses them with
MPI_ERR_OTHER naming the call.

Each function is a method of :class:`~mpisim.handle.rank.Rank` (assigned in its module).
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..buffered.mode import BufferedMode, missing_mpi41
from ..engine.clock import done, failed
from ..mpi.comm import Session
from ..mpi.constants import BUFFER_AUTOMATIC
from ..mpi.errors import ErrArg, MPIError
from ..p2p.requests import Request

__all__ = ["CALLS", "owned_buffer"]


def owned_buffer(mpi: Any, call: str, owner: Any, create: bool) -> BufferedMode | None:
    """The buffered mode of a communicator or session (made on its first attach)."""
    if not mpi._config.profile.mpi41_buffers:
        raise missing_mpi41(call, mpi._config.profile)
    if owner.buffer is None and create:
        kind = "session" if isinstance(owner, Session) else "comm"
        label = owner.name if kind == "session" else owner.label_or_name
        own = mpi._buffered
        owner.buffer = BufferedMode(mpi.rank, mpi._env, own.tp, own.config, own.recorder,
                                    name=f"{kind} {label}")
        mpi._named_buffers = (*mpi._named_buffers, owner.buffer)
    return owner.buffer


def _do(mpi: Any, call: str, owner: Any, action: str, *args: Any) -> Event:
    """``action`` (attach, detach, flush, iflush) on the buffer of ``owner``."""
    env = mpi._env
    try:
        if call.startswith("MPI_Session"):
            if not isinstance(owner, Session) or owner.finalized:
                raise ErrArg(f"{call}: {owner!r} is not an active session")
        else:
            owner = mpi._comm(owner)
        buffer = owned_buffer(mpi, call, owner,
                              action == "attach" and mpi._config.buffer_policy != "process")
    except MPIError as e:
        mpi._enter(call)
        return failed(env, e)
    mpi._enter(call, obj=buffer)
    policy = mpi._config.buffer_policy
    if policy == "process" or (buffer is None and action != "attach"):
        # ignored by mpi.buffer_policy "process", or nothing was ever attached to it
        return done(env, (None, 0)) if action == "detach" else (
            done(env, None) if action == "flush" else buffer_request(mpi, call))
    if action == "attach" and policy == "automatic":
        args = (BUFFER_AUTOMATIC, *args[1:])
    return getattr(buffer, action)(*args)


def buffer_request(mpi: Any, call: str) -> Event:
    """The completed Request of an iflush with nothing to flush."""
    req = Request("send", call, mpi.rank, -1, 0, 0)
    req.known(mpi._env._now)
    return done(mpi._env, req)


def comm_attach_buffer(self: Any, size: Any, comm: Any = None, buf: Any = None) -> Event:
    """MPI_Comm_attach_buffer: bsends on ``comm`` use this buffer (MPI 4.1)."""
    return _do(self, "MPI_Comm_attach_buffer", comm, "attach", size, buf)


def comm_detach_buffer(self: Any, comm: Any = None) -> Event:
    """MPI_Comm_detach_buffer: waits for its messages; yields (address, size)."""
    return _do(self, "MPI_Comm_detach_buffer", comm, "detach")


def comm_flush_buffer(self: Any, comm: Any = None) -> Event:
    """MPI_Comm_flush_buffer: waits for the messages in ``comm``'s buffer at the call."""
    return _do(self, "MPI_Comm_flush_buffer", comm, "flush")


def comm_iflush_buffer(self: Any, comm: Any = None) -> Event:
    """MPI_Comm_iflush_buffer: yields a Request for that flush."""
    return _do(self, "MPI_Comm_iflush_buffer", comm, "iflush")


def session_attach_buffer(self: Any, size: Any, session: Any = None, buf: Any = None) -> Event:
    """MPI_Session_attach_buffer: bsends on the session's communicators use this buffer
    unless the communicator has its own."""
    return _do(self, "MPI_Session_attach_buffer", session, "attach", size, buf)


def session_detach_buffer(self: Any, session: Any = None) -> Event:
    """MPI_Session_detach_buffer: waits for its messages; yields (address, size)."""
    return _do(self, "MPI_Session_detach_buffer", session, "detach")


def session_flush_buffer(self: Any, session: Any = None) -> Event:
    """MPI_Session_flush_buffer."""
    return _do(self, "MPI_Session_flush_buffer", session, "flush")


def session_iflush_buffer(self: Any, session: Any = None) -> Event:
    """MPI_Session_iflush_buffer: yields a Request."""
    return _do(self, "MPI_Session_iflush_buffer", session, "iflush")


CALLS = {f.__name__: f for f in (
    comm_attach_buffer, comm_detach_buffer, comm_flush_buffer, comm_iflush_buffer,
    session_attach_buffer, session_detach_buffer, session_flush_buffer, session_iflush_buffer)}
"""The handle's methods defined here, by name."""
