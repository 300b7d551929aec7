"""Each collective algorithm's schedule, from its definition (not from the code): the rounds
a barrier takes, what a barrier waits for, the order a non-commutative op is combined in by
the ring allreduce (MPI 4.1 §6.3, §6.9.5; Thakur, Rabenseifner and Gropp, 2005)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mpisim as ms

LAT = 1e-6
NET = {"latency": LAT, "bandwidth": 1e9, "eager_limit": 65536}


@pytest.mark.parametrize("p", [2, 3, 5, 8, 9])
def test_6_3_dissemination_barrier_takes_ceil_log2_p_rounds_of_latency(p):
    """Round k of the dissemination barrier sends to r + 2^k: ceil(log2 p) rounds, each one
    zero-byte message's latency."""
    def prog(mpi):
        yield mpi.barrier(algorithm="dissemination")
        return mpi.now

    r = ms.run(prog, ranks=p, network=NET)
    assert r.returned == [pytest.approx(math.ceil(math.log2(p)) * LAT)] * p
    assert len(r.trace.messages) == p * math.ceil(math.log2(p))


@pytest.mark.parametrize("alg", ["dissemination", "linear"])
@pytest.mark.parametrize("p", [3, 4])
def test_6_3_no_rank_leaves_a_barrier_before_the_last_one_enters(alg, p):
    """§6.3: MPI_Barrier blocks the caller until all members have called it: the latest
    rank enters at 1 ms, so nobody leaves before."""
    late = p - 1

    def prog(mpi):
        if mpi.rank == late:
            yield mpi.compute(1e-3)
        yield mpi.barrier(algorithm=alg)
        return mpi.now

    r = ms.run(prog, ranks=p, network=NET)
    assert r.returned[late] >= 1e-3
    assert all(t >= 1e-3 + LAT for k, t in enumerate(r.returned) if k != late)


@pytest.mark.parametrize("p", [2, 3, 4, 5])
def test_6_9_5_ring_allreduce_keeps_rank_order_for_a_non_commutative_op(p):
    """A non-commutative op over numpy arrays is combined as x0 op x1 op ... op x(p-1) by
    every algorithm, the ring included (it gives way to recursive doubling). The op here,
    ``a op b = a``, is associative (as §6.9.5 requires) but not commutative: in rank order
    every element is rank 0's."""
    op = ms.Op("first", lambda a, b: a.copy(), commutative=False)

    def prog(mpi):
        mine = np.full(3 * p, mpi.rank + 1, dtype=np.int64)
        return (yield mpi.allreduce(mine, op=op, algorithm="ring"))

    for got in ms.run(prog, ranks=p, network=NET).returned:
        np.testing.assert_array_equal(got, np.ones(3 * p, dtype=np.int64))


def _subtree(rel, p):
    """The relative ranks a binomial tree node heads: rel .. rel + 2^(its lowest set bit)."""
    span = rel & -rel if rel else 1 << max(p - 1, 0).bit_length()
    return min(span, p - rel)


@pytest.mark.parametrize("p", [2, 3, 4, 5, 6, 8])
def test_6_6_binomial_scatter_sends_each_child_exactly_its_subtree(p):
    """Binomial scatter: the message to relative rank c carries the items of c's subtree
    (c .. c + its lowest set bit), no more: p - 1 messages whose bytes are the subtree's."""
    n = 40  # bytes per item

    def prog(mpi):
        items = [np.full(n // 4, k, dtype=np.int32) for k in range(mpi.size)] \
            if mpi.rank == 0 else None
        return (yield mpi.scatter(items, root=0, algorithm="binomial"))

    r = ms.run(prog, ranks=p, network=NET)
    assert [int(a[0]) for a in r.returned] == list(range(p))
    sent = {int(m["dst"]): int(m["bytes"]) for m in r.trace.messages}
    assert sent == {c: n * _subtree(c, p) for c in range(1, p)}


REFERENCE = {  # §6.9.2, on Python numbers: what each predefined op means
    "SUM": lambda a, b: a + b, "PROD": lambda a, b: a * b, "MAX": max, "MIN": min,
    "LAND": lambda a, b: bool(a) and bool(b), "LOR": lambda a, b: bool(a) or bool(b),
    "LXOR": lambda a, b: bool(a) != bool(b), "BAND": lambda a, b: a & b,
    "BOR": lambda a, b: a | b, "BXOR": lambda a, b: a ^ b,
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("values", [[6, 3, 5], [0, 1, 1, 0], [1, 1, 1], [12, 10, 0, 7, 3]])
def test_6_9_2_each_predefined_op_on_python_numbers(name, values):
    """Every predefined op on plain Python numbers (not numpy) gives its §6.9.2 meaning."""
    from functools import reduce

    def prog(mpi):
        return (yield mpi.allreduce(values[mpi.rank], op=getattr(ms, name), count=1))

    want = reduce(REFERENCE[name], values)
    assert ms.run(prog, ranks=len(values), network=NET).returned == [want] * len(values)


@pytest.mark.parametrize("op", ["MAXLOC", "MINLOC"])
def test_6_9_4_loc_ops_on_python_pairs_keep_the_lower_index_on_a_tie(op):
    """§6.9.4: MAXLOC and MINLOC on (value, index) pairs; equal values: the lower index."""
    def prog(mpi):
        return (yield mpi.allreduce((7, 10 + mpi.rank), op=getattr(ms, op), count=1))

    assert ms.run(prog, ranks=4, network=NET).returned == [(7, 10)] * 4


class Concat:
    """A user op as mpi4py gives one: callable, and not commutative (Is_commutative)."""

    __name__ = "concat"

    def __call__(self, a, b):
        return a + b

    def Is_commutative(self):  # mpi4py's name
        return False


@pytest.mark.parametrize("p", [3, 5])
def test_6_9_5_a_user_op_saying_it_is_not_commutative_is_combined_in_rank_order(p):
    """§6.9.5: a user function whose Is_commutative() is False is combined in rank order,
    here by a binomial reduce to the last rank (which reduces to rank 0 first)."""
    def prog(mpi):
        return (yield mpi.reduce(str(mpi.rank), op=Concat(), count=1, root=p - 1,
                                 algorithm="binomial"))

    got = ms.run(prog, ranks=p, network=NET).returned
    assert got[p - 1] == "".join(str(k) for k in range(p))
