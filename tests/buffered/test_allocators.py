"""The attached buffer's allocators (3.6, 3.6.1) and the MPICH / Open MPI entry sizing.

Hand-computed boundary cases first, then hypothesis state machines that run each allocator
against a small, independent reference model over a byte map.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from mpisim.buffered.allocators import Allocator, Entry, make_allocator


def circular(capacity: int, overhead: int = 0, alignment: int = 1):
    return make_allocator("circular", capacity, overhead=overhead, alignment=alignment)


def fill(alloc, *sizes: int) -> list[Entry]:
    entries = [alloc.allocate(s)[0] for s in sizes]
    assert None not in entries
    return entries


def rows(alloc) -> list[tuple[int, int, str]]:
    return alloc.layout()["entries"]


# -- the standard's circular model: boundaries ------------------------------------------------
def test_3_6_1_entry_is_pack_size_plus_bsend_overhead_rounded_to_alignment() -> None:
    """3.6.1: n = pack_size + MPI_BSEND_OVERHEAD; rounded up to the alignment."""
    assert circular(10_000, overhead=96).entry_size(1000) == 1096
    assert circular(10_000, overhead=96, alignment=16).entry_size(5) == 112
    assert circular(10_000, overhead=96, alignment=8).entry_size(0) == 96


def test_3_6_1_exact_fit_at_the_end_of_the_buffer() -> None:
    """3.6.1: an entry may end exactly at the end of the buffer (tail == capacity)."""
    a = circular(300)
    assert [e.offset for e in fill(a, 100, 100, 100)] == [0, 100, 200]
    assert a.layout()["tail"] == 300 and a.used == 300 and a.free_total() == 0
    assert a.largest_free() == 0
    assert a.allocate(0)[0] is not None  # a zero-byte entry still fits at the tail
    assert a.allocate(1)[0] is None


def test_3_6_1_one_byte_short_overflows() -> None:
    a = circular(299)
    fill(a, 100, 100)
    assert a.largest_free() == 99
    assert a.allocate(100)[0] is None
    assert (a.used, a.pending, len(a.entries())) == (200, 2, 2)  # an overflow changes nothing


def test_3_6_1_overhead_counts_against_the_buffer() -> None:
    """3.6.1: a buffer of pack_size + MPI_BSEND_OVERHEAD holds one message, one byte less none."""
    assert circular(1096, overhead=96).allocate(1000)[0].size == 1096
    assert circular(1095, overhead=96).allocate(1000)[0] is None


def test_3_6_1_wrap_to_the_start_once_the_head_is_reclaimed() -> None:
    """3.6.1: 'space at start of buffer if queue tail is too close to end of buffer'."""
    a = circular(1000)
    e0, _, _ = fill(a, 300, 300, 300)
    assert a.allocate(200)[0] is None  # 100 B after the tail, the head still at 0
    a.complete(e0)
    w = a.allocate(200)[0]
    assert w.offset == 0
    lay = a.layout()
    assert (lay["head"], lay["tail"]) == (300, 200)
    assert (lay["wrap_gap_offset"], lay["wrap_gap"]) == (900, 100)
    assert a.used == 300 + 300 + 200 + 100  # the wasted end counts until the head passes it
    assert [(e.offset, e.size) for e in a.entries()] == [(300, 300), (600, 300), (0, 200)]


def test_3_6_1_while_wrapped_free_space_is_between_tail_and_head() -> None:
    """3.6.1: 'Free space is available between the queue tail and the queue head': an entry
    ending exactly at the head fits; one byte more does not, and nothing wraps twice."""
    a = circular(1000)
    e0, _, _ = fill(a, 300, 300, 300)
    a.complete(e0)
    fill(a, 200)                       # wrapped: tail 200, head 300
    assert a.largest_free() == 100
    assert a.allocate(101)[0] is None
    end = a.allocate(100)[0]
    assert end.offset + end.size == a.layout()["head"] == 300
    assert a.free_total() == 0 and a.allocate(1)[0] is None


def test_3_6_1_the_wrap_gap_is_freed_once_the_head_passes_it() -> None:
    a = circular(1000)
    e0, e1, e2 = fill(a, 300, 300, 300)
    a.complete(e0)
    w = a.allocate(200)[0]
    a.complete(e1)
    a.complete(e2)
    assert a.largest_free() == 800    # after reclaim: head at 0, tail at 200
    x = a.allocate(800)[0]
    assert x.offset == 200
    lay = a.layout()
    assert (lay["head"], lay["tail"], lay["wrap_gap"]) == (0, 1000, 0)
    assert a.used == w.size + x.size == 1000


def test_3_6_1_the_wrap_gap_is_freed_when_the_queue_empties() -> None:
    a = circular(7)
    e = fill(a, 3, 3)
    a.complete(e[0])
    w = a.allocate(3)[0]           # wraps: 1 B wasted at the end
    assert (w.offset, a.used) == (0, 7)
    a.complete(e[1])
    a.complete(w)
    assert a.allocate(7)[0].offset == 0 and a.used == 7


def test_3_6_1_no_wrap_while_the_entry_still_fits_after_the_tail() -> None:
    a = circular(1000)
    e0, _ = fill(a, 400, 100)
    a.complete(e0)
    assert a.allocate(300)[0].offset == 500  # goes after the tail although the start is free


def test_3_6_1_completed_entry_behind_an_uncompleted_head_is_not_reclaimed() -> None:
    """3.6.1: reclaim stops 'up to the first entry with an uncompleted request'."""
    a = circular(400)
    _, e1, e2, _ = fill(a, 100, 100, 100, 100)
    a.complete(e1)
    a.complete(e2)
    assert a.largest_free() == 0
    assert a.allocate(100)[0] is None
    assert rows(a) == [(0, 100, "pending"), (100, 100, "done"), (200, 100, "done"),
                       (300, 100, "pending")]
    assert (a.used, a.live, a.pending) == (400, 200, 2)


def test_first_fit_reclaims_every_completed_entry_anywhere() -> None:
    """MPICH frees every completed entry at each bsend, not only from the head."""
    a = make_allocator("first-fit", 400, overhead=0)
    _, e1, e2, _ = fill(a, 100, 100, 100, 100)
    a.complete(e1)
    a.complete(e2)
    assert a.largest_free() == 200
    assert a.allocate(200)[0].offset == 100
    assert rows(a) == [(0, 100, "pending"), (100, 200, "pending"), (300, 100, "pending")]


def test_3_6_1_reclaim_happens_only_when_a_bsend_starts() -> None:
    """3.6.1: reclaim is step 1 of a buffered send: completing an entry frees nothing yet."""
    a = circular(300)
    (e,) = fill(a, 100)
    a.complete(e)
    assert (a.used, a.live, a.pending, a.held) == (100, 0, 0, 1)
    assert a.largest_free() == 300  # what allocate will see after its reclaim
    entry, freed = a.allocate(50)
    assert list(freed) == [e] and (a.used, a.held) == (50, 1) and entry.offset == 0


def test_3_6_1_empty_queue_resets_head_and_tail_to_the_start() -> None:
    """An empty queue is the whole buffer: 700 B fit after a 600 B entry was reclaimed
    (with the tail left at 600 the model would find only 600 contiguous bytes)."""
    a = circular(1000)
    (e,) = fill(a, 600)
    a.complete(e)
    assert a.allocate(700)[0].offset == 0


def test_3_6_zero_size_buffer_overflows_any_nonempty_entry() -> None:
    """3.6: with no buffer MPI behaves as with a zero-size one: any real entry overflows."""
    a = circular(0, overhead=96)
    assert a.allocate(0)[0] is None
    assert (a.free_total(), a.largest_free(), a.used) == (0, 0, 0)
    empty = circular(0)
    assert empty.allocate(0)[0].size == 0  # overhead 0, empty message: takes no space


def test_entry_larger_than_the_buffer_overflows() -> None:
    a = circular(100)
    assert a.allocate(101)[0] is None
    assert a.allocate(100)[0].offset == 0


def test_layout_names_head_tail_and_states() -> None:
    a = circular(500, overhead=10)
    e0, _ = fill(a, 90, 90)
    a.complete(e0)
    lay = a.layout()
    assert lay["kind"] == "circular" and lay["capacity"] == 500
    assert (lay["head"], lay["tail"], lay["wrap_gap"], lay["wrap_gap_offset"]) == (0, 200, 0, None)
    assert (lay["used"], lay["live"], lay["free"]) == (200, 100, 300)
    assert lay["entries"] == [(0, 100, "done"), (100, 100, "pending")]
    assert circular(10).layout()["head"] is None


def test_completing_an_entry_twice_is_refused() -> None:
    a = circular(100)
    (e,) = fill(a, 10)
    a.complete(e)
    with pytest.raises(ValueError, match="already complete"):
        a.complete(e)


@pytest.mark.parametrize(("kwargs", "word"), [
    ({"kind": "best-fit"}, "allocator"), ({"sizing": "lam"}, "sizing"),
    ({"capacity": -1}, "capacity"), ({"capacity": 1.5}, "capacity"),
    ({"overhead": -1}, "overhead"), ({"alignment": 3}, "alignment"),
    ({"alignment": 0}, "alignment"), ({"capacity": True}, "capacity"),
])
def test_make_allocator_refuses_bad_arguments_naming_them(kwargs, word) -> None:
    args = {"kind": "circular", "capacity": 100, "overhead": 0} | kwargs
    kind, capacity = args.pop("kind"), args.pop("capacity")
    with pytest.raises(ValueError, match=f"^{word}: "):
        make_allocator(kind, capacity, **args)


@pytest.mark.parametrize("kind", ["circular", "first-fit", "unbounded"])
def test_every_kind_follows_the_protocol(kind) -> None:
    a = make_allocator(kind, 100, overhead=4)
    assert isinstance(a, Allocator) and a.name == kind and a.capacity == 100
    with pytest.raises(ValueError):
        a.allocate(-1)[0]


# -- MPICH and Open MPI sizing (the project's notes on real implementations) -----------------
def count_fitting(kind: str, capacity: int, m: int, sizing: str) -> int:
    a = make_allocator(kind, capacity, overhead=96, sizing=sizing)
    k = 0
    while a.allocate(m)[0] is not None:
        k += 1
    return k


@pytest.mark.parametrize(("k", "smallest"), [(1, 9088), (2, 18184), (3, 27280)])
def test_mpich_k_entries_fit_iff_b_is_at_least_the_observed_bound(k, smallest) -> None:
    """MPICH 4.0: k bsends of m = 9000 B fit iff B >= (k-1)(ceil16(m) + 88) + m + 88."""
    assert smallest == (k - 1) * (9008 + 88) + 9000 + 88
    assert count_fitting("first-fit", smallest, 9000, "mpich") == k
    assert count_fitting("first-fit", smallest - 1, 9000, "mpich") == k - 1


@pytest.mark.parametrize(("k", "smallest"), [(1, 9024), (2, 18040), (3, 27056)])
def test_openmpi_k_entries_fit_iff_b_is_at_least_the_observed_bound(k, smallest) -> None:
    """Open MPI 4.1: start at 8, entry 8*floor(m/8) + 16: k fit iff B >= 8 + k(9016)."""
    assert count_fitting("first-fit", smallest, 9000, "openmpi") == k
    assert count_fitting("first-fit", smallest - 1, 9000, "openmpi") == k - 1


def test_standard_model_needs_pack_size_plus_96_per_entry() -> None:
    """3.6.1 with MPI_BSEND_OVERHEAD 96: 9096, 18192, 27288 B for 1, 2, 3 entries of 9000 B."""
    for k, smallest in ((1, 9096), (2, 18192), (3, 27288)):
        assert count_fitting("circular", smallest, 9000, "standard") == k
        assert count_fitting("circular", smallest - 1, 9000, "standard") == k - 1


def test_mpich_small_remainder_stays_with_the_entry() -> None:
    """MPICH: the rest of a block becomes a free block only if it can hold 88 + 8 bytes."""
    a = make_allocator("first-fit", 88 + 16 + 95, overhead=96, sizing="mpich")
    assert a.allocate(16)[0].size == 88 + 16 + 95  # a 95 B remainder is not split off
    b = make_allocator("first-fit", 88 + 16 + 96, overhead=96, sizing="mpich")
    assert b.allocate(16)[0].size == 104 and b.allocate(8)[0].offset == 104
    c = make_allocator("first-fit", 88 + 9, overhead=96, sizing="mpich")
    assert c.allocate(9)[0].size == 97  # m fits the usable 9 B though ceil16(9) does not


@pytest.mark.parametrize(("n", "k", "held"), [
    (8993, 4, 3), (8999, 10, 9), (8999, 4, 4), (9000, 4, 4), (9001, 4, 4), (9008, 10, 10)])
def test_mpich_may_hold_k_minus_1_of_k_messages_in_k_times_pack_size_plus_96(n, k, held) -> None:
    """MPICH: k bsends of n bytes into exactly k(n + 96) bytes can hold only k-1 when n mod 16
    is 1..7 (entries cost 88 + ceil16(n), more than n + 96) -- once the excess of the first
    k-1 entries, (k-1)(ceil16(n) - n - 8), is more than the 8 bytes the last one saves."""
    assert count_fitting("first-fit", k * (n + 96), n, "mpich") == held


@pytest.mark.parametrize(("kind", "sizing", "capacity", "reuses"), [
    ("first-fit", "mpich", 3 * 9096 + 9088, True), ("first-fit", "openmpi", 8 + 4 * 9016, True),
    ("first-fit", "standard", 4 * 9096, True), ("circular", "standard", 4 * 9096, False)])
def test_holes_are_reused_by_first_fit_but_not_by_the_circular_model(kind, sizing, capacity,
                                                                      reuses) -> None:
    """Notes on real MPI: four entries of m fill the buffer; completing the two middle ones
    lets a bsend of 2m succeed under first fit, while the standard's model (3.6.1) refuses
    it since the head is still pending; completing only the last one lets m succeed."""
    m = 9000
    a = make_allocator(kind, capacity, overhead=96, sizing=sizing)
    e = fill(a, m, m, m, m)
    assert a.allocate(0)[0] is None
    a.complete(e[1])
    a.complete(e[2])
    assert (a.allocate(2 * m)[0] is not None) is reuses
    b = make_allocator(kind, capacity, overhead=96, sizing=sizing)
    e = fill(b, m, m, m, m)
    b.complete(e[3])
    assert (b.allocate(m)[0] is not None) is reuses


# -- unbounded --------------------------------------------------------------------------------
def test_unbounded_never_overflows_and_records_the_peak_needed() -> None:
    a = make_allocator("unbounded", 100, overhead=96)
    e = fill(a, 1000, 1000, 1000)
    assert a.peak_needed == 3 * 1096 and a.used == 3288 and a.free_total() == 0
    a.complete(e[0])
    a.complete(e[2])
    fill(a, 10)
    assert a.peak_needed == 3288 and a.used == 1096 + 106
    assert a.capacity == 100  # what was attached, reported back by detach


# -- cost on the per-message path -------------------------------------------------------------
class _CountingList(list):
    """A list that counts element reads: the work the allocator does, without a clock."""

    reads = 0

    def __getitem__(self, i):
        _CountingList.reads += 1
        return super().__getitem__(i)


def _stream(n: int) -> int:
    """A pending head and n short-lived entries behind it, largest_free after each event;
    returns the queue reads this took."""
    a = circular(10**12, overhead=96)
    a._q = _CountingList()
    head = a.allocate(1)[0]
    _CountingList.reads = 0
    for _ in range(n):
        a.complete(a.allocate(100)[0])
        a.largest_free()
    a.complete(head)
    for _ in range(n):
        a.complete(a.allocate(100)[0])
        a.largest_free()
    return _CountingList.reads


def test_circular_allocate_is_amortised_constant_time() -> None:
    """Reclaim and the scan for the first pending entry never revisit an entry, so 4x the
    messages cost about 4x the work (a rescan per call would cost 16x)."""
    small, large = _stream(3000), _stream(12000)
    assert small > 3000 and large < 5 * small


# -- reference models over a byte map ---------------------------------------------------------
class ByteMap:
    """Which bytes of the buffer entries hold; the reference models' only state besides
    their entries."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.bytes = bytearray(capacity)

    def free(self, lo: int, hi: int) -> bool:
        return 0 <= lo <= hi <= self.capacity and not any(self.bytes[lo:hi])

    def mark(self, lo: int, hi: int, value: int) -> None:
        self.bytes[lo:hi] = bytes([value]) * (hi - lo)

    def runs(self, start: int) -> list[tuple[int, int]]:
        """Maximal free runs (offset, length) from ``start``, in address order."""
        out, i = [], start
        while i < self.capacity:
            if self.bytes[i]:
                i += 1
                continue
            j = i
            while j < self.capacity and not self.bytes[j]:
                j += 1
            out.append((i, j - i))
            i = j
        return out


