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
``floor`` and ``floor-send``, and compiled ``floor-compiled`` and ``floor-send-compiled``)
say how far merging layers alone could take mpisim.

    python -m bench.floor              # the 64-rank rings: checks they end as mpisim's,
                                       # then times them
    python -m bench.floor --compiled   # and the floor compiled by Cython with the C types
                                       # of floor.pxd (pip install cython; a C compiler)

Compiled, the floor says what a compiled build could buy at best: its records become C
structs, its numbers C numbers, its calls C calls; SimPy, whose events the bare ring is made
of, stays as it is.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import struct
import subprocess
import sys
import tempfile
from heapq import heappush
from pathlib import Path
from types import ModuleType

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


# Records are made with ``Cls.__new__(Cls)``, not ``object.__new__``, which a compiled
# record (a C struct, floor.pxd) refuses.
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
            st = Rank.__new__(Rank)
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
        m = Msg.__new__(Msg)
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
        e = Entry.__new__(Entry)
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
        r = Recv.__new__(Recv)
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
    """An event built in place, as mpisim.engine.clock builds them: ``callbacks`` None for
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


_SETUP = ("from setuptools import setup; from Cython.Build import cythonize; "
          "setup(ext_modules=cythonize(['floor.py'], quiet=True, compiler_directives="
          "{'language_level': 3, 'annotation_typing': False}))")


def build_compiled(into: Path) -> Path:
    """This module compiled by Cython with the C types of ``floor.pxd``, built in ``into``;
    returns the extension module's path. Raises RuntimeError, saying why, when Cython or a
    C compiler is missing."""
    if importlib.util.find_spec("Cython") is None:
        raise RuntimeError("Cython is not installed (pip install cython)")
    here = Path(__file__).resolve().parent
    for name in ("floor.py", "floor.pxd"):
        shutil.copy(here / name, into / name)
    built = subprocess.run([sys.executable, "-c", _SETUP, "build_ext", "--inplace", "-q"],
                           cwd=into, capture_output=True, text=True)
    found = sorted(into.glob("floor.*.so")) + sorted(into.glob("floor.*.pyd"))
    if built.returncode != 0 or not found:
        raise RuntimeError(f"the Cython build failed: {built.stderr.strip()[-800:]}")
    return found[0]


def load_compiled(path: Path) -> ModuleType:
    """The compiled floor built by ``build_compiled``, imported from ``path``."""
    spec = importlib.util.spec_from_file_location("floor", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.floor",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--compiled", action="store_true",
                    help="also the floor compiled by Cython (pip install cython)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="floor-") as build:
        floors = {"floor": sys.modules[__name__]}
        if args.compiled:
            try:
                floors["compiled floor"] = load_compiled(build_compiled(Path(build)))
            except RuntimeError as e:
                print(f"python -m bench.floor --compiled: {e}", file=sys.stderr)
                return 2
        return _compare(floors)


def _compare(floors: dict[str, ModuleType]) -> int:
    """Check that each floor's rings end as mpisim's, then time them beside the bare ring."""
    import mpisim as ms

    from .run import NET, _best, bare_ring, bsend_ring, send_ring

    ranks, iterations = 64, 200
    programs = {"bsend": bsend_ring, "send": send_ring}
    for mode, program in programs.items():  # the same simulated runs as mpisim's
        result = ms.Simulation(program, ranks=ranks, network=NET,
                               params={"iterations": iterations}).run()
        for floor in floors.values():
            ring = floor.floor_ring(ranks, iterations, mode)
            assert (len(ring.msgs) // _MSG.size == result.messages["received"]
                    == ranks * iterations)
            assert ring.env.now == result.sim_time, (mode, ring.env.now, result.sim_time)
    t = {"bare": _best(lambda: bare_ring(ranks, iterations), 5)}
    for mode, program in programs.items():
        for name, floor in floors.items():
            t[f"{name} {mode}"] = _best(lambda f=floor, m=mode: f.floor_ring(ranks, iterations,
                                                                               m), 5)
        t[f"mpisim {mode}"] = _best(lambda p=program: ms.Simulation(
            p, ranks=ranks, network=NET, params={"iterations": iterations}).run(), 5)
    msgs = ranks * iterations
    for name, seconds in t.items():
        print(f"{name:<20} {msgs / seconds:>9.0f} msg/s   ratio to bare {t['bare'] / seconds:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
