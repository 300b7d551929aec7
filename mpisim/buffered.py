"""The buffered-mode calls of the ``mpi`` handle (3.6, 3.6.1, and MPI 4.1's flush).

A mixin of :class:`~mpisim.rank.Rank`: attach, detach, flush, the bsend step that places an
entry and posts the standard-mode send for it, and what MPI_Finalize waits for. The buffer
itself (allocation, recording) is :mod:`mpisim.bsend.buffer`; this module ties it to the
transport and to the events the program yields.
"""

from __future__ import annotations

from typing import Any

from simpy.events import Event

from .constants import PROC_NULL, automatic_or
from .errors import ErrArg, ErrBuffer, MPIError
from .p2p.events import done, failed, fire_at, pending
from .p2p.protocols import BUFFERED, Message
from .p2p.requests import Request
from .units import UnitError, parse_size

__all__ = ["BufferedCalls"]


class BufferedCalls:
    """Buffered-mode calls; needs the Rank's env, _buffer, _profile, _tp, _copy_bw, _enter."""

    env: Any
    rank: int
    _buffer: Any
    _profile: Any
    _tp: Any
    _copy_bw: float | None

    def _enter(self, call: str, detail: tuple) -> None:  # pragma: no cover - Rank's
        raise NotImplementedError

    def _buffered(self, sreq: Request, dest: int, tag: int, nbytes: int, data: Any,
                  earliest: float, comm: Any = None) -> float:
        """3.6.1: place an entry, post a standard send for it; returns when the call returns."""
        profile, buffer, env = self._profile, self._buffer, self.env
        direct = profile.bsend_direct_limit
        if (direct is not None and nbytes <= direct) or (
                nbytes == 0 and not buffer.attached and profile.zero_bsend_unattached_ok):
            self._tp.post_send(self.rank, dest, tag, nbytes, data, BUFFERED, sreq, earliest,
                               local=True, ctx=sreq.ctx)  # copied into transport memory
            return earliest
        entry = buffer.reserve(nbytes, dest, tag, env._now)
        if self._copy_bw:
            earliest += nbytes / self._copy_bw
        inner = Request("send", "MPI_Bsend(internal)", self.rank, dest, tag, nbytes)
        inner.where = sreq.where

        def sent(_msg: Message) -> None:
            buffer.complete(entry, env._now)

        msg = self._tp.post_send(self.rank, dest, tag, nbytes, data, BUFFERED, inner, earliest,
                                 sent, ctx=sreq.ctx)
        buffer.link(entry, msg)
        if profile.ibsend_completes_at_once:
            sreq.known(earliest)
        else:
            inner.on_known(lambda r: sreq.known(r.done_at))
        return earliest

    def buffer_attach(self, size: int | str, buf: Any = None) -> Event:
        """MPI_Buffer_attach(size): ``buf`` (optional) is what detach hands back as address."""
        self._enter("MPI_Buffer_attach", (None, None, 0, None))
        try:
            if isinstance(size, str):
                try:
                    size = automatic_or(lambda v: parse_size(v, allow_negative=True), size)
                except UnitError as e:
                    raise ErrArg(f"buffer size: {e}") from None
            self._buffer.attach(size, buf, self.env._now)
        except MPIError as e:
            return failed(self.env, e)
        return done(self.env, None)

    def buffer_detach(self) -> Event:
        """MPI_Buffer_detach: waits until every buffered message is sent; yields
        (address, size)."""
        env, buffer = self.env, self._buffer
        self._enter("MPI_Buffer_detach", (None, None, 0, None))
        if not buffer.attached:
            if self._profile.detach_unattached_error:
                return failed(env, ErrBuffer(f"no buffer is attached ({self._profile.name} "
                                             "refuses a detach without one)"))
            return done(env, (None, 0))
        return self._drained(lambda: buffer.detach(env._now))

    def buffer_flush(self) -> Event:
        """MPI_Buffer_flush (MPI 4.1): waits until the messages in the attached buffer at
        the call have been transmitted (bsends made meanwhile by other requests do not
        delay it); the buffer stays attached."""
        self._enter("MPI_Buffer_flush", (None, None, 0, None))
        env = self.env
        ev = pending(env)
        if not self._buffer.on_sent(lambda: fire_at(ev, env._now, None)):
            return done(env, None)
        return ev

    def buffer_iflush(self) -> Event:
        """MPI_Buffer_iflush (MPI 4.1): yields a Request that completes when the messages in
        the buffer at the call have been transmitted."""
        self._enter("MPI_Buffer_iflush", (None, None, 0, None))
        req = Request("send", "MPI_Buffer_iflush", self.rank, PROC_NULL, 0, 0)
        env = self.env
        if not self._buffer.on_sent(lambda: req.known(env._now)):
            req.known(env._now)
        return done(env, req)

    def _drained(self, value: Any) -> Event:
        """An event that happens when no entry of the attached buffer is pending."""
        env, buffer = self.env, self._buffer
        if buffer.pending == 0:
            return done(env, value())
        ev = pending(env)
        buffer.on_drained(lambda: fire_at(ev, env._now, value()))
        return ev

    # -- end of the program --------------------------------------------------------------
    def finalize(self) -> Event | None:
        """What MPI_Finalize waits for: buffered messages still pending. None if nothing."""
        buffer, env = self._buffer, self.env
        if not buffer.attached:
            return None
        self._enter("MPI_Finalize", (None, None, 0, None))
        if buffer.pending == 0:
            buffer.detach(env._now)
            return None
        ev = pending(env)
        buffer.on_drained(lambda: (buffer.detach(env._now), fire_at(ev, env._now, None)))
        return ev