class RefEntry:
    def __init__(self, offset: int, size: int) -> None:
        self.offset, self.size, self.done = offset, size, False


class CircularModel:
    """3.6.1 read literally: a FIFO of entries; reclaim from the front while completed; the
    entry goes to the n bytes after the tail if free, else to the first n bytes of the
    buffer if free; an empty queue starts at 0."""

    def __init__(self, capacity: int) -> None:
        self.map, self.queue = ByteMap(capacity), []

    def reclaim(self) -> None:
        while self.queue and self.queue[0].done:
            e = self.queue.pop(0)
            self.map.mark(e.offset, e.offset + e.size, 0)

    def place(self, n: int) -> int | None:
        if not self.queue:
            return 0 if n <= self.map.capacity else None
        tail = self.queue[-1].offset + self.queue[-1].size
        for offset in (tail, 0):
            if self.map.free(offset, offset + n):
                return offset
        return None

    def wrap_gap(self) -> int:
        q = self.queue
        for prev, e in itertools.pairwise(q):
            if e.offset < prev.offset:
                return self.map.capacity - (prev.offset + prev.size)
        return 0

    def largest(self) -> int:
        """The largest n that place() accepts after a reclaim (placing is monotone in n)."""
        saved = list(self.queue)
        self.reclaim()
        lo, hi = 0, self.map.capacity
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if self.place(mid) is not None else (lo, mid - 1)
        for e in saved[: len(saved) - len(self.queue)]:
            self.map.mark(e.offset, e.offset + e.size, 1)
        self.queue = saved
        return lo


