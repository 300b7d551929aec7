"""The floor: what the rings' per-message work costs in CPython with mpisim's layers merged.

The bsend ring and the standard-mode ring of ``python -m bench`` (attach, then repeatedly
bsend, or send, 1 KiB to rank+1 and receive from rank-1) written as one module on SimPy,
doing per message only what mpisim must do for it and no more, with none of mpisim's
layers (handle, buffered mode, allocator, transport, matching, trace recorder): a call
(``enter``), posting a message (``post``), the bsend, send and receive around them:

- the call: the arguments checked as the handle's fast path checks them, a call row of the
  trace (rank, call, start) packed into a byte buffer;
- the bsend: 3.6.1's reclaim from the head up to the first uncompleted entry, the entry's
  size, its place after the tail (this ring never wraps), the buffer state after it and
  the largest free block; the entry's row and the message's row packed; the pair's
  sequence number and FIFO wire, the port reservation; the arrival scheduled; the entry's
  completion kept aside and applied when the rank next bsends (no event, as mpisim);
- the send (standard mode, eager): the message's row, the pair's order and the port, the
  arrival scheduled, and the sender woken when its bytes have left;
- the receive: the unexpected queue searched, else the receive posted and the rank waits on
  an event; at the arrival the envelope matched against the posted receives (source, tag,
  context), the message's times written into its row, a status made, the receiver woken.

It is a measurement, not a simulator: one workload, no error paths, nothing a report
needs (program sites, causes), no other protocol, allocator or profile. Its instructions
per message beside the bare ring's and mpisim's (``python -m bench.instructions`` counts
``floor`` and ``floor-send``) say how far merging layers alone could take mpisim.

    python -m bench.floor   # the 64-rank rings: checks they end as mpisim's, then times them
"""

from __future__ import annotations

import struct
import sys
from heapq import heappush

from simpy.core import Environment
from simpy.events import NORMAL, PENDING, Event

LATENCY, BANDWIDTH, NBYTES, OVERHEAD = 1e-6, 1e10, 1024, 96
NAN = float("nan")
_new = object.__new__
_CALL = struct.Struct("=iHd")
_MSG = struct.Struct("=iiiqBBdddd")
_ENTRY = struct.Struct("=iqqqqdddiqqqiqIqqqI")
_PUT = struct.Struct("=d").pack_into
_DONE = struct.Struct("=qqqI").pack_into
MATCH, SEND_DONE, RECV_DONE = (struct.calcsize(f) for f in ("=iiiqBBd", "=iiiqBBdd",
                                                               "=iiiqBBddd"))
ENTRY_DONE, ENTRY_FREED, ENTRY_C = (struct.calcsize(f) for f in ("=iqqqqd", "=iqqqqdd",
                                                                 "=iqqqqdddiqqqiqI"))


class Entry:
    __slots__ = ("done", "done_at", "offset", "row", "size")


class Recv:
    __slots__ = ("ctx", "event", "peer", "status", "tag")


class Status:
    __slots__ = ("count", "source", "tag")

    def __init__(self, source: int, tag: int, count: int) -> None:
        self.source, self.tag, self.count = source, tag, count


class Msg:
    __slots__ = ("ctx", "dst", "nbytes", "row", "src", "tag")


class Pair:
    """A (sender, receiver) pair: its sequence numbers and its FIFO wire."""

    __slots__ = ("last_arrival", "posted")

    def __init__(self) -> None:
        self.posted, self.last_arrival = 0, 0.0


class Rank:
    __slots__ = ("capacity", "due", "entries", "head", "live", "posted", "rank", "scan", "size",
                 "tail", "unexpected", "used")


