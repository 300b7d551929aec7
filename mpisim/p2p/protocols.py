"""Send protocols: eager, rendezvous, synchronous and ready, over the network model.

A standard-mode send goes *eager* when the message fits the eager limit (``0 < bytes <=
eager_limit``, so ``eager_limit=0`` makes every send rendezvous) and the receiver's system
buffer has room for it; the data travels at once and the send completes locally when the
bytes have left the sender's port. Otherwise it goes *rendezvous*: a request-to-send travels
(latency only), the receiver answers clear-to-send once a receive matches, then the data
travels; the send completes when its bytes have left, which is after the match.

A synchronous send (3.4) completes only after the matching receive has started: small ones
travel eager and complete when the receiver's acknowledgement of the match arrives (or when
the bytes have left, if later); large ones use rendezvous, whose clear-to-send already
proves the match. A ready send travels eager whatever its size (the receive is promised to
be posted); if no matching receive is posted when it arrives, the program is erroneous (3.4)
and the run ends with MPI_ERR_OTHER, explained. Buffered sends reach this module as the
standard-mode sends the model implementation posts for them (3.6.1).

Matching order is posting order per (sender, receiver) pair, whatever the protocol and the
wire timing (non-overtaking, 3.5): each message carries its pair's sequence number, and an
envelope that arrives before an earlier one of its pair (a request-to-send costs only
latency and can pass eager bytes still queued on the sender's port) waits for it before it
is matched.

Some implementations complete a small standard send only once the receiver has taken the
message (MPICH's shared-memory cells, Open MPI's fast boxes): see :mod:`.progress`. Such a
message arriving while its receiver computes is held until the receiver next enters MPI.
With ``rendezvous_needs_progress`` a request-to-send is held the same way (the receiver
answers it only inside MPI); taking it only lets it match, its send still completes when the
data has left after the clear-to-send.

Every completion time is computed when it becomes known and scheduled for that time; the
number of SimPy events per message is small: eager, 1-2; rendezvous, 3-4.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.clock import Clock, callback_at, callbacks_at
from ..engine.sites import site_text
from ..engine.trace import (
    MATCH,
    NAN,
    RECV_DONE,
    SEND_DONE,
    Recorder,
    put_match_and_delivery,
    put_time,
)
from ..mpi.causes import Cause
from ..mpi.constants import ANY_SOURCE, ANY_TAG
from ..mpi.findings import Call, Findings
from ..mpi.signature import signatures_match
from .channels import Channel
from .matching import MatchQueues
from .network import NetworkModel
from .order import Order
from .payload import deliver
from .progress import ReceiverProgress
from .requests import Request

__all__ = ["EAGER", "RENDEZVOUS", "Message", "Transport"]

EAGER = "eager"
RENDEZVOUS = "rendezvous"
STANDARD = "standard"
BUFFERED = "buffered"
SYNCHRONOUS = "synchronous"
READY = "ready"


class Message:
    """One message: its envelope, its data and the state of its delivery. The times of its
    life (posted, matched, sent, delivered) are written into its trace row as they happen
    (``row``: see :meth:`~mpisim.engine.trace.Recorder.message`), not kept here.

    ``call`` and ``where`` are the send's (its MPI call, its place in the program), for the
    reports of a message never received and the findings of the type signatures: a blocking
    standard send that goes eager has no request (``sreq`` None), nothing ever waits on it.
    It is made by :meth:`Transport.post_send` alone, in its frame (a call fewer per message);
    what most messages never change is a class default, set on the message (in a
    ``__dict__`` made then) by those that change it."""

    __slots__ = (
        "__dict__",
        "awaits",
        "call",
        "channel",
        "counted",
        "ctx",
        "data",
        "dst",
        "dtype",
        "id",
        "mode",
        "nbytes",
        "protocol",
        "row",
        "send_done",
        "seq",
        "src",
        "sreq",
        "tag",
        "where",
    )

    # (the slots' types, for a type checker: annotations make no class attribute)
    id: int
    src: int
    dst: int
    tag: int
    nbytes: int
    data: Any
    mode: str
    sreq: Request | None
    channel: Channel
    ctx: int
    dtype: Any
    call: str
    where: Any
    protocol: str
    seq: int
    row: int
    awaits: bool
    counted: bool
    send_done: float

    rreq: Request | None = None  # its receive, once a rendezvous message has matched
    slot = 0  # what it holds of its pair's room (progress.CELL, box bytes)
    # and, always set: id, src, dst, tag, nbytes, data, mode, sreq, channel, ctx (the
    # communicator's context, 0: MPI_COMM_WORLD), dtype (the send's datatype when the
    # program named one, 3.3.1), call, where; protocol (EAGER, RENDEZVOUS), seq (its number
    # in its channel's posting order), row (its times in the trace, -1: not recorded),
    # awaits (taken by the receiver's progress, see .progress), counted (its bytes count
    # against the receiver's system buffer), send_done (when its bytes have left, NaN until
    # known: as its trace row has it)

    def __repr__(self) -> str:
        return (f"<Message {self.id} {self.src}->{self.dst} tag {self.tag} {self.nbytes} B "
                f"{self.mode} {self.protocol}>")


class Transport:
    """Moves messages between ranks: protocol choice, matching, completion times."""

    def __init__(self, env: Clock, net: NetworkModel, size: int,
                 on_ready_error: Callable[[Message], None], recorder: Recorder, *,
                 findings: Findings | None = None,
                 locate: Callable[[int], str | None] | None = None,
                 capacity: int | None = None) -> None:
        self.env = env
        self.net = net
        # the processes the run may ever hold (``capacity``: with those spawned, MPI 4.1
        # §11.8): the stride of the per-pair keys, fixed so that a key never changes
        self.size = size if capacity is None else max(size, capacity)
        self.queues = [MatchQueues() for _ in range(size)]
        self.on_ready_error = on_ready_error
        self.recorder = recorder
        self.rows = recorder.message_rows  # the messages' trace rows (see Message)
        self.sent = 0
        self.received = 0
        self.bytes = 0
        self._channels: dict[int, Channel] = {}  # per pair and context (see _channel)
        self.stalls: dict[int, str] = {}     # pairs whose later messages never match, why
        self.matched: dict[int, Message] = {}  # taken by a matched probe, not yet received
        self.findings = findings  # the run's findings (a type mismatch at a match), if checked
        self.order: Order | None = None  # the run's happens-before record (races), if explored
        self.locate = locate  # rank -> its program line (where a blocking receive's rank is)
        self._arrival = (self._arrive,)  # an arrival's callbacks (clock.callbacks_at)
        self.progress: ReceiverProgress | None = (
            ReceiverProgress(self.size, net.eager_cells, net.eager_box, net.local_send_limit,
                             net.eager_waits_for_rendezvous, net.eager_release)
            if ReceiverProgress.needed(net) else None)

    def grow(self, count: int) -> None:
        """``count`` new processes (spawned, MPI 4.1 §11.8) join the run, numbered after
        the last (within the capacity given at construction)."""
        if len(self.queues) + count > self.size:
            raise ValueError(f"the run holds at most {self.size} processes")
        self.queues.extend(MatchQueues() for _ in range(count))
        self.net.port_free.extend([0.0] * count)
        if self.order is not None:  # a race exploration's vector clocks
            self.order.grow(count)

    # -- sending -------------------------------------------------------------------------
    def post_send(self, src: int, dst: int, tag: int, nbytes: int, data: Any, mode: str,  # noqa: C901 -- hot: 99,719 / 68,345 instructions a bsend / send (bench.instructions)
                  sreq: Any, earliest: float, local: bool = False, ctx: int = 0,
                  dtype: Any = None, call: str | None = None, where: Any = None) -> Message:
        """Start a send; ``earliest`` is when its bytes may start to leave (call overhead,
        buffer copy). Completion is reported through ``sreq.known(when)`` (for a bsend,
        ``sreq`` is its buffer entry). ``sreq`` None: a blocking standard send (``call`` at
        ``where``) that nothing waits on if it goes eager and completes when its bytes have
        left (``msg.send_done``); otherwise a request is made for it here (``msg.sreq``).
        ``local``: the data was copied into transport memory (a bsend bypassing the buffer),
        so the receiver's progress does not bound the send's completion. ``ctx``: the
        communicator's context; ranks are world ranks. ``dtype``: the datatype the program
        named (its type signature is checked at the match). ``call`` and ``where``: the
        send's, by default its request's."""
        net = self.net
        key = src * self.size + dst
        channel = self._channels.get(key if not ctx else ctx * self.size * self.size + key)
        if channel is None:
            channel = self._channel(src, dst, ctx)
        if call is None:
            call, where = sreq.call, sreq.where
        msg = Message()  # (its fields, set here: see Message)
        msg.id, msg.src, msg.dst, msg.tag, msg.nbytes, msg.data = self.sent, src, dst, tag, \
            nbytes, data
        msg.mode, msg.sreq, msg.channel, msg.ctx, msg.dtype = mode, sreq, channel, ctx, dtype
        msg.call, msg.where, msg.awaits, msg.counted = call, where, False, False
        msg.seq = channel.posted
        channel.posted += 1
        if self.order is not None:
            self.order.sent(msg)
        self.sent += 1
        self.bytes += nbytes
        limit = net.eager_limit
        if mode == READY or (limit > 0 and nbytes <= limit and (
                net.system_buffer is None or self._system_buffer_room(dst, nbytes))):
            msg.protocol = EAGER
            if mode != READY and net.system_buffer is not None:
                self.queues[dst].eager_bytes += nbytes
                msg.counted = True
            if sreq is None and self.progress is None and mode == STANDARD:
                # an eager send nothing waits on (_go's, inlined: once per message)
                end, arrive = net.inject(src, dst, nbytes, earliest)
                msg.send_done = end
                msg.row = self.recorder.message(msg, self.env._now, end)
                callbacks_at(self.env, channel.in_order(arrive), self._arrival, msg)
                return msg
        else:
            msg.protocol = RENDEZVOUS
        msg.send_done = NAN  # (not known yet: what the trace row holds meanwhile)
        if sreq is None:
            sreq = self._request(msg)
        elif sreq.__class__ is Request:  # (a bsend's is its buffer entry)
            sreq.mode, sreq.protocol = mode, msg.protocol
        msg.row = self.recorder.message(msg, self.env._now)
        progress = self.progress
        if progress is not None:
            if msg.protocol == RENDEZVOUS:
                progress.rendezvous_posted(key)
                msg.awaits = net.rendezvous_needs_progress  # its RTS needs the receiver
            elif not local and mode in (STANDARD, BUFFERED):
                msg.awaits = True
                if not progress.admit(msg, key):
                    sreq.waiting = Cause.EAGER_CELLS
                elif not msg.slot:  # room without a per-pair limit: an ordinary eager send
                    msg.awaits = False
        self._go(msg, earliest)
        return msg

    def _request(self, msg: Message) -> Request:
        """The request of a send posted without one that needs one after all (it went
        rendezvous, or the receiver's progress bounds it): the handle's ``Request``."""
        sreq = msg.sreq = Request("send", msg.call, msg.src, msg.dst, msg.tag, msg.nbytes)
        sreq.where = msg.where
        sreq.mode, sreq.protocol = msg.mode, msg.protocol
        if msg.ctx:
            sreq.ctx = msg.ctx
        return sreq

    def _channel(self, src: int, dst: int, ctx: int) -> Channel:
        """The channel from ``src`` to ``dst`` on context ``ctx``, made on first use; it
        shares the wire of the pair's world channel."""
        key = ctx * self.size * self.size + src * self.size + dst
        channel = self._channels.get(key)
        if channel is None:
            wire = self._channel(src, dst, 0).wire if ctx else None
            channel = self._channels[key] = Channel(wire)
        return channel

    def _go(self, msg: Message, earliest: float) -> None:
        """Put the message (eager data, or a rendezvous request-to-send) on the wire."""
        src, dst = msg.src, msg.dst
        if msg.protocol == RENDEZVOUS:
            rts = earliest + self.net.control_delay(src, dst)
            callbacks_at(self.env, msg.channel.in_order(rts), self._arrival, msg)
            return
        end, arrive = self.net.inject(src, dst, msg.nbytes, earliest)
        if msg.mode == SYNCHRONOUS:
            msg.send_done = end  # bytes gone; complete once the match is acknowledged
            if msg.row >= 0:
                put_time(self.rows, msg.row + SEND_DONE, end)
        elif not msg.awaits:  # (_sent, inlined: once per eager bsend)
            msg.send_done = end
            msg.sreq.known(end)  # type: ignore[union-attr]  # (sreq: no request, no _go here)
            if msg.row >= 0:
                put_time(self.rows, msg.row + SEND_DONE, end)
        elif msg.slot:
            self._sent(msg, earliest)  # copied into its pair's cell or box: complete at once
        callbacks_at(self.env, msg.channel.in_order(arrive), self._arrival, msg)

    def _system_buffer_room(self, dst: int, nbytes: int) -> bool:
        """The receiver's system buffer can take ``nbytes`` more unexpected eager data."""
        return self.queues[dst].eager_bytes + nbytes <= self.net.system_buffer

    def _sent(self, msg: Message, end: float) -> None:
        """The send side completes at ``end`` (known now)."""
        msg.send_done = end
        msg.sreq.known(end)  # type: ignore[union-attr]  # (a send with no request never waits)
        if msg.row >= 0:
            put_time(self.rows, msg.row + SEND_DONE, end)

    # -- arriving and matching -----------------------------------------------------------
    def _arrive(self, ev: Any) -> None:
        msg = ev._value
        if msg.awaits:
            progress = self.progress
            assert progress is not None  # (a message awaits only the receiver's progress)
            if progress.waits_held(msg.dst):
                progress.hold(msg)  # taken at the receiver's next MPI call
                return
            self._taken(msg)
        channel = msg.channel
        if msg.seq != channel.expected or channel.early:  # out of its turn, or others wait
            self._sequenced(msg)
            return
        channel.expected += 1
        q = self.queues[msg.dst]  # (_envelope, inlined: once per message)
        req = q.take_posted(msg.src, msg.tag, msg.ctx) if q.posted else None
        if req is not None:
            self._match(msg, req)
        elif msg.mode == READY:
            self.on_ready_error(msg)
        else:
            q.unexpected.append(msg)
            if q.probes:
                self._wake_probes(q, msg)

    def _taken(self, msg: Message) -> None:
        """The receiver's progress took the message out of transport memory (an eager
        send waiting for that completes now; a rendezvous one only after its data left)."""
        progress, sreq = self.progress, msg.sreq
        assert progress is not None and sreq is not None  # (progress bounds it: a request)
        admitted = progress.release(msg, msg.src * self.size + msg.dst)
        msg.awaits = False
        if msg.protocol == EAGER and sreq.done_at is None and msg.mode != SYNCHRONOUS:
            sreq.waiting = None
            self._sent(msg, self.env._now)
        for waited in admitted:  # sends that waited for the cell it freed (poll)
            if waited.sreq.done_at is None and waited.mode != SYNCHRONOUS:
                waited.sreq.waiting = None
                self._sent(waited, self.env._now)

    def enter_mpi(self, rank: int, everything: bool = False,
                  wanted: tuple[int, int, int | None] | None = None) -> None:
        """``rank`` makes an MPI call after computing (or with messages still held): take
        what arrived meanwhile; under ``poll`` one message, and the rest one by one if the
        call blocks (see mpisim.p2p.progress). ``everything``: MPI_Finalize takes them all.
        ``wanted``: the (source, tag, context) a receive or probe looks for; found among the
        messages already taken, the call polls nothing (MPICH looks there first)."""
        progress = self.progress
        assert progress is not None  # (called only where the receiver's progress rules)
        if not progress.polls or everything:
            for msg in progress.take_held(rank):
                self._taken(msg)
                self._sequenced(msg)
            return
        progress.entered(rank)
        if not progress.held.get(rank):  # nothing held for it: nothing to poll
            return
        if wanted is not None and self._taken_already(rank, *wanted):
            msg = None
        else:
            msg = progress.take_one(rank)
        if msg is not None:
            self._taken(msg)
            self._sequenced(msg)
        if progress.held.get(rank):  # the rest: taken while the call blocks
            callback_at(self.env, self.env._now, self._drain, rank)

    def _taken_already(self, rank: int, source: int, tag: int, ctx: int | None) -> bool:
        """A message ``rank`` has taken (its unexpected queue) matches (any context if
        ``ctx`` is None)."""
        for msg in self.queues[rank].unexpected:
            if (source == msg.src or source == ANY_SOURCE) and (tag == msg.tag or tag == ANY_TAG) \
                    and (ctx is None or msg.ctx == ctx):
                return True
        return False

    def _drain(self, ev: Any) -> None:
        """After the rank's step: while it waits inside a call, it polls the messages still
        held for it one by one, until one lets the call go on."""
        rank = ev._value
        progress = self.progress
        assert progress is not None  # (scheduled by enter_mpi)
        while progress.held.get(rank) and not progress.computing[rank] \
                and progress.blocked(rank):
            msg = progress.take_one(rank)
            self._taken(msg)
            self._sequenced(msg)

    def _sequenced(self, msg: Message) -> None:
        """Match envelopes in their pair's posting order (3.5), whatever order they
        arrived in: one that passed an earlier one waits for it."""
        channel = msg.channel
        if msg.seq != channel.expected:
            if channel.early is None:
                channel.early = {}
            channel.early[msg.seq] = msg
            return
        channel.expected += 1
        self._envelope(msg)
        early = channel.early
        while early:
            nxt = early.pop(channel.expected, None)
            if nxt is None:
                break
            channel.expected += 1
            self._envelope(nxt)

    def unreceived(self) -> list[Message]:
        """Messages whose envelope never matched a receive: in an unexpected queue, taken
        by a matched probe and never received, waiting behind an earlier one of their pair,
        or held for a receiver that never re-entered MPI. At the end of a completed run
        they are the sends nobody received."""
        found = [m for q in self.queues for m in q.unexpected]
        found += self.matched.values()  # taken by a matched probe, never received
        found += [m for c in self._channels.values() if c.early for m in c.early.values()]
        if self.progress is not None:
            found += [m for held in self.progress.held.values() for m in held]
        return sorted(found, key=lambda m: m.id)

    def stall(self, src: int, dst: int, cause: str, ctx: int = 0) -> None:
        """Later messages from ``src`` to ``dst`` on context ``ctx`` are never matched (Open
        MPI after a failed bsend: the failed send took a sequence number that never
        arrives)."""
        self._channel(src, dst, ctx).posted += 1
        self.stalls.setdefault(ctx * self.size * self.size + src * self.size + dst, cause)

    def stall_cause(self, src: int, dst: int, ctx: int = 0) -> str | None:
        """Why messages from ``src`` to ``dst`` on ``ctx`` no longer match, if they do not."""
        if not self.stalls:
            return None
        return self.stalls.get(ctx * self.size * self.size + src * self.size + dst)

    def _envelope(self, msg: Message) -> None:
        """An envelope in its turn: match a posted receive or join the unexpected queue."""
        q = self.queues[msg.dst]
        req = q.take_posted(msg.src, msg.tag, msg.ctx) if q.posted else None
        if req is not None:
            self._match(msg, req)
            return
        if msg.mode == READY:
            self.on_ready_error(msg)
            return
        q.unexpected.append(msg)
        if q.probes:
            self._wake_probes(q, msg)

    def post_recv(self, req: Request) -> None:
        """Post a receive: match the first fitting arrived message, or queue it."""
        q = self.queues[req.rank]
        msg = q.take_unexpected(req.peer, req.tag, req.ctx) if q.unexpected else None
        if msg is None:
            q.posted.append(req)
        else:
            self._match(msg, req)

    def _match(self, msg: Message, req: Request) -> None:
        now = self.env._now
        sent = msg.dtype
        if sent is not None and req.datatype is not None and sent is not req.datatype:
            self._types(msg, req)  # 3.3.1 (one identity test when both name one type)
        if self.order is not None:
            self.order.matched(msg, req, self._where_of(req))
        if msg.protocol != EAGER:  # rendezvous: the data follows the clear-to-send (the
            # short branch first: a test before a long jump is never specialised)
            if msg.row >= 0:
                put_time(self.rows, msg.row + MATCH, now)
            msg.rreq = req
            if self.progress is not None:
                self.progress.rendezvous_matched(msg.src * self.size + msg.dst)
            cts = now + self.net.control_delay(msg.dst, msg.src)
            callback_at(self.env, cts, self._clear_to_send, msg)
            return
        if msg.counted:
            self.queues[msg.dst].eager_bytes -= msg.nbytes
            msg.counted = False
        if msg.row >= 0:  # matched and delivered now (_deliver, inlined: once per message)
            put_match_and_delivery(self.rows, msg.row + MATCH, now, msg.send_done, now)
        self.received += 1
        deliver(msg, req)
        req.done_at = now  # (req.known(now), inlined: once per message)
        waiters = req.waiters
        if waiters:
            req.waiters = None
            for waiter in waiters:
                waiter(req)
        if msg.mode == SYNCHRONOUS:
            ack = now + self.net.control_delay(msg.dst, msg.src)
            self._sent(msg, max(ack, msg.send_done))

    def _types(self, msg: Message, req: Request) -> None:
        """A finding when the type signatures of a matched send and receive differ."""
        dt = msg.dtype
        differ = signatures_match(dt, msg.nbytes // dt.size if dt.size else 0, req.datatype)
        if differ is None or self.findings is None:
            return
        sent, got = (f"{t} (in {d.name})" if t != d.name else t
                     for t, d in zip(differ, (dt, req.datatype), strict=True))
        self.findings.add("type-mismatch", (
            f"rank {msg.src} sends {sent} where rank {msg.dst} receives {got}; "
            f"tag {msg.tag}, {msg.nbytes} B"),
            (Call(msg.src, msg.call.replace("(internal)", ""), site_text(msg.where)),
             Call(req.rank, req.call, self._where_of(req))))

    def _where_of(self, req: Request) -> str | None:
        """A receive's place in its program: kept by a nonblocking one; a blocking one's
        rank is in it (at the call, or waiting in it) when it matches."""
        if req.where is not None:
            return site_text(req.where)
        return self.locate(req.rank) if self.locate is not None else None

    def _clear_to_send(self, ev: Any) -> None:
        msg = ev._value
        end, arrive = self.net.inject(msg.src, msg.dst, msg.nbytes, self.env._now)
        self._sent(msg, end)
        callback_at(self.env, arrive, self._data_arrived, msg)

    def _data_arrived(self, ev: Any) -> None:
        self._deliver(ev._value)

    def _deliver(self, msg: Message) -> None:
        now = self.env._now
        if msg.row >= 0:
            put_time(self.rows, msg.row + RECV_DONE, now)
        self.received += 1
        req = msg.rreq
        deliver(msg, req)
        req.known(now)  # type: ignore[union-attr]  # (delivered: matched, so received)

    # -- probing -------------------------------------------------------------------------
    def peek(self, rank: int, source: int, tag: int, ctx: int = 0) -> Message | None:
        """The message a receive for (source, tag, ctx) would match now, without taking it."""
        q = self.queues[rank]
        i = q.find_unexpected(source, tag, ctx)
        return None if i < 0 else q.unexpected[i]

    def wait_probe(self, rank: int, source: int, tag: int,
                   callback: Callable[[Message], None], ctx: int = 0,
                   takes: bool = False) -> None:
        """Call ``callback(msg)`` when a matching message arrives unexpected; ``takes``: a
        matched probe, which takes the message out of matching (see :meth:`take`)."""
        q = self.queues[rank]
        probes = q.probes
        if not isinstance(probes, list):  # (the shared empty tuple: none waited yet)
            probes = q.probes = []
        probes.append((source, tag, callback, ctx, takes))

    def _wake_probes(self, q: MatchQueues, msg: Message) -> None:
        """The blocked probes a new unexpected message matches see it, in the order they
        blocked; the first matched probe among them takes it, and probes after that one
        no longer see it."""
        keep = []
        taken = False
        for probe in q.probes:
            source, tag, callback, ctx, takes = probe
            if not taken and (source == msg.src or source == ANY_SOURCE) \
                    and (tag == msg.tag or tag == ANY_TAG) and ctx == msg.ctx:
                if takes:
                    q.unexpected.remove(msg)
                    self.matched[msg.id] = msg
                    taken = True
                callback(msg)
            else:
                keep.append(probe)
        q.probes = keep

    # -- matched probes (MPI 4.1 §3.8.2) ---------------------------------------------------
    def take(self, rank: int, source: int, tag: int, ctx: int = 0) -> Message | None:
        """MPI_Mprobe / MPI_Improbe: remove and return the message a receive for (source,
        tag, ctx) would match now, or None. Once taken, no other receive or probe can match
        it; only :meth:`receive_matched` receives it."""
        q = self.queues[rank]
        msg = q.take_unexpected(source, tag, ctx) if q.unexpected else None
        if msg is not None:
            self.matched[msg.id] = msg
        return msg

    def receive_matched(self, msg: Message, req: Request) -> None:
        """MPI_Mrecv / MPI_Imrecv: the receive ``req`` takes the message a matched probe
        took (its data arrives as for any matched receive: at once if eager, after the
        clear-to-send if rendezvous)."""
        del self.matched[msg.id]
        self._match(msg, req)

