"""The base of the ``mpi`` handle: what every chapter's calls share.

A rank program's ``mpi`` is one :class:`~mpisim.handle.rank.Rank`, whose methods are written
in one mixin per chapter of the standard (point-to-point, buffered mode, communicators,
collectives, persistent requests, local calls); each mixin derives from
:class:`HandleBase`, which holds the rank's state and the three steps every call takes:

1. check its arguments; an invalid one makes the returned event fail, so the MPIError is
   raised at the program's ``yield`` (where it can be caught) rather than at the call;
2. ``_enter`` the call: refuse it if the program never yielded its previous call's event
   (:mod:`mpisim.engine.yields`), count it against a loop that never lets time advance,
   log it in the trace, and keep what it works on (its CallDetail) for the deadlock
   analysis;
3. return the event the program yields; the value of the ``yield`` is the call's OUT
   result (a Status, a Request, ``(address, size)``...).

The handle's public names are MPI's: the calls, ``compute``, and ``rank``, ``size``,
``now``, ``comm_world``, ``comm_self``, ``BSEND_OVERHEAD``. What it keeps for the run is
private: its SimPy environment (``_env``: a program reads the clock as ``now``; yielding
anything but a call's event is not part of the contract), the call it is in (``_call``,
``_detail``, a CallDetail built from four fields, and ``_call_where``: the deadlock analysis
reads them), the call log, the poll watch, and ``_where``, the program location the scenario
and replay interpreters set before each call.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from simpy.events import Event

from ..buffered.mode import BufferedMode
from ..collectives import Collectives
from ..engine.port import RankPort
from ..engine.sites import INSIDE, site_text
from ..engine.threads import MAIN
from ..engine.yields import NotYielded, method_name, program_frames, site_in_frames, unyielded
from ..mpi import addresses as _addr
from ..mpi.causes import CallDetail
from ..mpi.comm import Comm, Communicators
from ..mpi.constants import THREAD_SINGLE
from ..mpi.errors import ErrComm
from ..p2p.protocols import Transport
from .lifecycle import Lifecycle
from .run import RunState

__all__ = ["POLLS", "POLL_TIME", "SAME_TIME_CALLS", "HandleBase", "NotYielded", "ZeroTimeLoop"]

SAME_TIME_CALLS = 1_000_000
"""Calls one rank may make without simulated time advancing before the run is stopped."""


POLL_TIME = 100e-9
"""Simulated time a test or iprobe that finds nothing takes (at least; more with the
network's per-call ``overhead``): a polling loop advances time as a real one does."""


POLLS = frozenset({"MPI_Iprobe", "MPI_Improbe", "MPI_Test", "MPI_Testall", "MPI_Win_test",
                   "compute"})
"""Calls a polling loop makes (compute included: a loop may sleep between polls); any other
call, or a poll that finds something, is progress (see :class:`mpisim.runs.deadlock.PollWatch`)."""


_NO_CALL = (None, None, None, 0, None, None)
"""``HandleBase._calling`` before the first call."""


class ZeroTimeLoop(BaseException):
    """A rank made SAME_TIME_CALLS calls at one instant: a loop that never waits would never
    end. A BaseException, so that a program's ``except Exception`` does not swallow it."""


class HandleBase:
    """The state of one MPI process's handle and what every call does on entry."""

    # Slots keep an idle rank small: what every call reads is a slot; what most ranks never
    # set is a class default below, and ``__dict__`` (made only when one is set) holds it
    # then, as it holds the attributes other layers add to a handle.
    __slots__ = ("__dict__", "_buffered", "_calling", "_colls", "_comms", "_config", "_env",
                 "_last_time", "_life", "_log", "_overhead", "_polling", "_proc", "_rank_port",
                 "_run", "_same_time", "_tp", "_watch", "_where", "_world", "rank", "size")

    _space: _addr.AddressSpace | None = None  # its address space, made on first use
    _self: Comm | None = None  # MPI_COMM_SELF as it holds it (_world: MPI_COMM_WORLD)
    _sessions = 0
    _named_buffers: tuple[BufferedMode, ...] = ()  # its communicators' and sessions'
    _group_calls: dict[tuple, int] | None = None
    _named_sizes: dict | None = None  # the run's ``buffer: {comm: NAME, ...}``
    _last_poll: tuple | None = None  # (call, detail, where) of its last failed poll
    _wildcards: dict[int, int] | None = None  # a race exploration's forced senders
    _wild = 0  # wildcard receives and probes made (their numbers in a race exploration)
    _thread: Any = MAIN  # the thread whose step runs now (handle.threads.Host swaps it)
    _threads: tuple[Any, ...] | list[Any] = ()  # the threads it spawned, in spawn order
    _thread_level = THREAD_SINGLE  # what MPI_Init gives (MPICH 5.0.2, Open MPI 4.1.4)
    _thread_asked = False  # MPI_Init_thread's level was asked for
    _probes: dict[int, tuple[Any, Any]] | None = None  # a threaded rank's probed
    # messages: id -> (thread, its Call) (handle.threadrules.probed)
    # (whether its program yields every call's event is its process's ``checked``: False
    # when a driver takes them, as the mpi4py stand-in does; see _not_yielded)

    # What one chapter's mixin calls of another's (the Rank class joins them), declared for
    # a type checker: annotations, no class attributes.
    _send: Callable[..., Event]  # handle/p2p.py
    _post_recv: Callable[..., Any]  # handle/p2p.py
    _buffered_for: Callable[[Any], BufferedMode]  # handle/buffers.py
    _create: Callable[..., Any]  # handle/comms.py
    _copy_attrs: Callable[[Comm, Comm], None]  # handle/attributes.py
    _delete_attrs: Callable[[Comm], None]  # handle/attributes.py

    def __init__(self, rank: int, size: int, env: Any, transport: Transport, buffered: BufferedMode,
                 colls: Collectives, config: Any, overhead: float, trace_calls: bool,
                 comms: Communicators | None = None, *, run: RunState | None = None,
                 life: Lifecycle | None = None, named_sizes: dict | None = None) -> None:
        self.rank = rank
        self.size = size
        self._env = env
        self._where: str | None = None
        self._world: Comm | None = None  # MPI_COMM_WORLD as it holds it, once asked for
        self._life = life  # what the correctness checks keep (a slot: every
        # run sets it, and it alone would give every handle a __dict__ of 272 bytes)
        # (a slot: every bsend reads it, and a class default read is never specialised)
        self._tp = transport
        self._buffered = buffered
        self._colls = colls
        self._comms = comms if comms is not None else Communicators(size, 0.0)
        self._config = config  # the run's MPIConfig, one for every rank: its profile,
        # buffer_policy, force_ssend (what mpi.force_ssend makes every send), ...
        self._overhead = overhead
        self._log = transport.recorder.calls if trace_calls else None
        # The call it is in: (call, peer, tag, nbytes, obj, where), one tuple stored per call
        # (six stores cost more); what it works on is the CallDetail of the middle four
        # (``_detail``), built when read (building one per call cost 2 % of a message).
        self._calling: tuple = _NO_CALL
        self._last_time = -1.0
        self._same_time = 0
        self._polling = False
        self._run = run if run is not None else RunState(transport)  # the run's shared state
        # (its one-sided communication, MPI-IO, findings and poll watch)
        if named_sizes is not None:  # the run's ``buffer: {comm: NAME, ...}``
            self._named_sizes = named_sizes
        self._watch: Any = None  # the run's poll watch, once it watches: from its first failed poll
        # on (before it, no rank polls and nothing need reset its count: see _failed_poll)
        self._proc: Any = None  # its process (engine.process.RankProcess), bound by the run
        # (access.bind_process): the mark of a call whose event the program has not yielded
        # yet is the process's ``unyielded``, set by each call, cleared at each yield
        # (set by _enter, cleared by the rank's process at each yield of an event)
        self._rank_port: RankPort | None = None  # made when a chapter first needs it


    @property
    def _port(self) -> RankPort:
        """This process's port (:class:`~mpisim.engine.port.RankPort`): what the chapters
        below (rma, io, collectives) and the front ends reach it through. Made on first use
        and kept (most ranks of a large point-to-point run never need one)."""
        port = self._rank_port
        if port is None:
            port = self._rank_port = RankPort(self, self.rank, self._env, self._overhead,
                                              self._comms)
        return port


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
    def _call(self) -> str | None:
        """The MPI call the rank is in (or last made)."""
        return self._calling[0]

    @property
    def _call_where(self) -> Any:
        """Where the program made it (the scenario's or replay's place), if known."""
        return self._calling[5]

    @property
    def _detail(self) -> CallDetail:
        """What the call the rank is in works on (the deadlock analysis reads it)."""
        return CallDetail(*self._calling[1:5])

    def _works_on(self, detail: CallDetail) -> None:
        """The call now works on ``detail`` (a call made of others: sendrecv, finalize)."""
        calling = self._calling
        self._calling = (calling[0], *detail, calling[5])

    # What the call works on, field by field (a call that learns it after entering sets it)
    @property
    def _call_peer(self) -> int | None:
        return self._calling[1]

    @_call_peer.setter
    def _call_peer(self, peer: int | None) -> None:
        self._works_on(self._detail._replace(peer=peer))

    @property
    def _call_nbytes(self) -> int:
        return self._calling[3]

    @_call_nbytes.setter
    def _call_nbytes(self, nbytes: int) -> None:
        self._works_on(self._detail._replace(nbytes=nbytes))

    @property
    def _call_obj(self) -> Any:
        return self._calling[4]

    @_call_obj.setter
    def _call_obj(self, obj: Any) -> None:
        self._works_on(self._detail._replace(obj=obj))


    def _enter(self, call: str, peer: int | None = None, tag: int | None = None,
               nbytes: int | None = 0, obj: Any = None) -> None:
        """A call starts (an MPI call, or ``compute``): refuse it if the program did not
        yield the previous one's event, count it against a loop that never lets time
        advance, log it, and keep what it works on (its CallDetail) for reports."""
        proc = self._proc
        if proc.unyielded:
            self._not_yielded(call)
        proc.unyielded = True
        progress = self._tp.progress  # (made by the first one-sided lock that needs it)
        if progress is not None and call != "compute" and progress.waits_held(self.rank):
            wanted = None  # what a receive or probe looks for (a poll may not be needed)
            if progress.polls and peer is not None and tag is not None:
                wanted = (peer, tag, getattr(obj, "ctx", None))
            self._tp.enter_mpi(self.rank, wanted=wanted)  # a call after computing: progress
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
            try:
                code = log.codes[call]
            except KeyError:
                code = log.code("call", call)
            pack = log.pack  # (read as a slot: called as a method it is never specialised)
            log.data.extend(pack(self.rank, code, now))
        self._calling = (call, peer, tag, nbytes, obj, self._where)
        watch = self._watch
        if watch is not None and call not in POLLS:  # (no rank polls while it is None)
            self._polling = False
            watch.quiet = 0

    def _not_yielded(self, call: str) -> None:
        """The program makes ``call`` but never yielded its previous call's event: raise
        NotYielded naming that call and its place (the scenario's op, the place its
        request kept, else the line of the program's code that made it; see
        :func:`~mpisim.engine.yields.locate`). A driver that takes the events itself
        (its process's ``checked`` False) is not checked."""
        if not self._proc.checked:
            return
        previous, obj, where = self._calling[0], self._calling[4], self._calling[5]
        if previous is None:
            return
        if where is None and getattr(obj, "where", None) is not None:
            where = site_text(obj.where)
        frames = program_frames(sys._getframe(2))
        if where is None:
            where = site_in_frames(frames, method_name(previous))
        found = site_text((frames[0].f_code, frames[0].f_lasti)) if frames else None
        self._proc.unyielded = False
        raise unyielded(previous, where, found=found)

    def _failed_poll(self, later: Any) -> None:
        """A poll found nothing and returns at ``later``: the run's poll watch counts it
        (a poll that can never succeed would loop forever). The first one makes the watch
        watch every rank's calls (see :meth:`_enter`)."""
        self._polling = True
        watch = self._run.poll_watch
        if watch is not None:
            watch.failed_poll(self, later)


    def _issued(self, req: Any, buf: Any) -> None:
        """A nonblocking call handed the program ``req``: kept for the checks at
        MPI_Finalize (see :mod:`mpisim.handle.lifecycle`)."""
        if self._life is not None:
            self._life.issued(req, buf)

    def _watch_buffer(self, req: Any, buf: Any) -> None:
        """``req``'s buffer is the library's until it completes (a persistent request's
        at each start; see :meth:`mpisim.handle.lifecycle.Lifecycle.watch`)."""
        if self._life is not None:
            self._life.watch(req, buf)

    def _made(self, kind: str, obj: Any, call: str, where: Any = None) -> None:
        """The program was handed a new ``kind`` object (comm, group, window, request),
        by a call made at ``where`` (default: the program's current line)."""
        if self._life is not None:
            self._life.made_one(kind, obj, call, where or self._site())

    def _site(self) -> Any:
        """Where the program is: the scenario's op, or the innermost frame outside mpisim
        (as :func:`~mpisim.engine.sites.program_site`; printed by ``site_text``)."""
        if self._where is not None:
            return self._where
        frame = sys._getframe(1)
        while INSIDE[frame.f_code.co_filename] and frame.f_back is not None:
            frame = frame.f_back
        return frame.f_code, frame.f_lasti

    def _made_when(self, event: Any, kind: str, call: str) -> None:
        """The object ``event`` yields, once it does, is a new ``kind`` object."""
        if self._life is None:
            return
        where, life = self._site(), self._life

        def made(ev: Any) -> None:
            if ev._ok:
                life.made_one(kind, ev._value, call, where)
        if event.callbacks is None:
            made(event)
        else:
            event.callbacks.append(made)

    def _wildcard(self, source: int) -> int:
        """An MPI_ANY_SOURCE receive or probe: its number on this rank, and the sender a
        race exploration forces it to match (ANY_SOURCE when none is forced)."""
        k = self._wild
        self._wild = k + 1
        wildcards = self._wildcards
        assert wildcards is not None  # (asked only during a race exploration)
        return wildcards.get(k, source)

    def _comm(self, comm: Any) -> Comm:
        if comm is None:
            return self.comm_world
        if not isinstance(comm, Comm) or comm.freed:
            raise ErrComm(f"{comm!r} is not a valid communicator")
        return comm