class Ring:
    """The whole ring: its ranks' state, the trace's byte buffers, the network."""

    def __init__(self, ranks: int) -> None:
        self.env = Environment()
        self.n = ranks
        self.calls, self.msgs, self.entries = bytearray(), bytearray(), bytearray()
        self.sent = 0
        self.pairs: dict[int, Pair] = {}  # made on first use, as mpisim's channels
        self.port_free = [0.0] * ranks
        self.ranks = []
        for r in range(ranks):
            st = _new(Rank)
            st.rank, st.size = r, ranks
            st.capacity = 4 * (NBYTES + OVERHEAD)
            st.entries, st.due, st.posted, st.unexpected = [], [], [], []
            st.head = st.tail = st.scan = st.used = st.live = 0
            self.ranks.append(st)

    def enter(self, st: Rank, code: int, count: int, peer: int, tag: int) -> None:
        """A call starts: its arguments checked (as the handle's fast path checks them) and
        its row of the trace (rank, call, start)."""
        if type(peer) is not int or not 0 <= peer < st.size or type(tag) is not int \
                or type(count) is not int or count < 0:
            raise ValueError("bad arguments")
        self.calls.extend(_CALL.pack(st.rank, code, self.env._now))

    def post(self, st: Rank, count: int, dest: int, tag: int, mode: int) -> float:
        """A message posted now (``mode``: its trace code, 0 standard, 1 buffered): its row,
        the pair's order and FIFO wire, the port; its arrival scheduled. Returns when its
        bytes have left."""
        env, now = self.env, self.env._now
        m = _new(Msg)
        m.src, m.dst, m.tag, m.nbytes, m.ctx = st.rank, dest, tag, count, 0
        m.row = len(self.msgs)
        self.msgs.extend(_MSG.pack(st.rank, dest, tag, count, mode, 0, now, NAN, NAN, NAN))
        self.sent += 1
        key = st.rank * self.n + dest
        pair = self.pairs.get(key)
        if pair is None:
            pair = self.pairs[key] = Pair()
        pair.posted += 1
        start = self.port_free[st.rank]
        if start < now:
            start = now
        end = start + count / BANDWIDTH
        self.port_free[st.rank] = end
        arrive = end + LATENCY
        if arrive < pair.last_arrival:
            arrive = pair.last_arrival
        pair.last_arrival = arrive
        _PUT(self.msgs, m.row + SEND_DONE, end)
        heappush(env._queue, (arrive, NORMAL, next(env._eid), _event(env, [self.arrive], m)))
        return end

    def bsend(self, st: Rank, count: int, dest: int, tag: int) -> Event:
        self.enter(st, 1, count, dest, tag)
        now = self.env._now
        if st.due:  # completions due before now, applied in order
            self.settle(st, now)
        q, i = st.entries, st.scan  # 3.6.1 step 1: reclaim from the head
        while i < len(q) and q[i].done:
            _PUT(self.entries, q[i].row + ENTRY_FREED, now)
            st.used -= q[i].size
            i += 1
        if i:
            del q[:i]
        st.scan = 0
        if not q:
            st.head = st.tail = 0
        else:
            st.head = q[0].offset
        n = count + OVERHEAD  # step 2
        if n > st.capacity - st.tail:  # step 3 (this ring never needs to wrap)
            raise RuntimeError("overflow")
        e = _new(Entry)
        e.offset, e.size, e.done = st.tail, n, False
        st.tail += n
        st.used += n
        st.live += n
        q.append(e)
        largest = max(st.capacity - st.tail, st.head)
        order = (NORMAL << 62) + self.sent  # (mpisim: from the event being processed)
        e.row = len(self.entries)
        self.entries.extend(_ENTRY.pack(st.rank, self.sent, e.offset, n, count, now, NAN, NAN,
                                        0, order, st.used, st.live, len(q), largest,
                                        0, 0, 0, 0, 0xFFFFFFFF))
        e.done_at = self.post(st, count, dest, tag, 1)
        st.due.append(e)  # applied at the rank's next bsend
        return _event(self.env, None, None)

    def settle(self, st: Rank, now: float) -> None:
        due = st.due
        i = 0
        for e in due:
            if e.done_at > now:
                break
            e.done = True
            st.live -= e.size
            _PUT(self.entries, e.row + ENTRY_DONE, e.done_at)
            _DONE(self.entries, e.row + ENTRY_C, 0, st.live, st.capacity - st.tail, 0)
            i += 1
        del due[:i]

    def send(self, st: Rank, count: int, dest: int, tag: int) -> Event:
        """A standard-mode eager send: the sender waits until its bytes have left."""
        self.enter(st, 3, count, dest, tag)
        end = self.post(st, count, dest, tag, 0)
        env = self.env
        sent = _event(env, [], None)
        heappush(env._queue, (end, NORMAL, next(env._eid), sent))
        return sent

    def recv(self, st: Rank, count: int, source: int, tag: int) -> Event:
        self.enter(st, 2, count, source, tag)
        for i, m in enumerate(st.unexpected):
            if m.src == source and m.tag == tag and m.ctx == 0:
                del st.unexpected[i]
                return _event(self.env, None, self.deliver(m))
        r = _new(Recv)
        r.peer, r.tag, r.ctx = source, tag, 0
        ev = r.event = _event(self.env, [], PENDING)
        st.posted.append(r)
        return ev

    def arrive(self, ev: Event) -> None:
        m = ev._value
        st = self.ranks[m.dst]
        for i, r in enumerate(st.posted):
            if r.peer == m.src and r.tag == m.tag and r.ctx == m.ctx:
                del st.posted[i]
                status = self.deliver(m)
                wake = r.event
                wake._ok, wake._value = True, status
                env = self.env
                heappush(env._queue, (env._now, NORMAL, next(env._eid), wake))
                return
        st.unexpected.append(m)

    def deliver(self, m: Msg) -> Status:
        now = self.env._now
        _PUT(self.msgs, m.row + MATCH, now)
        _PUT(self.msgs, m.row + RECV_DONE, now)
        return Status(m.src, m.tag, m.nbytes)


