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

With ``network.eager_cells`` set (MPICH's shared-memory cells), an eager message needs a
free cell of its sender-receiver pair: with one it is copied in and complete at once; without,
it waits, and every later message of the pair waits behind it, so none overtakes it (3.5).

Every completion time is computed when it becomes known and scheduled for that time; the
number of SimPy events per message is small: eager, 1-2; rendezvous, 3-4.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from simpy.core import Environment

from ..constants import ANY_SOURCE, ANY_TAG
from ..network import NetworkModel
from .events import callback_at
from .matching import MatchQueues
from .payload import deliver
from .requests import Request

__all__ = ["EAGER", "RENDEZVOUS", "Message", "Transport"]

EAGER = "eager"
RENDEZVOUS = "rendezvous"
STANDARD = "standard"
BUFFERED = "buffered"
SYNCHRONOUS = "synchronous"
READY = "ready"


class Message:
    """One message: its envelope, its data and the times of its life (for the trace)."""

    __slots__ = (
        "cell",
        "counted",
        "data",
        "dst",
        "id",
        "match",
        "mode",
        "nbytes",
        "on_sent",
        "post",
        "protocol",
        "recv_done",
        "rreq",
        "send_done",
        "src",
        "sreq",
        "tag",
    )

    def __init__(self, mid: int, src: int, dst: int, tag: int, nbytes: int, data: Any,
                 mode: str, sreq: Request, post: float) -> None:
        self.id = mid
        self.src = src
        self.dst = dst
        self.tag = tag
        self.nbytes = nbytes
        self.data = data
        self.mode = mode
        self.protocol = EAGER
        self.sreq = sreq
        self.rreq: Request | None = None
        self.post = post
        self.match = float("nan")
        self.send_done = float("nan")
        self.recv_done = float("nan")
        self.on_sent: Callable[[Message], None] | None = None
        self.counted = False
        self.cell = False


class Transport:
    """Moves messages between ranks: protocol choice, matching, completion times."""

    def __init__(self, env: Environment, net: NetworkModel, size: int,
                 on_ready_error: Callable[[Message], None], keep_messages: bool) -> None:
        self.env = env
        self.net = net
        self.size = size
        self.queues = [MatchQueues() for _ in range(size)]
        self.on_ready_error = on_ready_error
        self.messages: list[Message] | None = [] if keep_messages else None
        self.sent = 0
        self.received = 0
        self.bytes = 0
        self._last_arrival: dict[int, float] = {}
        self._cells_used: dict[int, int] = {}
        self._cell_waiting: dict[int, deque[tuple[Message, float]]] = {}

    # -- sending -------------------------------------------------------------------------
    def post_send(self, src: int, dst: int, tag: int, nbytes: int, data: Any, mode: str,
                  sreq: Request, earliest: float,
                  on_sent: Callable[[Message], None] | None = None) -> Message:
        """Start a send; ``earliest`` is when its bytes may start to leave (call overhead,
        buffer copy). Completion is reported through ``sreq`` (and ``on_sent``)."""
        net = self.net
        msg = Message(self.sent, src, dst, tag, nbytes, data, mode, sreq, self.env._now)
        msg.on_sent = on_sent
        self.sent += 1
        self.bytes += nbytes
        if self.messages is not None:
            self.messages.append(msg)
        limit = net.eager_limit
        if mode == READY or (limit > 0 and nbytes <= limit and (
                net.system_buffer is None or self._system_buffer_room(dst, nbytes))):
            if mode != READY and net.system_buffer is not None:
                self.queues[dst].eager_bytes += nbytes
                msg.counted = True
        else:
            msg.protocol = RENDEZVOUS
        if net.eager_cells is not None and not self._take_cell(msg, earliest):
            return msg  # waits, in order, for an eager cell of its pair
        self._go(msg, earliest)
        return msg

    def _go(self, msg: Message, earliest: float) -> None:
        """Put the message (eager data, or a rendezvous request-to-send) on the wire."""
        src, dst = msg.src, msg.dst
        if msg.protocol == RENDEZVOUS:
            rts = earliest + self.net.control_delay(src, dst)
            callback_at(self.env, self._in_order(src, dst, rts), self._arrive, msg)
            return
        end, arrive = self.net.inject(src, dst, msg.nbytes, earliest)
        if msg.cell:
            end = earliest  # copied into a transport cell: complete locally at once
        if msg.mode == SYNCHRONOUS:
            msg.send_done = end  # bytes gone; complete once the match is acknowledged
        else:
            self._sent(msg, end)
        callback_at(self.env, self._in_order(src, dst, arrive), self._arrive, msg)

    # -- eager cells (network.eager_cells) -----------------------------------------------
    def _take_cell(self, msg: Message, earliest: float) -> bool:
        """A cell for an eager message (rendezvous ones need none); False: it must wait,
        and so must every later message of the pair (non-overtaking)."""
        key = msg.src * self.size + msg.dst
        waiting = self._cell_waiting.get(key)
        if not waiting and (msg.protocol == RENDEZVOUS or self._use_cell(msg, key)):
            return True
        if waiting is None:
            waiting = self._cell_waiting[key] = deque()
        waiting.append((msg, earliest))
        msg.sreq.waiting = (f"waits for one of the {self.net.eager_cells} eager cells towards "
                            f"rank {msg.dst}: the messages already in them are not received yet")
        return False

    def _use_cell(self, msg: Message, key: int) -> bool:
        used = self._cells_used.get(key, 0)
        if used >= self.net.eager_cells:
            return False
        self._cells_used[key] = used + 1
        msg.cell = True
        return True

    def _free_cell(self, msg: Message) -> None:
        """The receiver took a message out of its cell: let waiting messages go, in order."""
        key = msg.src * self.size + msg.dst
        self._cells_used[key] -= 1
        msg.cell = False
        waiting = self._cell_waiting.get(key)
        now = self.env._now
        while waiting:
            head, earliest = waiting[0]
            if head.protocol == EAGER and not self._use_cell(head, key):
                break
            waiting.popleft()
            head.sreq.waiting = None
            self._go(head, max(earliest, now))

    def _system_buffer_room(self, dst: int, nbytes: int) -> bool:
        """The receiver's system buffer can take ``nbytes`` more unexpected eager data."""
        return self.queues[dst].eager_bytes + nbytes <= self.net.system_buffer

    def _in_order(self, src: int, dst: int, arrive: float) -> float:
        """Keep each sender->receiver channel FIFO: never arrive before an earlier message."""
        key = src * self.size + dst
        last = self._last_arrival.get(key, 0.0)
        if arrive < last:
            arrive = last
        self._last_arrival[key] = arrive
        return arrive

    def _sent(self, msg: Message, end: float) -> None:
        """The send side completes at ``end`` (known now)."""
        msg.send_done = end
        msg.sreq.known(end)
        if msg.on_sent is not None:
            if end <= self.env._now:  # already complete: tell the buffer before the next call
                msg.on_sent(msg)
            else:
                callback_at(self.env, end, _run_on_sent, msg)

    # -- arriving and matching -----------------------------------------------------------
    def _arrive(self, ev: Any) -> None:
        msg = ev._value
        q = self.queues[msg.dst]
        req = q.take_posted(msg.src, msg.tag)
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
        msg = q.take_unexpected(req.peer, req.tag)
        if msg is None:
            q.posted.append(req)
        else:
            self._match(msg, req)

    def _match(self, msg: Message, req: Request) -> None:
        now = self.env._now
        msg.match = now
        msg.rreq = req
        if msg.protocol == EAGER:
            if msg.counted:
                self.queues[msg.dst].eager_bytes -= msg.nbytes
                msg.counted = False
            if msg.cell:
                self._free_cell(msg)
            self._deliver(msg)
            if msg.mode == SYNCHRONOUS:
                ack = now + self.net.control_delay(msg.dst, msg.src)
                self._sent(msg, max(ack, msg.send_done))
        else:
            cts = now + self.net.control_delay(msg.dst, msg.src)
            callback_at(self.env, cts, self._clear_to_send, msg)

    def _clear_to_send(self, ev: Any) -> None:
        msg = ev._value
        end, arrive = self.net.inject(msg.src, msg.dst, msg.nbytes, self.env._now)
        self._sent(msg, end)
        callback_at(self.env, arrive, self._data_arrived, msg)

    def _data_arrived(self, ev: Any) -> None:
        self._deliver(ev._value)

    def _deliver(self, msg: Message) -> None:
        now = self.env._now
        msg.recv_done = now
        self.received += 1
        req = msg.rreq
        deliver(msg, req)
        req.known(now)

    # -- probing -------------------------------------------------------------------------
    def peek(self, rank: int, source: int, tag: int) -> Message | None:
        """The message a receive for (source, tag) would match now, without taking it."""
        q = self.queues[rank]
        i = q.find_unexpected(source, tag)
        return None if i < 0 else q.unexpected[i]

    def wait_probe(self, rank: int, source: int, tag: int,
                   callback: Callable[[Message], None]) -> None:
        """Call ``callback(msg)`` when a matching message arrives unexpected."""
        self.queues[rank].probes.append((source, tag, callback))

    @staticmethod
    def _wake_probes(q: MatchQueues, msg: Message) -> None:
        keep = []
        for probe in q.probes:
            source, tag, callback = probe
            if (source == msg.src or source == ANY_SOURCE) and (tag == msg.tag or tag == ANY_TAG):
                callback(msg)
            else:
                keep.append(probe)
        q.probes = keep


def _run_on_sent(ev: Any) -> None:
    msg = ev._value
    msg.on_sent(msg)
