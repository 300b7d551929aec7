"""The ``mpi`` handle: what a rank program calls.

Each communication call checks its arguments, records itself (call name, start time, the
scenario location in ``where``) and returns the event the program yields; the value of the
``yield`` is the call's OUT result. An invalid argument does not raise at the call: the
returned event fails, so the MPIError is raised at the ``yield``, inside the program, where
it can be caught (MPI_ERRORS_RETURN) or left to end the run (MPI_ERRORS_ARE_FATAL).

Names follow MPI without the prefix, snake_cased (MPI_Buffer_attach -> buffer_attach).
Sizes and times also accept unit strings ("64 KiB", "5us").

The handle's public names are MPI's: the calls, ``compute``, and ``rank``, ``size``,
``now``, ``comm_world``, ``comm_self``, ``BSEND_OVERHEAD``. What it keeps for the run is
private: its SimPy environment (``_env``: a program reads the clock as ``now``; yielding
anything but a call's event is not part of the contract), the call it is in (``_call``,
``_detail``, a CallDetail built from four fields, and ``_call_where``: the deadlock analysis
reads them), the call log, the poll watch, and ``_where``, the program location the scenario
and replay interpreters set before each call.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from simpy.events import Event

from ..buffered.mode import BufferedMode, missing_mpi41
from ..collectives import Collectives
from ..engine.clock import at, done, failed, fire_at, pending
from ..engine.sites import program_site
from ..mpi import addresses as _addr
from ..mpi import datatypes as _dt
from ..mpi.causes import CallDetail
from ..mpi.comm import Comm, Communicators
from ..mpi.constants import (
    ANY_SOURCE,
    ANY_TAG,
    BOTTOM,
    BUFFER_AUTOMATIC,
    COUNT_MAX,
    PROC_NULL,
    TAG_UB,
    automatic_or,
)
from ..mpi.errors import ErrArg, ErrBuffer, ErrComm, MPIError
from ..p2p import completion
from ..p2p.calls import check_datatype, check_dest, check_source, check_tag
from ..p2p.payload import message_bytes, outgoing, receive_capacity
from ..p2p.protocols import BUFFERED, READY, STANDARD, SYNCHRONOUS, Transport
from ..p2p.requests import Request, Status
from ..values.units import UnitError, format_time, parse_time
from .buffers import CALLS as _BUFFER_CALLS
from .buffers import owned_buffer
from .collectives import ALL as _COLLECTIVE_CALLS
from .comms import CALLS as _COMM_CALLS
from .persistent import CALLS as _PERSISTENT_CALLS

__all__ = ["SAME_TIME_CALLS", "Rank", "ZeroTimeLoop"]

SAME_TIME_CALLS = 1_000_000
"""Calls one rank may make without simulated time advancing before the run is stopped."""


POLL_TIME = 100e-9
"""Simulated time a test or iprobe that finds nothing takes (at least; more with the
network's per-call ``overhead``): a polling loop advances time as a real one does."""


POLLS = frozenset({"MPI_Iprobe", "MPI_Test", "MPI_Testall", "compute"})
"""Calls a polling loop makes (compute included: a loop may sleep between polls); any other
call, or a poll that finds something, is progress (see :class:`mpisim.runs.deadlock.PollWatch`)."""


class ZeroTimeLoop(BaseException):
    """A rank made SAME_TIME_CALLS calls at one instant: a loop that never waits would never
    end. A BaseException, so that a program's ``except Exception`` does not swallow it."""


class Rank:
    """The handle of one MPI process (``mpi`` in rank programs)."""

    # Slots keep an idle rank small: what every call reads is a slot; what most ranks never
    # set is a class default below, and ``__dict__`` (made only when one is set) holds it
    # then, as it holds the attributes other layers add to a handle.
    __slots__ = ("__dict__", "_buffered", "_call", "_call_nbytes", "_call_obj", "_call_peer",
                 "_call_tag", "_call_where", "_colls", "_comms", "_config", "_env", "_last_time",
                 "_log", "_overhead", "_polling", "_same_time", "_tp", "_watch", "_where", "rank",
                 "size")

    _space: _addr.AddressSpace | None = None  # its address space, made on first use
    _world: Comm | None = None   # MPI_COMM_WORLD and MPI_COMM_SELF as it holds them
    _self: Comm | None = None
    _sessions = 0
    _named_buffers: tuple[BufferedMode, ...] = ()  # its communicators' and sessions'
    _group_calls: dict[tuple, int] | None = None
    _named_sizes: dict | None = None  # the run's ``buffer: {comm: NAME, ...}``
    _last_poll: tuple | None = None  # (call, detail, where) of its last failed poll

    def __init__(self, rank: int, size: int, env: Any, transport: Transport, buffered: BufferedMode,
                 colls: Collectives, config: Any, overhead: float, trace_calls: bool,
                 comms: Communicators | None = None) -> None:
        self.rank = rank
        self.size = size
        self._env = env
        self._where: str | None = None
        self._tp = transport
        self._buffered = buffered
        self._colls = colls
        self._comms = comms if comms is not None else Communicators(size, 0.0)
        self._config = config  # the run's MPIConfig, one for every rank: its profile,
        # buffer_policy, force_ssend (what mpi.force_ssend makes every send), ...
        self._overhead = overhead
        self._log = transport.recorder.calls if trace_calls else None
        self._call: str | None = None
        # What the call it is in works on: the fields of its CallDetail (``_detail``), kept
        # apart and the record built when read (building one per call cost 2 % of a message).
        self._call_peer: int | None = None
        self._call_tag: int | None = None
        self._call_nbytes = 0
        self._call_obj: Any = None
        self._call_where: str | None = None
        self._last_time = -1.0
        self._same_time = 0
        self._polling = False
        self._watch: Any = None  # the run's PollWatch (livelock detection), if any

    def __repr__(self) -> str:
        return f"<mpi rank {self.rank} of {self.size}>"

    def _addresses(self) -> _addr.AddressSpace:
        """This process's address space (4.1.5), made when first needed: most ranks of a
        large run never take an address."""
        if self._space is None:
            self._space = _addr.AddressSpace()
        return self._space

    @property
    def comm_world(self) -> Comm:
        """MPI_COMM_WORLD, as this process holds it."""
        if self._world is None:
            self._world = Comm(self._comms.world, self.rank)
        return self._world

    @property
    def comm_self(self) -> Comm:
        """MPI_COMM_SELF: this process alone."""
        if self._self is None:
            self._self = Comm(self._comms.self_info(self.rank), 0)
        return self._self

    @property
    def BSEND_OVERHEAD(self) -> int:
        """MPI_BSEND_OVERHEAD of the run's profile: bytes an entry takes beyond its data."""
        return self._config.bsend_overhead

    @property
    def now(self) -> float:
        """Simulated time in seconds (MPI_Wtime)."""
        return self._env._now

    @property
    def _detail(self) -> CallDetail:
        """What the call the rank is in works on (the deadlock analysis reads it)."""
        return CallDetail(self._call_peer, self._call_tag, self._call_nbytes, self._call_obj)

    def _works_on(self, detail: CallDetail) -> None:
        """The call now works on ``detail`` (a call made of others: sendrecv, finalize)."""
        self._call_peer, self._call_tag, self._call_nbytes, self._call_obj = detail

    def _enter(self, call: str, peer: int | None = None, tag: int | None = None,
               nbytes: int = 0, obj: Any = None) -> None:
        """A call starts (an MPI call, or ``compute``): count it against a loop that never
        lets time advance, log it, and keep what it works on (its CallDetail) for reports."""
        progress = self._tp.progress
        if progress is not None and call != "compute" and progress.computing[self.rank]:
            self._tp.enter_mpi(self.rank)  # an MPI call after computing: progress
        now = self._env._now
        if now != self._last_time:
            self._last_time = now
            self._same_time = 0
        else:
            self._same_time += 1
            if self._same_time > SAME_TIME_CALLS:
                raise ZeroTimeLoop(f"rank {self.rank} made {SAME_TIME_CALLS} calls at "
                                   f"t = {now:.9g} s without simulated time advancing")
        log = self._log  # the trace's call rows (rank, code, start), or None
        if log is not None:  # (a row packed here, as mpisim.engine.trace's hot writers do)
            code = log.codes.get(call)
            if code is None:
                code = log.code("call", call)
            log.data.extend(log.pack(self.rank, code, now))
        self._call = call
        self._call_peer = peer
        self._call_tag = tag
        self._call_nbytes = nbytes
        self._call_obj = obj
        self._call_where = self._where
        if call not in POLLS:
            self._polling = False
            if self._watch is not None:
                self._watch.quiet = 0

    # -- sends ---------------------------------------------------------------------------
    def send(self, buf: Any = None, count: int | None = None, datatype: Any = None,
             dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Send (standard mode): eager below the eager limit, else rendezvous."""
        return self._send("MPI_Send", STANDARD, buf, count, datatype, dest, tag, True, comm)

    def bsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Bsend: copy into the attached buffer and return, or raise MPI_ERR_BUFFER."""
        return self._send("MPI_Bsend", BUFFERED, buf, count, datatype, dest, tag, True, comm)

    def ssend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Ssend: completes only once the matching receive has started."""
        return self._send("MPI_Ssend", SYNCHRONOUS, buf, count, datatype, dest, tag, True, comm)

    def rsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Rsend: erroneous unless the matching receive is already posted."""
        return self._send("MPI_Rsend", READY, buf, count, datatype, dest, tag, True, comm)

    def isend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Isend: yields a Request."""
        return self._send("MPI_Isend", STANDARD, buf, count, datatype, dest, tag, False, comm)

    def ibsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
               dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Ibsend: yields a Request; the data is in the attached buffer on return."""
        return self._send("MPI_Ibsend", BUFFERED, buf, count, datatype, dest, tag, False, comm)

    def issend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
               dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Issend: yields a Request that completes after the match."""
        return self._send("MPI_Issend", SYNCHRONOUS, buf, count, datatype, dest, tag, False, comm)

    def irsend(self, buf: Any = None, count: int | None = None, datatype: Any = None,
               dest: int | None = None, tag: int = 0, comm: Comm | None = None) -> Event:
        """MPI_Irsend: yields a Request."""
        return self._send("MPI_Irsend", READY, buf, count, datatype, dest, tag, False, comm)

    def _send(self, call: str, mode: str, buf: Any, count: Any, datatype: Any, dest: Any,
              tag: Any, blocking: bool, comm: Comm | None = None,
              req: Request | None = None) -> Event:
        """A send of any mode; ``req``: a persistent request to start instead of a new one."""
        env = self._env
        ctx = 0
        try:
            if comm is not None and comm.info is not self._comms.world:
                dest, ctx, comm = self._peer(comm, dest, False)
            elif type(dest) is not int or not 0 <= dest < self.size:  # fast path: a rank
                dest = check_dest(dest, self.size)
            if type(tag) is not int or not 0 <= tag <= TAG_UB:
                tag = check_tag(tag, False)
            if buf is None and datatype is not None and type(count) is int and count >= 0 \
                    and type(datatype) is _dt.Datatype and datatype.committed:
                dt, nbytes, data = datatype, count * datatype.size, None  # size only
                if nbytes > COUNT_MAX:
                    message_bytes(count, datatype)  # MPI_ERR_COUNT
            else:
                dt = check_datatype(datatype)
                if dt is None and not isinstance(buf, np.ndarray):
                    dt = _dt.BYTE
                count, dt, nbytes, data = outgoing(
                    buf, count, dt, self._addresses() if buf is BOTTOM else None)
        except MPIError as e:
            self._enter(call, dest if isinstance(dest, int) else None, tag)
            return failed(env, e)
        where = self._where or program_site()
        sreq: Request | None
        if mode == BUFFERED and blocking and req is None and not self._config.force_ssend:
            sreq = None  # a blocking bsend returns once its data is in the buffer: nothing
            # will ever ask for its request (its buffer entry carries what reports need)
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
        if self._config.force_ssend and mode != SYNCHRONOUS:
            mode, sreq.forced = SYNCHRONOUS, True  # mpi.force_ssend (the safety check)
        if mode == BUFFERED:
            return self._bsend(call, sreq, where, dest, tag, nbytes, data, ctx, comm)
        earliest = now + self._overhead
        self._tp.post_send(self.rank, dest, tag, nbytes, data, mode, sreq, earliest, ctx=ctx)
        if not blocking:
            return at(env, earliest, sreq)
        return self._until_done(sreq, earliest)

    def _bsend(self, call: str, sreq: Request | None, where: Any, dest: int, tag: int,
               nbytes: int, data: Any, ctx: int, comm: Comm | None) -> Event:
        """A bsend or ibsend (``sreq``: its request; None for a blocking bsend): into the
        buffer its communicator selects, returning once the data is copied."""
        env = self._env
        try:
            earliest = self._buffered_for(comm).bsend(sreq, where, dest, tag, nbytes, data,
                                                      env._now + self._overhead, ctx)
        except ErrBuffer as e:
            if self._config.profile.failed_bsend_stalls_pair:
                self._tp.stall(self.rank, dest, self._stall_cause(call, dest), ctx)
            return failed(env, e)
        return at(env, earliest, sreq)

    def _peer(self, comm: Any, peer: Any, source: bool) -> tuple[int, int, Comm]:
        """A rank of ``comm`` as a world rank (wildcards and PROC_NULL kept), its context."""
        if not isinstance(comm, Comm):
            raise ErrComm(f"{comm!r} is not a communicator")
        if comm.freed:
            raise ErrComm(f"{comm.name} was freed")
        peer = check_source(peer, comm.size) if source else check_dest(peer, comm.size)
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
        req.on_known(lambda r: fire_at(ev, max(r.done_at, earliest), None))
        return ev

    # -- buffered mode (its life is self._buffered's) --------------------------------------
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
                owned_buffer(self, "MPI_Comm_attach_buffer", comm, True).attach(
                    BUFFER_AUTOMATIC, None)
            own = comm.buffer
            if own is not None and own.attached:
                return own
            session = comm.session
            if session is not None and session.buffer is not None and session.buffer.attached:
                return session.buffer
        return self._buffered

    def buffer_attach(self, size: int | str, buf: Any = None) -> Event:
        """MPI_Buffer_attach(size): ``buf`` (optional) is what detach hands back as address;
        ``size`` may be BUFFER_AUTOMATIC (MPI 4.1)."""
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
        delay it); the buffer stays attached."""
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

    # -- receives and probes -------------------------------------------------------------
    def irecv(self, buf: Any = None, count: int | None = None, datatype: Any = None,
              source: int = ANY_SOURCE, tag: int = ANY_TAG, comm: Comm | None = None) -> Event:
        """MPI_Irecv: yields a Request."""
        req = self._post_recv("MPI_Irecv", buf, count, datatype, source, tag, comm)
        if isinstance(req, Event):
            return req
        return at(self._env, self._env._now + self._overhead, req)

    def recv(self, buf: Any = None, count: int | None = None, datatype: Any = None,
             source: int = ANY_SOURCE, tag: int = ANY_TAG, comm: Comm | None = None) -> Event:
        """MPI_Recv: yields the Status; with a numpy ``buf`` the data is copied into it."""
        req = self._post_recv("MPI_Recv", buf, count, datatype, source, tag, comm)
        if isinstance(req, Event):
            return req
        return completion.wait(self._env, req)

    def _post_recv(self, call: str, buf: Any, count: Any, datatype: Any, source: Any,
                   tag: Any, comm: Comm | None = None,
                   persistent: Request | None = None) -> Request | Event:
        ctx = 0
        try:
            if comm is not None and comm.info is not self._comms.world:
                source, ctx, comm = self._peer(comm, source, True)
            elif type(source) is not int or not 0 <= source < self.size:  # fast path: a rank
                source = check_source(source, self.size)
            if type(tag) is not int or not 0 <= tag <= TAG_UB:
                tag = check_tag(tag, True)
            if buf is None and datatype is not None and type(count) is int and count >= 0 \
                    and type(datatype) is _dt.Datatype and datatype.committed:
                capacity, dt = count * datatype.size, datatype  # size only
                if capacity > COUNT_MAX:
                    message_bytes(count, datatype)  # MPI_ERR_COUNT
            else:
                capacity, dt = receive_capacity(buf, count, check_datatype(datatype))
        except MPIError as e:
            self._enter(call)
            return failed(self._env, e)
        if persistent is None:
            req = Request("recv", call, self.rank, source, tag, capacity, buf, count, dt)
        else:
            req = persistent.restart(source, tag, capacity)
            req.buf, req.count, req.datatype = buf, count, dt
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
        """MPI_Probe: blocks until a matching message can be received; yields its Status."""
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
        if msg is not None:
            return done(env, _probe_status(msg, comm))
        ev = pending(env)
        self._tp.wait_probe(self.rank, source, tag,
                            lambda m: fire_at(ev, env._now, _probe_status(m, comm)), ctx)
        return ev

    def iprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG,
               comm: Comm | None = None) -> Event:
        """MPI_Iprobe: yields (flag, Status or None)."""
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
        return done(env, (True, _probe_status(msg, comm)))

    def _probed(self, source: Any, tag: Any, comm: Any) -> tuple[int, int, Comm | None]:
        if comm is not None and comm.info is not self._comms.world:
            return self._peer(comm, source, True)
        return check_source(source, self.size), 0, None

    def _poll(self, ev: Event) -> Event:
        """A poll that found nothing returns after POLL_TIME (or the call overhead); the
        watch counts it, since a poll that can never succeed would loop forever."""
        watch = self._watch
        if ev._ok and ev._value[0] is False:
            later = at(self._env, self._env._now + max(self._overhead, POLL_TIME), ev._value)
            self._polling = True
            if watch is not None:
                watch.failed_poll(self, later)
            return later
        self._polling = False
        if watch is not None:
            watch.quiet = 0
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
                from ..mpi.errors import ErrRequest
                return failed(self._env, ErrRequest(f"{r!r} is not a Request"))
        self._enter(call, obj=items)
        return items

    def wait(self, request: Request) -> Event:
        """MPI_Wait: yields the request's Status."""
        reqs = self._requests("MPI_Wait", request)
        return reqs if isinstance(reqs, Event) else completion.wait(self._env, reqs[0])

    def waitall(self, requests: Any) -> Event:
        """MPI_Waitall: yields the list of Statuses."""
        reqs = self._requests("MPI_Waitall", requests)
        return reqs if isinstance(reqs, Event) else completion.waitall(self._env, reqs)

    def waitany(self, requests: Any) -> Event:
        """MPI_Waitany: yields (index, Status)."""
        reqs = self._requests("MPI_Waitany", requests)
        return reqs if isinstance(reqs, Event) else completion.waitany(self._env, reqs)

    def waitsome(self, requests: Any) -> Event:
        """MPI_Waitsome: yields (indices, Statuses)."""
        reqs = self._requests("MPI_Waitsome", requests)
        return reqs if isinstance(reqs, Event) else completion.waitsome(self._env, reqs)

    def test(self, request: Request) -> Event:
        """MPI_Test: yields (flag, Status or None)."""
        reqs = self._requests("MPI_Test", request)
        return reqs if isinstance(reqs, Event) else self._poll(completion.test(self._env, reqs[0]))

    def testall(self, requests: Any) -> Event:
        """MPI_Testall: yields (flag, Statuses or None)."""
        reqs = self._requests("MPI_Testall", requests)
        return reqs if isinstance(reqs, Event) else self._poll(completion.testall(self._env, reqs))

    def request_free(self, request: Request) -> Event:
        """MPI_Request_free: the operation still completes; the handle becomes inactive."""
        reqs = self._requests("MPI_Request_free", request)
        if isinstance(reqs, Event):
            return reqs
        reqs[0].freed = True
        reqs[0].active = False
        return done(self._env, None)

    # -- communicators (their calls: mpisim.handle.comms) ---------------------------------
    def _comm(self, comm: Any) -> Comm:
        if comm is None:
            return self.comm_world
        if not isinstance(comm, Comm) or comm.freed:
            raise ErrComm(f"{comm!r} is not a valid communicator")
        return comm

    # -- compute --------------------------------------------------------------------------
    def compute(self, seconds: float | str) -> Event:
        """Keep this rank busy for ``seconds`` of simulated time: outside MPI, so it makes
        no progress (messages that need it wait for its next call, see p2p.progress)."""
        self._enter("compute")
        try:
            seconds = parse_time(seconds)
        except UnitError as e:
            return failed(self._env, ErrArg(f"compute: {e}"))
        end = self._env._now + seconds
        if end == math.inf:
            return failed(self._env, ErrArg(f"compute: the simulated clock would overflow "
                                           f"({self._env._now:.6g} s + {seconds:.6g} s)"))
        progress = self._tp.progress
        if progress is not None and seconds > 0:
            progress.computing[self.rank] = True
        return at(self._env, end, None)

    # -- datatypes and addresses (plain calls) -------------------------------------------
    def type_size(self, datatype: Any) -> int:
        """MPI_Type_size: a C int; UNDEFINED when the size does not fit (4.1.5)."""
        return _dt.type_size(datatype)

    def type_size_x(self, datatype: Any) -> int:
        """MPI_Type_size_x: the size as an MPI_Count."""
        return _dt.type_size_x(datatype)

    def pack_size(self, count: int, datatype: Any) -> int:
        """MPI_Pack_size: an upper bound of the packed size (exact in mpisim)."""
        return _dt.pack_size(count, datatype)

    def get_address(self, location: Any, index: Any = None) -> int:
        """MPI_Get_address of an element of a numpy array."""
        return self._addresses().get_address(location, index)

    @staticmethod
    def aint_add(base: int, disp: int) -> int:
        """MPI_Aint_add."""
        return _addr.aint_add(base, disp)

    @staticmethod
    def aint_diff(addr1: int, addr2: int) -> int:
        """MPI_Aint_diff."""
        return _addr.aint_diff(addr1, addr2)


for _name, _call in {**_COMM_CALLS, **_COLLECTIVE_CALLS, **_PERSISTENT_CALLS,
                     **_BUFFER_CALLS}.items():
    setattr(Rank, _name, _call)  # barrier, bcast, ..., ialltoall; send_init, ..., sendrecv


def _probe_status(msg: Any, comm: Comm | None) -> Status:
    """The Status a probe reports: the source as a rank of the probed communicator."""
    return Status(msg.src if comm is None else comm.rank_of(msg.src), msg.tag, msg.nbytes)