def _event(env: Environment, callbacks: list | None, value: object) -> Event:
    """An event built in place, as mpisim.p2p.events builds them: ``callbacks`` None for
    one that has already happened; ``value`` PENDING for one fired later."""
    ev = _new(Event)
    ev.env, ev.callbacks, ev._value, ev._ok = env, callbacks, value, True
    return ev


def ring_program(ring: Ring, st: Rank, iterations: int, mode: str = "bsend"):
    right, left = (st.rank + 1) % st.size, (st.rank - 1) % st.size
    send = ring.bsend if mode == "bsend" else ring.send
    for _ in range(iterations):
        yield send(st, NBYTES, right, 0)
        yield ring.recv(st, NBYTES, left, 0)


def floor_ring(ranks: int, iterations: int, mode: str = "bsend") -> Ring:
    """Run the flat ring of ``mode`` (``bsend`` or ``send``); returns it, run."""
    ring = Ring(ranks)
    for st in ring.ranks:
        ring.env.process(ring_program(ring, st, iterations, mode))
    ring.env.run()
    return ring


def main(argv: list[str] | None = None) -> int:
    import mpisim as ms

    from .run import NET, _best, bare_ring, bsend_ring, send_ring

    ranks, iterations = 64, 200
    programs = {"bsend": bsend_ring, "send": send_ring}
    for mode, program in programs.items():  # the same simulated runs as mpisim's
        ring = floor_ring(ranks, iterations, mode)
        result = ms.Simulation(program, ranks=ranks, network=NET,
                               params={"iterations": iterations}).run()
        assert len(ring.msgs) // _MSG.size == result.messages["received"] == ranks * iterations
        assert ring.env.now == result.sim_time, (mode, ring.env.now, result.sim_time)
    t = {"bare": _best(lambda: bare_ring(ranks, iterations), 5)}
    for mode, program in programs.items():
        t[f"floor {mode}"] = _best(lambda m=mode: floor_ring(ranks, iterations, m), 5)
        t[f"mpisim {mode}"] = _best(lambda p=program: ms.Simulation(
            p, ranks=ranks, network=NET, params={"iterations": iterations}).run(), 5)
    msgs = ranks * iterations
    for name, seconds in t.items():
        print(f"{name:<13} {msgs / seconds:>9.0f} msg/s   ratio to bare {t['bare'] / seconds:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