class FirstFitModel:
    """First fit over maximal free runs, every completed entry freed first; ``take`` is the
    sizing rule written out independently of the allocator."""

    def __init__(self, capacity: int, start: int, take) -> None:
        self.map, self.start, self.take, self.held = ByteMap(capacity), start, take, []

    def reclaim(self) -> None:
        for e in [e for e in self.held if e.done]:
            self.held.remove(e)
            self.map.mark(e.offset, e.offset + e.size, 0)

    def place(self, packed: int) -> tuple[int, int] | None:
        for offset, length in self.map.runs(self.start):
            n = self.take(length, packed)
            if n is not None:
                return offset, n
        return None


def standard_take(overhead: int, alignment: int):
    def take(length: int, packed: int) -> int | None:
        n = -(-(packed + overhead) // alignment) * alignment
        return n if n <= length else None
    return take


def mpich_take(length: int, packed: int) -> int | None:
    if length < 88 + packed:
        return None
    cut = 88 + (packed + 15) // 16 * 16
    return cut if length - cut >= 96 else length


def openmpi_take(length: int, packed: int) -> int | None:
    n = packed // 8 * 8 + 16
    return n if n <= length else None


class AllocatorMachine(RuleBasedStateMachine):
    """Shared rules: allocate, complete; the allocator must agree with the model."""

    kind = ""

    def setup(self, capacity: int, model, n_of) -> None:
        self.capacity, self.model, self.n_of = capacity, model, n_of
        self.pairs: list[tuple[Entry, RefEntry]] = []

    def pending_pairs(self) -> list[tuple[Entry, RefEntry]]:
        return [(e, r) for e, r in self.pairs if not e.done]

    @rule(i=st.integers(min_value=0, max_value=10**6))
    @precondition(lambda self: any(not e.done for e, _ in self.pairs))
    def complete(self, i: int) -> None:
        e, r = self.pending_pairs()[i % len(self.pending_pairs())]
        self.alloc.complete(e)
        r.done = True
        self.completed(r)

    def completed(self, r: RefEntry) -> None:
        """The model's side of a completion (nothing: space returns at an allocate)."""

    @invariant()
    def entries_never_overlap_nor_cross_the_end(self) -> None:
        spans = sorted((e.offset, e.offset + e.size) for e in self.alloc.entries())
        for (_, end), (nxt, _) in itertools.pairwise(spans):
            assert end <= nxt
        if self.kind != "unbounded":
            assert all(lo >= 0 and hi <= self.capacity for lo, hi in spans)

    @invariant()
    def counters_are_exact(self) -> None:
        held = self.alloc.entries()
        assert self.alloc.pending == sum(not e.done for e in held)
        assert self.alloc.live == sum(e.size for e in held if not e.done)
        assert self.alloc.held == len(held)
        assert {id(e) for e in held} == {id(e) for e, r in self.pairs if self._held(r)}


class CircularMachine(AllocatorMachine):
    kind = "circular"

    @initialize(capacity=st.integers(0, 512), overhead=st.integers(1, 40),
                alignment=st.sampled_from([1, 2, 8, 16]))
    def init(self, capacity: int, overhead: int, alignment: int) -> None:
        self.alloc = make_allocator("circular", capacity, overhead=overhead,
                                    alignment=alignment)
        self.setup(capacity, CircularModel(capacity),
                   lambda p: -(-(p + overhead) // alignment) * alignment)

    def _held(self, r: RefEntry) -> bool:
        return r in self.model.queue

    @rule(packed=st.integers(0, 300))
    def allocate(self, packed: int) -> None:
        n = self.n_of(packed)
        assert self.alloc.entry_size(packed) == n
        self.model.reclaim()
        offset = self.model.place(n)
        e = self.alloc.allocate(packed)[0]
        assert (e is None) == (offset is None)  # 3.6.1: overflow exactly when the model does
        if e is not None:
            assert (e.offset, e.size, e.packed, e.done) == (offset, n, packed, False)
            r = RefEntry(offset, n)
            self.model.queue.append(r)
            self.model.map.mark(offset, offset + n, 1)
            self.pairs.append((e, r))

    @invariant()
    def queue_and_space_match_the_model(self) -> None:
        q = self.model.queue
        assert [(e.offset, e.size) for e in self.alloc.entries()] == [(r.offset, r.size)
                                                                      for r in q]
        assert self.alloc.used == sum(r.size for r in q) + self.model.wrap_gap()
        assert self.alloc.free_total() == self.capacity - self.alloc.used
        assert self.alloc.largest_free() == self.model.largest()


class FirstFitMachine(AllocatorMachine):
    kind = "first-fit"

    @initialize(capacity=st.integers(0, 512), overhead=st.integers(1, 40),
                alignment=st.sampled_from([1, 4, 16]),
                sizing=st.sampled_from(["standard", "mpich", "openmpi"]))
    def init(self, capacity: int, overhead: int, alignment: int, sizing: str) -> None:
        take = {"standard": standard_take(overhead, alignment), "mpich": mpich_take,
                "openmpi": openmpi_take}[sizing]
        start = min(8, capacity) if sizing == "openmpi" else 0
        self.alloc = make_allocator("first-fit", capacity, overhead=overhead,
                                    alignment=alignment, sizing=sizing)
        self.setup(capacity, FirstFitModel(capacity, start, take), None)

    def _held(self, r: RefEntry) -> bool:
        return r in self.model.held

    @rule(packed=st.integers(0, 200))
    def allocate(self, packed: int) -> None:
        self.model.reclaim()
        spot = self.model.place(packed)
        e = self.alloc.allocate(packed)[0]
        assert (e is None) == (spot is None)
        if e is not None:
            assert (e.offset, e.size) == spot
            r = RefEntry(*spot)
            self.model.held.append(r)
            self.model.map.mark(e.offset, e.offset + e.size, 1)
            self.pairs.append((e, r))

    @invariant()
    def space_matches_the_model(self) -> None:
        assert self.alloc.used == sum(r.size for r in self.model.held)
        assert self.alloc.free_total() == self.capacity - self.alloc.used
        pending = [r for r in self.model.held if not r.done]
        spans = sorted((r.offset, r.offset + r.size) for r in pending)
        start = self.model.start
        ends = [start] + [hi for _, hi in spans]
        starts = [lo for lo, _ in spans] + [self.capacity]
        assert self.alloc.largest_free() == max(b - a for a, b in zip(ends, starts, strict=True))


class UnboundedMachine(AllocatorMachine):
    kind = "unbounded"

    @initialize(capacity=st.integers(0, 512), overhead=st.integers(0, 40))
    def init(self, capacity: int, overhead: int) -> None:
        self.alloc = make_allocator("unbounded", capacity, overhead=overhead)
        self.setup(capacity, None, lambda p: p + overhead)
        self.peak = 0
        self.unreclaimed: list[RefEntry] = []  # completed since the last allocate

    def _held(self, r: RefEntry) -> bool:
        return not r.done or r in self.unreclaimed

    def completed(self, r: RefEntry) -> None:
        self.unreclaimed.append(r)

    @rule(packed=st.integers(0, 2000))
    def allocate(self, packed: int) -> None:
        self.unreclaimed = []
        e = self.alloc.allocate(packed)[0]
        assert e is not None and e.size == self.n_of(packed)  # never overflows
        self.pairs.append((e, RefEntry(e.offset, e.size)))
        self.peak = max(self.peak, sum(r.size for _, r in self.pairs if not r.done))

    @invariant()
    def peak_needed_is_the_most_bytes_held_at_once(self) -> None:
        assert self.alloc.peak_needed == self.peak
        assert self.alloc.used == sum(e.size for e in self.alloc.entries())


for _machine in (CircularMachine, FirstFitMachine, UnboundedMachine):
    _machine.TestCase.settings = settings(max_examples=60, stateful_step_count=40,
                                          deadline=None)

TestCircularAgainstTheModel = CircularMachine.TestCase
TestFirstFitAgainstTheModel = FirstFitMachine.TestCase
TestUnboundedNeverOverflows = UnboundedMachine.TestCase
