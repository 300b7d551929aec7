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

The process's own buffer (MPI_Buffer_attach and its kin, 3.6) has its calls here too, and the
choice of the buffer a bsend uses (``_buffered_for``).
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from ..buffered.mode import BufferedMode, missing_mpi41
from ..engine.clock import done, failed
from ..mpi.causes import CallDetail
from ..mpi.comm import Session
from ..mpi.constants import BUFFER_AUTOMATIC, BufferAutomatic, automatic_or
from ..mpi.errors import ErrArg, MPIError
from ..p2p.requests import Request
from .base import HandleBase

__all__ = ["BufferCalls", "buffer_request", "owned_buffer"]


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


class BufferCalls(HandleBase):
    """MPI 4.1 §3.6: the process's buffer, and its communicators' and sessions'."""

    __slots__ = ()

    def _buffered_for(self, comm: Any) -> BufferedMode:
        """The buffer a bsend on ``comm`` uses, chosen when it starts (MPI 4.1 §3.6): the
        communicator's, else its session's, else the process's (``mpi.buffer_policy``
        "process": always the process's; "communicator": an automatic one per
        communicator)."""
        policy = self._config.buffer_policy
        if policy == "process":
            return self._buffered
        if comm is None:
            comm = self._world
            if comm is None and policy == "communicator":
                comm = self.comm_world
        if comm is not None:
            if policy == "communicator" and comm.buffer is None \
                    and self._config.profile.mpi41_buffers:
                made = owned_buffer(self, "MPI_Comm_attach_buffer", comm, True)
                assert made is not None  # (create=True makes it)
                made.attach(BUFFER_AUTOMATIC, None)
            own = comm.buffer
            if own is not None and own.attached:
                return own
            session = comm.session
            if session is not None and session.buffer is not None and session.buffer.attached:
                return session.buffer
        return self._buffered

    def buffer_attach(self, size: int | str | BufferAutomatic, buf: Any = None) -> Event:
        """MPI_Buffer_attach(size): ``buf`` (optional) is what detach hands back as address;
        ``size`` may be BUFFER_AUTOMATIC (MPI 4.1).

        Parameters
        ----------
        size
            Bytes of the buffer (an int, or a string with a unit: ``"64 KiB"``),
            or ``ms.BUFFER_AUTOMATIC`` (MPI 4.1: the library sizes it).
        buf
            What detach hands back as the buffer's address (any object;
            optional).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        self._enter("MPI_Buffer_attach")
        if not self._config.profile.mpi41_buffers and (size is BUFFER_AUTOMATIC or (
                isinstance(size, str) and automatic_or(str, size) is BUFFER_AUTOMATIC)):
            return failed(self._env, ErrArg(f"{self._config.profile.name} has no "
                                           "MPI_BUFFER_AUTOMATIC "
                                           "(an MPI 4.1 address; Open MPI 5.0 answers "
                                           "MPI_ERR_ARG)"))
        if self._config.buffer_policy == "automatic":
            size = BUFFER_AUTOMATIC
        return self._buffered.attach(size, buf)

    def buffer_detach(self) -> Event:
        """MPI_Buffer_detach: waits until every buffered message is sent; yields
        (address, size)."""
        self._enter("MPI_Buffer_detach")
        return self._buffered.detach()

    def buffer_flush(self) -> Event:
        """MPI_Buffer_flush (MPI 4.1): waits until the messages in the attached buffer at
        the call have been transmitted (bsends made meanwhile by other requests do not
        delay it); the buffer stays attached.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        self._enter("MPI_Buffer_flush")
        if not self._config.profile.mpi41_buffers:
            return failed(self._env, missing_mpi41("MPI_Buffer_flush", self._config.profile))
        return self._buffered.flush()

    def buffer_iflush(self) -> Event:
        """MPI_Buffer_iflush (MPI 4.1): yields a Request that completes when the messages in
        the buffer at the call have been transmitted."""
        self._enter("MPI_Buffer_iflush")
        if not self._config.profile.mpi41_buffers:
            return failed(self._env, missing_mpi41("MPI_Buffer_iflush", self._config.profile))
        return self._buffered.iflush()

    def _finalize(self) -> Event | None:
        """What MPI_Finalize waits for: buffered messages still pending in any of the
        process's buffers (its own, its communicators', its sessions'). None if nothing."""
        attached = [b for b in (self._buffered, *self._named_buffers) if b.attached]
        if not attached:
            return None
        self._enter("MPI_Finalize", obj=attached[0])
        if len(attached) == 1:
            return attached[0].finalize()
        return self._env.process(self._finalize_all(attached))

    def _finalize_all(self, buffers: list[BufferedMode]) -> Any:
        for buffer in buffers:
            self._works_on(CallDetail(obj=buffer))
            waiting = buffer.finalize()
            if waiting is not None:
                yield waiting

    def comm_attach_buffer(self, size: Any, comm: Any = None, buf: Any = None) -> Event:
        """MPI_Comm_attach_buffer: bsends on ``comm`` use this buffer (MPI 4.1).

        Parameters
        ----------
        size
            Bytes of the buffer (an int, or a string with a unit: ``"64 KiB"``),
            or ``ms.BUFFER_AUTOMATIC`` (MPI 4.1: the library sizes it).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        buf
            What detach hands back as the buffer's address (any object;
            optional).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return _do(self, "MPI_Comm_attach_buffer", comm, "attach", size, buf)

    def comm_detach_buffer(self, comm: Any = None) -> Event:
        """MPI_Comm_detach_buffer: waits for its messages; yields (address, size).

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return _do(self, "MPI_Comm_detach_buffer", comm, "detach")

    def comm_flush_buffer(self, comm: Any = None) -> Event:
        """MPI_Comm_flush_buffer: waits for the messages in ``comm``'s buffer at the call.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return _do(self, "MPI_Comm_flush_buffer", comm, "flush")

    def comm_iflush_buffer(self, comm: Any = None) -> Event:
        """MPI_Comm_iflush_buffer: yields a Request for that flush.

        Parameters
        ----------
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return _do(self, "MPI_Comm_iflush_buffer", comm, "iflush")

    def session_attach_buffer(self, size: Any, session: Any = None, buf: Any = None) -> Event:
        """MPI_Session_attach_buffer: bsends on the session's communicators use this buffer
        unless the communicator has its own.

        Parameters
        ----------
        size
            Bytes of the buffer (an int, or a string with a unit: ``"64 KiB"``),
            or ``ms.BUFFER_AUTOMATIC`` (MPI 4.1: the library sizes it).
        session
            The session (MPI_Session, as ``session_init`` yields it); required.
        buf
            What detach hands back as the buffer's address (any object;
            optional).

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return _do(self, "MPI_Session_attach_buffer", session, "attach", size, buf)

    def session_detach_buffer(self, session: Any = None) -> Event:
        """MPI_Session_detach_buffer: waits for its messages; yields (address, size).

        Parameters
        ----------
        session
            The session (MPI_Session, as ``session_init`` yields it); required.
        """
        return _do(self, "MPI_Session_detach_buffer", session, "detach")

    def session_flush_buffer(self, session: Any = None) -> Event:
        """MPI_Session_flush_buffer.

        Parameters
        ----------
        session
            The session (MPI_Session, as ``session_init`` yields it); required.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        return _do(self, "MPI_Session_flush_buffer", session, "flush")

    def session_iflush_buffer(self, session: Any = None) -> Event:
        """MPI_Session_iflush_buffer: yields a Request.

        Parameters
        ----------
        session
            The session (MPI_Session, as ``session_init`` yields it); required.
        """
        return _do(self, "MPI_Session_iflush_buffer", session, "iflush")
