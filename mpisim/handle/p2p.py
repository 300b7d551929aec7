"""Point-to-point calls of the ``mpi`` handle (MPI 4.1 §3): sends of the four modes and
their nonblocking forms, receives, probes and matched probes (§3.8.2, with their receives),
and the completion calls (wait and test).

A send checks its arguments, picks the protocol its mode and size call for (see
:mod:`mpisim.p2p.protocols`) and returns the event its program yields: at once for a
nonblocking send (its Request), when its data is in the buffer for a bsend, when the
request completes for a blocking send. A receive posts a Request that matching completes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from simpy.events import Event

from ..engine.clock import at, done, failed, fire_at, pending
from ..engine.sites import program_site, site_text
from ..mpi import datatypes as _dt
from ..mpi.comm import Comm
from ..mpi.constants import ANY_SOURCE, ANY_TAG, BOTTOM, COUNT_MAX, PROC_NULL, TAG_UB
from ..mpi.errors import ErrBuffer, ErrComm, ErrRequest, MPIError
from ..mpi.findings import Call
from ..p2p import completion
from ..p2p.calls import check_datatype, check_dest, check_source, check_tag
from ..p2p.matched import NO_PROC, Matched
from ..p2p.payload import message_bytes, outgoing, receive_capacity
from ..p2p.protocols import BUFFERED, READY, STANDARD, SYNCHRONOUS
from ..p2p.requests import Request, Status
from ..values.units import format_time
from .base import POLL_TIME, HandleBase
from .threadrules import probed

__all__ = ["PointToPoint"]


class PointToPoint(HandleBase):
    """MPI 4.1 §3: sends, receives, probes, waits and tests."""

    __slots__ = ()

    # -- sends ---------------------------------------------------------------------------
    def send(self, buf: Any = None, count: int | None = None, datatype: Any = None,
             dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Send (standard mode): eager below the eager limit, else rendezvous.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is None. The call returns as its mode says
            (above).
        """
        return self._send("MPI_Send", STANDARD, buf, count, datatype, dest, tag, True, comm)


    def bsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Bsend: copy into the attached buffer and return, or raise MPI_ERR_BUFFER.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is None. The call returns as its mode says
            (above).
        """
        return self._send("MPI_Bsend", BUFFERED, buf, count, datatype, dest, tag, True, comm)


    def ssend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Ssend: completes only once the matching receive has started.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is None. The call returns as its mode says
            (above).
        """
        return self._send("MPI_Ssend", SYNCHRONOUS, buf, count, datatype, dest, tag, True, comm)


    def rsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Rsend: erroneous unless the matching receive is already posted.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.

        Returns
        -------
        Event
            Yield it; its value is None. The call returns as its mode says
            (above).
        """
        return self._send("MPI_Rsend", READY, buf, count, datatype, dest, tag, True, comm)


    def isend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Isend: yields a Request.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._send("MPI_Isend", STANDARD, buf, count, datatype, dest, tag, False, comm)


    def ibsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
               dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Ibsend: yields a Request; the data is in the attached buffer on return.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._send("MPI_Ibsend", BUFFERED, buf, count, datatype, dest, tag, False, comm)


    def issend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
               dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Issend: yields a Request that completes after the match.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._send("MPI_Issend", SYNCHRONOUS, buf, count, datatype, dest, tag, False, comm)


    def irsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
               dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Irsend: yields a Request.

        Parameters
        ----------
        buf
            The data: a numpy array (its dtype gives the datatype when none is
            given, its size the count), any other Python object (sent as a copy;
            ``count`` then required), ``ms.BOTTOM`` (absolute addresses, with a
            derived datatype), or None (the default): ``count`` elements of
            ``datatype`` with no data, their size only.
        count
            Number of elements of ``datatype`` (MPI's count). Default: the whole
            numpy ``buf``; 0 with no ``buf``.
        datatype
            The MPI datatype of an element (``ms.INT``, ``ms.DOUBLE``, a
            committed derived type). Default: the numpy ``buf``'s dtype's, else
            ``ms.BYTE``.
        dest
            Rank of the receiver in ``comm`` (or ``ms.PROC_NULL``: no message);
            required.
        tag
            The message tag, 0 to ``ms.TAG_UB``; 0 by default.
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        return self._send("MPI_Irsend", READY, buf, count, datatype, dest, tag, False, comm)


    def _send(self, call: str, mode: str, buf: Any, count: Any, datatype: Any, dest: Any,  # noqa: C901, PLR0915 -- hot: 99,719 / 68,345 instructions a bsend / send (bench.instructions)
              tag: Any, blocking: bool, comm: Comm | None = None,
              req: Request | None = None) -> Event:
        """A send of any mode; ``req``: a persistent request to start instead of a new one."""
        env = self._env
        ctx = 0
        dt: _dt.Datatype | None  # (local annotations: no code)
        typed: _dt.Datatype | None
        try:
            if comm is not None and comm.info is not self._comms.world:
                dest, ctx, comm = self._peer(comm, dest, False)
            elif type(dest) is not int or dest < 0 or dest >= self.size:  # fast path: a rank
                dest = check_dest(dest, self.size)
            if type(tag) is not int or tag < 0 or tag > TAG_UB:
                tag = check_tag(tag, False)
            if buf is None and datatype is not None and type(count) is int and count >= 0 \
                    and type(datatype) is _dt.Datatype and datatype.committed:
                dt, nbytes, data = datatype, count * datatype.size, None  # size only
                if nbytes > COUNT_MAX:
                    message_bytes(count, datatype)  # MPI_ERR_COUNT
                typed = dt
            else:
                dt = check_datatype(datatype)
                if dt is None and not isinstance(buf, np.ndarray):
                    dt = _dt.BYTE
                count, dt, nbytes, data = outgoing(
                    buf, count, dt, self._addresses() if buf is BOTTOM else None)
                typed = dt if datatype is not None or isinstance(buf, np.ndarray) else None
        except MPIError as e:
            self._enter(call, dest if isinstance(dest, int) else None, tag)
            return failed(env, e)
        where = self._where or program_site()
        forced = self._config.force_ssend
        sreq: Request | None
        if blocking and req is None and not forced and mode in (BUFFERED, STANDARD):
            sreq = None  # a blocking bsend returns once its data is in the buffer, a blocking
            # standard send that goes eager once its bytes have left: nothing will ever ask
            # for their request (the buffer entry, the message carry what reports need; the
            # transport makes one for a standard send that must wait for more)
        else:
            sreq = (Request("send", call, self.rank, dest, tag, nbytes) if req is None
                    else req.restart(dest, tag, nbytes))
            sreq.where = where
            if ctx:
                sreq.ctx, sreq.comm = ctx, comm
        self._enter(call, dest, tag, nbytes, sreq)
        now = env._now
        if dest == PROC_NULL:
            if sreq is not None:
                sreq.known(now)
            return done(env, None if blocking else sreq)
        if forced and mode != SYNCHRONOUS:
            mode, sreq.forced = SYNCHRONOUS, True  # type: ignore[union-attr]  # (forced: made)
        if mode == BUFFERED:  # into the buffer its communicator selects, returning once the
            # data is copied (sreq: an ibsend's request; None for a blocking bsend)
            buffered = (self._buffered if comm is None and self._world is None  # (_buffered_for,
                        and self._config.buffer_policy != "communicator"  # inlined: the process's)
                        else self._buffered_for(comm))
            try:
                earliest = buffered.bsend(sreq, where, dest, tag, nbytes, data,
                                          now + self._overhead, ctx, typed)
            except ErrBuffer as e:
                return self._bsend_failed(e, call, dest, ctx)
            if sreq is None:  # a blocking bsend: done at once unless the copy takes time
                return env.done_none if earliest <= now else at(env, earliest, None)
            if sreq.call == "MPI_Ibsend":
                self._issued(sreq, None)
            return at(env, earliest, sreq)
        earliest = now + self._overhead
        msg = self._tp.post_send(self.rank, dest, tag, nbytes, data, mode, sreq, earliest,
                                 False, ctx, typed, call, where)
        if not blocking:
            if req is None:
                self._issued(sreq, buf)
            return at(env, earliest, sreq)
        when: float | None  # (a local annotation: no code)
        if sreq is None:
            sreq = msg.sreq
            if sreq is None:  # eager, complete once its bytes have left
                when = msg.send_done
                return at(env, when if when > earliest else earliest, None)
            self._call_obj = sreq  # (made by the transport: the send waits for more)
            if ctx:
                sreq.comm = comm
        when = sreq.done_at  # known now for an eager send (_until_done's first case)
        if when is not None:
            return at(env, when if when > earliest else earliest, None)
        return self._until_done(sreq, earliest)


    def _bsend_failed(self, e: ErrBuffer, call: str, dest: int, ctx: int) -> Event:
        """A bsend that did not fit (MPI_ERR_BUFFER): under a profile whose library then
        never matches the pair's later messages, the pair stalls."""
        if self._config.profile.failed_bsend_stalls_pair:
            self._tp.stall(self.rank, dest, self._stall_cause(call, dest), ctx)
        return failed(self._env, e)


    def _peer(self, comm: Any, peer: Any, source: bool) -> tuple[int, int, Comm]:
        """A rank of ``comm`` as a world rank (wildcards and PROC_NULL kept), its context."""
        if not isinstance(comm, Comm):
            raise ErrComm(f"{comm!r} is not a communicator")
        if comm.freed:
            raise ErrComm(f"{comm.name} was freed")
        peers = comm.peers  # the remote group's size for an intercommunicator (7.6)
        peer = check_source(peer, peers) if source else check_dest(peer, peers)
        if peer >= 0:
            peer = comm.world(peer)
        return peer, comm.context, comm


    def _stall_cause(self, call: str, dest: int) -> str:
        where = f" ({self._call_where})" if self._call_where else ""
        return (f"rank {self.rank}'s {call} to rank {dest} failed with MPI_ERR_BUFFER at "
                f"t = {format_time(self._env._now)}{where}; {self._config.profile.name} then "
                f"never matches rank {self.rank}'s later messages to rank {dest}")


    def _until_done(self, req: Request, earliest: float) -> Event:
        """The event of a blocking send: it happens when the request completes."""
        when = req.done_at
        if when is not None:
            return at(self._env, when if when > earliest else earliest, None)
        ev = pending(self._env)
        req.on_known(lambda r: fire_at(ev, max(r.done_at, earliest), None))  # type: ignore[type-var, arg-type]  # (known: why it runs)
        return ev

    # -- receives and probes -------------------------------------------------------------
    def irecv(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              source: int = ANY_SOURCE, tag: int = ANY_TAG, comm: Comm | None = None) -> Event:
        """MPI_Irecv: yields a Request.

        Parameters
        ----------
        buf
            Where the data goes: a numpy array, filled in place (its dtype gives
            the datatype when none is given, its size the count); None (the
            default): the data is in the Status (``status.data``).
        count
            Largest number of elements of ``datatype`` accepted (a larger
            message is MPI_ERR_TRUNCATE). Default: the numpy ``buf``'s size;
            with neither ``count`` nor ``buf``, any size.
        datatype
            The MPI datatype of an element. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        source
            Rank of the sender in ``comm``, ``ms.ANY_SOURCE`` (the default) or
            ``ms.PROC_NULL`` (completes at once, empty).
        tag
            Tag to match, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        req = self._post_recv("MPI_Irecv", buf, count, datatype, source, tag, comm)
        if isinstance(req, Event):
            return req
        self._issued(req, buf)
        return at(self._env, self._env._now + self._overhead, req)


    def recv(self, buf: Any = None, count: int | None = None, datatype: Any = None,
             source: int = ANY_SOURCE, tag: int = ANY_TAG, comm: Comm | None = None) -> Event:
        """MPI_Recv: yields the Status; with a numpy ``buf`` the data is copied into it.

        Parameters
        ----------
        buf
            Where the data goes: a numpy array, filled in place (its dtype gives
            the datatype when none is given, its size the count); None (the
            default): the data is in the Status (``status.data``).
        count
            Largest number of elements of ``datatype`` accepted (a larger
            message is MPI_ERR_TRUNCATE). Default: the numpy ``buf``'s size;
            with neither ``count`` nor ``buf``, any size.
        datatype
            The MPI datatype of an element. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        source
            Rank of the sender in ``comm``, ``ms.ANY_SOURCE`` (the default) or
            ``ms.PROC_NULL`` (completes at once, empty).
        tag
            Tag to match, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        req = self._post_recv("MPI_Recv", buf, count, datatype, source, tag, comm)
        if isinstance(req, Event):
            return req
        return completion.wait(self._env, req)


    def _post_recv(self, call: str, buf: Any, count: Any, datatype: Any, source: Any,  # noqa: C901 -- hot: 99,719 / 68,345 instructions a bsend / send (bench.instructions)
                   tag: Any, comm: Comm | None = None,
                   persistent: Request | None = None) -> Request | Event:
        ctx = 0
        capacity: int | None  # (a local annotation: no code)
        try:
            if comm is not None and comm.info is not self._comms.world:
                source, ctx, comm = self._peer(comm, source, True)
            elif type(source) is not int or source < 0 or source >= self.size:  # a rank
                source = check_source(source, self.size)
            if type(tag) is not int or tag < 0 or tag > TAG_UB:
                tag = check_tag(tag, True)
            if buf is None and datatype is not None and type(count) is int and count >= 0 \
                    and type(datatype) is _dt.Datatype and datatype.committed:
                capacity, dt = count * datatype.size, datatype  # size only
                if capacity > COUNT_MAX:
                    message_bytes(count, datatype)  # MPI_ERR_COUNT
            else:
                capacity, dt = receive_capacity(buf, count, check_datatype(datatype))
                if datatype is None and not isinstance(buf, np.ndarray) and buf is not BOTTOM:
                    dt = None  # untyped (size only): its signature is not checked (3.3.1)
            wild = None
            if source == ANY_SOURCE and self._wildcards is not None:
                wild = self._wild  # its number, and the sender a race exploration forces
                source = self._wildcard(source)
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        if persistent is None:
            req = Request("recv", call, self.rank, source, tag, capacity, buf, count, dt)
        else:
            req = persistent.restart(source, tag, capacity)
            req.buf, req.count, req.datatype = buf, count, dt
        if self._where is not None:
            req.where = self._where
        elif call != "MPI_Recv":  # (a blocking receive is found where its rank waits)
            req.where = program_site()
        if wild is not None:
            req.wild = wild
        if ctx:
            req.ctx, req.comm = ctx, comm
        if buf is BOTTOM:
            req.space = self._addresses()
        self._enter(call, source, tag, capacity, req)
        if source == PROC_NULL:
            req.status = Status(PROC_NULL, ANY_TAG, 0)
            req.known(self._env._now)
        else:
            self._tp.post_recv(req)
        return req


    def probe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
              comm: Comm | None = None) -> Event:
        """MPI_Probe: blocks until a matching message can be received; yields its Status.

        Parameters
        ----------
        source
            Rank of the sender in ``comm``, or ``ms.ANY_SOURCE`` (the default).
        tag
            Tag to match, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        env = self._env
        try:
            source, ctx, comm = self._probed(source, tag, comm)
            tag = check_tag(tag, True)
        except MPIError as e:
            self._enter("MPI_Probe")
            return failed(env, e)
        self._enter("MPI_Probe", source, tag)
        if source == PROC_NULL:
            return done(env, Status(PROC_NULL, ANY_TAG, 0))
        msg = self._tp.peek(self.rank, source, tag, ctx)
        threads = self._threads  # (a rank with threads: two may probe one message)
        if msg is not None:
            if threads:
                probed(self, self._thread, msg, self._calling)
            return done(env, _probe_status(msg, comm))
        ev = pending(env)
        if threads:
            thread, calling = self._thread, self._calling

            def found(m: Any) -> None:
                probed(self, thread, m, calling)
                fire_at(ev, env._now, _probe_status(m, comm))
            self._tp.wait_probe(self.rank, source, tag, found, ctx)
            return ev
        self._tp.wait_probe(self.rank, source, tag,
                            lambda m: fire_at(ev, env._now, _probe_status(m, comm)), ctx)
        return ev


    def iprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               comm: Comm | None = None) -> Event:
        """MPI_Iprobe: yields (flag, Status or None).

        Parameters
        ----------
        source
            Rank of the sender in ``comm``, or ``ms.ANY_SOURCE`` (the default).
        tag
            Tag to match, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        env = self._env
        try:
            source, ctx, comm = self._probed(source, tag, comm)
            tag = check_tag(tag, True)
        except MPIError as e:
            self._enter("MPI_Iprobe")
            return failed(env, e)
        self._enter("MPI_Iprobe", source, tag)
        if source == PROC_NULL:
            return done(env, (True, Status(PROC_NULL, ANY_TAG, 0)))
        msg = self._tp.peek(self.rank, source, tag, ctx)
        if msg is None:
            return self._poll(done(env, (False, None)))
        if self._threads:  # (a rank with threads: two may probe one message)
            probed(self, self._thread, msg, self._calling)
        return done(env, (True, _probe_status(msg, comm)))


    def mprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               comm: Comm | None = None) -> Event:
        """MPI_Mprobe (3.8.2): blocks until a matching message can be received and takes
        it, so that no other receive can match it; yields (message, Status). The message
        (an MPI_Message) is then received with ``mrecv`` or ``imrecv``; a probe of
        PROC_NULL yields MPI_MESSAGE_NO_PROC.

        Parameters
        ----------
        source
            Rank of the sender in ``comm``, or ``ms.ANY_SOURCE`` (the default).
        tag
            Tag to match, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        env = self._env
        try:
            source, ctx, comm = self._probed(source, tag, comm)
            tag = check_tag(tag, True)
        except MPIError as e:
            self._enter("MPI_Mprobe")
            return failed(env, e)
        self._enter("MPI_Mprobe", source, tag)
        if source == PROC_NULL:
            return done(env, (NO_PROC, Status(PROC_NULL, ANY_TAG, 0)))
        rank = self.rank
        msg = self._tp.take(rank, source, tag, ctx)
        if msg is not None:
            return done(env, (Matched(rank, msg, comm), _probe_status(msg, comm)))
        ev = pending(env)
        self._tp.wait_probe(rank, source, tag, lambda m: fire_at(
            ev, env._now, (Matched(rank, m, comm), _probe_status(m, comm))), ctx, takes=True)
        return ev


    def improbe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
                comm: Comm | None = None) -> Event:
        """MPI_Improbe (3.8.2): takes a matching message if one can be received now; yields
        (flag, message or None, Status or None). One that finds nothing is a poll.

        Parameters
        ----------
        source
            Rank of the sender in ``comm``, or ``ms.ANY_SOURCE`` (the default).
        tag
            Tag to match, or ``ms.ANY_TAG`` (the default).
        comm
            The communicator (a ``Comm``); MPI_COMM_WORLD by default.
        """
        env = self._env
        try:
            source, ctx, comm = self._probed(source, tag, comm)
            tag = check_tag(tag, True)
        except MPIError as e:
            self._enter("MPI_Improbe")
            return failed(env, e)
        self._enter("MPI_Improbe", source, tag)
        if source == PROC_NULL:
            return done(env, (True, NO_PROC, Status(PROC_NULL, ANY_TAG, 0)))
        msg = self._tp.take(self.rank, source, tag, ctx)
        if msg is None:
            return self._poll(done(env, (False, None, None)))
        return done(env, (True, Matched(self.rank, msg, comm), _probe_status(msg, comm)))


    def mrecv(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              message: Matched | None = None) -> Event:
        """MPI_Mrecv (3.8.3): receives the message a matched probe took; yields the Status
        (with a numpy ``buf``, the data is copied into it, as for ``recv``).

        Parameters
        ----------
        buf
            Where the data goes: a numpy array, filled in place (its dtype gives
            the datatype when none is given, its size the count); None (the
            default): the data is in the Status (``status.data``).
        count
            Largest number of elements of ``datatype`` accepted (a larger
            message is MPI_ERR_TRUNCATE). Default: the numpy ``buf``'s size;
            with neither ``count`` nor ``buf``, any size.
        datatype
            The MPI datatype of an element. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        message
            The message a matched probe (``mprobe``, ``improbe``) took;
            required.
        """
        req = self._matched_recv("MPI_Mrecv", buf, count, datatype, message)
        return req if isinstance(req, Event) else completion.wait(self._env, req)


    def imrecv(self, buf: Any = None, count: int | None = None, datatype: Any = None,
               message: Matched | None = None) -> Event:
        """MPI_Imrecv (3.8.3): as ``mrecv``, nonblocking; yields a Request.

        Parameters
        ----------
        buf
            Where the data goes: a numpy array, filled in place (its dtype gives
            the datatype when none is given, its size the count); None (the
            default): the data is in the Status (``status.data``).
        count
            Largest number of elements of ``datatype`` accepted (a larger
            message is MPI_ERR_TRUNCATE). Default: the numpy ``buf``'s size;
            with neither ``count`` nor ``buf``, any size.
        datatype
            The MPI datatype of an element. Default: the numpy ``buf``'s
            dtype's, else ``ms.BYTE``.
        message
            The message a matched probe (``mprobe``, ``improbe``) took;
            required.
        """
        req = self._matched_recv("MPI_Imrecv", buf, count, datatype, message)
        if isinstance(req, Event):
            return req
        return at(self._env, self._env._now + self._overhead, req)


    def _matched_recv(self, call: str, buf: Any, count: Any, datatype: Any,
                      message: Any) -> Request | Event:
        """The receive of a matched message: a Request completed by that message alone."""
        try:
            if not isinstance(message, Matched) or message.received or (
                    message.msg is not None and message.rank != self.rank):
                raise ErrRequest(f"{message!r} is not a message that a matched probe of rank "
                                 f"{self.rank} took and that is not yet received (3.8.3)")
            capacity, dt = receive_capacity(buf, count, check_datatype(datatype))
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        msg = message.msg
        peer, tag = (PROC_NULL, ANY_TAG) if msg is None else (msg.src, msg.tag)
        req = Request("recv", call, self.rank, peer, tag, capacity, buf, count, dt)
        if message.comm is not None:
            req.ctx, req.comm = message.comm.context, message.comm
        if buf is BOTTOM:
            req.space = self._addresses()
        self._enter(call, peer, tag, capacity, req)
        if msg is None:  # MPI_MESSAGE_NO_PROC
            req.status = Status(PROC_NULL, ANY_TAG, 0)
            req.known(self._env._now)
        else:
            message.received = True
            self._tp.receive_matched(msg, req)
        return req


    def _probed(self, source: Any, tag: Any, comm: Any) -> tuple[int, int, Comm | None]:
        if comm is not None and comm.info is not self._comms.world:
            return self._peer(comm, source, True)
        return check_source(source, self.size), 0, None


    def _poll(self, ev: Event) -> Event:
        """A poll that found nothing returns after POLL_TIME (or the call overhead); the
        watch counts it, since a poll that can never succeed would loop forever."""
        if ev._ok and ev._value[0] is False:
            later = at(self._env, self._env._now + max(self._overhead, POLL_TIME), ev._value)
            self._failed_poll(later)
            return later
        self._polling = False
        if self._watch is not None:
            self._watch.quiet = 0
        return ev

    # -- completion ----------------------------------------------------------------------
    def _requests(self, call: str, reqs: Any) -> list[Request] | Event:
        items = [reqs] if isinstance(reqs, Request) else reqs
        try:
            items = list(items)
        except TypeError:
            items = [items]
        for r in items:
            if not isinstance(r, Request):
                self._enter(call)
                return failed(self._env, ErrRequest(f"{r!r} is not a Request"))
        self._enter(call, obj=items)
        life = self._life
        if life is not None and life.watched:
            life.completing(items, call, self._where or program_site())
        return items


    def wait(self, request: Request) -> Event:
        """MPI_Wait: yields the request's Status.

        Parameters
        ----------
        request
            The request (a ``Request``), as a nonblocking or ``*_init`` call
            yielded it.
        """
        reqs = self._requests("MPI_Wait", request)
        return reqs if isinstance(reqs, Event) else completion.wait(self._env, reqs[0])


    def waitall(self, requests: Any) -> Event:
        """MPI_Waitall: yields the list of Statuses.

        Parameters
        ----------
        requests
            A list of requests (each a ``Request``), as nonblocking calls
            yielded them.
        """
        reqs = self._requests("MPI_Waitall", requests)
        return reqs if isinstance(reqs, Event) else completion.waitall(self._env, reqs)


    def waitany(self, requests: Any) -> Event:
        """MPI_Waitany: yields (index, Status).

        Parameters
        ----------
        requests
            A list of requests (each a ``Request``), as nonblocking calls
            yielded them.
        """
        reqs = self._requests("MPI_Waitany", requests)
        return reqs if isinstance(reqs, Event) else completion.waitany(self._env, reqs)


    def waitsome(self, requests: Any) -> Event:
        """MPI_Waitsome: yields (indices, Statuses).

        Parameters
        ----------
        requests
            A list of requests (each a ``Request``), as nonblocking calls
            yielded them.
        """
        reqs = self._requests("MPI_Waitsome", requests)
        return reqs if isinstance(reqs, Event) else completion.waitsome(self._env, reqs)


    def test(self, request: Request) -> Event:
        """MPI_Test: yields (flag, Status or None).

        Parameters
        ----------
        request
            The request (a ``Request``), as a nonblocking or ``*_init`` call
            yielded it.
        """
        reqs = self._requests("MPI_Test", request)
        return reqs if isinstance(reqs, Event) else self._poll(completion.test(self._env, reqs[0]))


    def testall(self, requests: Any) -> Event:
        """MPI_Testall: yields (flag, Statuses or None).

        Parameters
        ----------
        requests
            A list of requests (each a ``Request``), as nonblocking calls
            yielded them.
        """
        reqs = self._requests("MPI_Testall", requests)
        return reqs if isinstance(reqs, Event) else self._poll(completion.testall(self._env, reqs))


    def request_free(self, request: Request) -> Event:
        """MPI_Request_free: the operation still completes; the handle becomes inactive.

        Parameters
        ----------
        request
            The request (a ``Request``), as a nonblocking or ``*_init`` call
            yielded it.

        Returns
        -------
        Event
            Yield it; its value is None.
        """
        reqs = self._requests("MPI_Request_free", request)
        if isinstance(reqs, Event):
            return reqs
        req = reqs[0]
        if req.active and self._life is not None and not (
                req.done_at is not None and req.done_at <= self._env._now):
            self._active_freed(req)
        req.freed = True
        req.active = False
        return done(self._env, None)


    def _active_freed(self, req: Request) -> None:
        """A finding for a request freed before its operation completed: erroneous for a
        nonblocking collective (§6.12), a warning for a send and an error for a receive
        (§3.7.3: the program can never learn that it completed; "an active receive request
        should never be freed")."""
        rule, what = {"coll": ("request-active-free", "(MPI_Request_free on a nonblocking "
                                                      "collective is erroneous)"),
                      "send": ("request-free-active-send", "(legal, but its completion can "
                                                           "never be checked)"),
                      "recv": ("request-free-active-recv", "(its buffer can never be known "
                                                           "to hold the message)")
                      }.get(req.kind, (None, ""))
        if rule is None or self._life is None:
            return
        self._life.findings.add(rule, (
            f"rank {self.rank} freed the request of its {req.call} while the operation was "
            f"active {what}"),
            (Call(self.rank, req.call, site_text(req.where)),
             Call(self.rank, "MPI_Request_free", site_text(self._where or program_site()))))


def _probe_status(msg: Any, comm: Comm | None) -> Status:
    """The Status a probe reports: the source as a rank of the probed communicator."""
    return Status(msg.src if comm is None else comm.rank_of(msg.src), msg.tag, msg.nbytes)
