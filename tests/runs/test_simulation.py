"""Running a simulation: outcomes, guards, determinism, the result and its JSON."""

from __future__ import annotations

import gc
import json
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms
from mpisim.engine.clock import Clock


def ping(mpi, count=10):
    if mpi.rank == 0:
        yield mpi.send(count=count, dest=1)
    else:
        yield mpi.recv(count=count, source=0)
    return mpi.rank * 10


def test_result_carries_the_design_json_keys_and_returned_values():
    r = ms.run(ping, ranks=2, params={"count": 3})
    d = json.loads(r.to_json())
    assert list(d) == ["scenario", "outcome", "sim_time", "params", "error", "deadlock",
                       "timeout", "ranks", "messages", "warnings", "unreceived", "settings",
                       "findings"]
    assert d["scenario"] == "ping" and d["outcome"] == "completed" and d["params"] == {"count": 3}
    assert r.returned == [0, 10]
    assert d["ranks"][1]["finished"] and d["ranks"][1]["end_time"] == r.sim_time
    assert set(d["ranks"][0]["buffer"]) == {"size", "peak_used", "peak_live", "peak_entries",
                                            "bsends", "overflows"}


def test_same_input_gives_byte_identical_json():
    a = ms.run(ping, ranks=2, network={"jitter": "1us"}, seed=3)
    b = ms.run(ping, ranks=2, network={"jitter": "1us"}, seed=3)
    assert a.to_json() == b.to_json()


def test_until_ends_an_endless_program_as_timeout():
    def forever(mpi):
        while True:
            yield mpi.compute("1us")

    r = ms.run(forever, ranks=2, until="50us")
    assert r.outcome is ms.Outcome.TIMEOUT and r.exit_code == 5
    assert r.sim_time == pytest.approx(50e-6)
    r = ms.run(forever, ranks=1, max_events=100)
    assert r.outcome is ms.Outcome.TIMEOUT


@pytest.mark.slow
def test_a_loop_that_never_advances_time_is_stopped_not_hung():
    def spin(mpi):
        while True:
            yield mpi.isend(count=0, dest=ms.PROC_NULL)

    r = ms.run(spin, ranks=1)
    assert r.outcome is ms.Outcome.TIMEOUT and "without simulated time advancing" in r.report()


def test_simulation_steps_one_event_at_a_time():
    sim = ms.Simulation(ping, ranks=2)
    steps = 0
    while sim.step():
        steps += 1
    assert steps >= 2 and sim.result().outcome is ms.Outcome.COMPLETED


def test_trace_records_calls_and_messages():
    r = ms.run(ping, ranks=2)
    calls = r.trace.calls
    assert list(calls["call"]) == ["MPI_Send", "MPI_Recv"]
    recv = calls[calls["rank"] == 1][0]
    assert recv["end"] == pytest.approx(1e-6 + 10 / 10e9)
    m = r.trace.messages[0]
    assert (m["src"], m["dst"], m["bytes"], m["mode"], m["protocol"]) == (0, 1, 10, "standard",
                                                                          "eager")


def bsend_ring(mpi, iterations=3):
    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    yield mpi.buffer_attach(2 * (64 + mpi.BSEND_OVERHEAD))
    for _ in range(iterations):
        yield mpi.bsend(count=64, dest=right, tag=0)
        yield mpi.recv(count=64, source=left, tag=0)


TRACE_ARRAYS = ("buffer", "entries", "messages", "calls", "named_buffers", "named_entries")


def rows(trace):
    """The trace's rows as text (NaN equal to NaN)."""
    return {name: repr(getattr(trace, name).tolist()) for name in TRACE_ARRAYS}


def test_a_result_taken_during_a_run_keeps_the_trace_of_that_moment():
    """Simulation.result() between steps shows the run as it is then; going on changes
    neither that result's trace nor what the end shows."""
    sim = ms.Simulation(bsend_ring, ranks=3)
    for _ in range(12):
        sim.step()
    early = sim.result()
    assert early.outcome is ms.Outcome.TIMEOUT
    seen = rows(early.trace)
    n_messages, n_calls = len(early.trace.messages), len(early.trace.calls)
    assert 0 < n_messages < 9 and np.isnan(early.trace.calls["end"]).any()
    while sim.step():
        pass
    end = sim.result()
    assert rows(early.trace) == seen
    assert len(end.trace.messages) == 9 and len(end.trace.calls) > n_calls
    assert rows(end.trace) == rows(ms.run(bsend_ring, ranks=3).trace)
    assert (end.trace.messages["id"][:n_messages] == early.trace.messages["id"]).all()


def test_the_result_of_a_finished_run_builds_its_trace_once_and_pickles_with_it():
    """The trace of a run that is over is built when first read (its recorded rows freed
    then): results taken again show the same arrays, and a pickled result (what a sweep
    sends between processes) carries them."""
    sim = ms.Simulation(bsend_ring, ranks=4)
    first = sim.run()
    again = sim.result()
    copy = pickle.loads(pickle.dumps(first))
    assert rows(copy.trace) == rows(first.trace) == rows(again.trace)
    assert len(first.trace.buffer) == 4 * (2 + 2 * 3)  # attach, 3 bsends, 3 completes, detach
    assert (first.trace.buffer["capacity"] == 2 * (64 + ms.BSEND_OVERHEAD)).sum() == 4 * 7
    assert len(sim.recorder.messages.data) == 0  # freed once built
    unread = ms.run(bsend_ring, ranks=4)
    assert rows(pickle.loads(pickle.dumps(unread)).trace) == rows(first.trace)


def test_a_result_whose_trace_is_not_read_yet_holds_nothing_of_the_run():
    """A finished run's trace is built when first read; until then the Result keeps the
    recorded rows only, not the simulation (its clock, ranks and programs), even when the
    run stopped with events still queued (an error) and a communicator's buffer in use."""
    def program(mpi):
        comm = yield mpi.comm_dup()
        yield mpi.buffer_attach(1000)
        yield mpi.comm_attach_buffer(1000, comm=comm)
        yield mpi.bsend(count=10, dest=(mpi.rank + 1) % mpi.size, comm=comm)
        if mpi.rank == 1:
            raise ValueError("stops the run")
        yield mpi.recv(count=10, source=(mpi.rank - 1) % mpi.size, comm=comm)

    result = ms.run(program, ranks=3)
    gc.collect()
    assert result.outcome is ms.Outcome.ERROR
    assert not [o for o in gc.get_objects() if isinstance(o, ms.Simulation | Clock)]
    assert len(result.trace.named_buffers) and len(result.trace.messages) == 3


def test_bad_settings_are_refused_with_the_key_named():
    with pytest.raises(ValueError, match=r"network\.latency"):
        ms.run(ping, ranks=2, network={"latency": "fast"})
    with pytest.raises(ValueError, match=r"network\.colour"):
        ms.run(ping, ranks=2, network={"colour": 1})
    with pytest.raises(ValueError, match="ranks"):
        ms.run(ping, ranks=0)


@st.composite
def programs(draw):
    """Random send/receive programs: each message (src, dst, tag) is received once."""
    size = draw(st.integers(2, 4))
    msgs = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1),
                                   st.integers(0, 2), st.sampled_from([0, 8, 5000])),
                         max_size=12))
    msgs = [m for m in msgs if m[0] != m[1]]
    ops = {r: [] for r in range(size)}
    for k, (src, dst, tag, nbytes) in enumerate(msgs):
        ops[src].append(("send", dst, tag, nbytes, k))
        wildcard = draw(st.booleans())
        ops[dst].append(("recv", ms.ANY_SOURCE if wildcard else src, tag, nbytes, k))
    for r in ops:
        ops[r] = draw(st.permutations(ops[r]))
    eager = draw(st.sampled_from([0, 64, 65536]))
    return size, ops, eager


@given(programs())
def test_every_message_is_received_once_in_order_or_a_real_deadlock_is_reported(prog):
    """3.5: every message is received once, in per-pair order; otherwise the deadlock is real,
    judged from the program text alone (not from the engine's own wait-for graph)."""
    size, ops, eager = prog
    at = [0] * size          # index of the op each rank is in (or len(ops): finished)
    started: set[int] = set()  # messages whose send was called
    taken: set[int] = set()

    def program(mpi):
        got = []
        for i, (op, peer, tag, nbytes, k) in enumerate(ops[mpi.rank]):
            at[mpi.rank] = i
            if op == "send":
                started.add(k)
                yield mpi.send(buf=(mpi.rank, k), count=nbytes, dest=peer, tag=tag)
            else:
                st_ = yield mpi.recv(count=5000, source=peer, tag=tag)
                got.append((st_.source, *tuple(st_.data)))
                taken.add(got[-1][2])
        at[mpi.rank] = len(ops[mpi.rank])
        return got

    r = ms.run(program, ranks=size, network={"eager_limit": eager})
    if r.outcome is ms.Outcome.COMPLETED:
        received = [k for got in r.returned for (_, _, k) in got]
        sent = [op[4] for o in ops.values() for op in o if op[0] == "send"]
        assert sorted(received) == sorted(sent)  # each exactly once
        for dst, got in enumerate(r.returned):
            tags = {op[2]: 0 for op in ops[dst]}
            for src in range(size):
                for tag in tags:
                    order = [op[4] for op in ops[src] if op[:3] == ("send", dst, tag)]
                    assert [k for (s, _, k) in got if s == src and
                            ops_tag(ops, src, k) == tag] == order  # non-overtaking
    else:
        assert r.outcome is ms.Outcome.DEADLOCK
        assert_real_deadlock(ops, at, started - taken, eager)
        blocked = {b.rank: b for b in r.deadlock.blocked if b.call != "MPI_Finalize"}
        assert set(blocked) == {q for q in ops if at[q] < len(ops[q])}
        finalizing = {b.rank for b in r.deadlock.blocked} - set(blocked)  # 11.2.2
        assert finalizing == {q for q in ops if at[q] == len(ops[q])}
        blocked = {b.rank: b for b in r.deadlock.blocked}
        for cycle in r.deadlock.cycles:
            for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
                assert a in blocked and b in blocked[a].waits_for


def assert_real_deadlock(ops, at, unreceived, eager):
    """The oracle: a rank blocked in a receive has no sent, unreceived message that matches it
    (such a message would have arrived and matched, 3.5); a rank blocked in a send waits for a
    rendezvous its receiver cannot answer (an eager send completes on its own)."""
    current = {q: ops[q][at[q]] for q in ops if at[q] < len(ops[q])}
    assert current, "a deadlock with no rank left blocked"
    envelope = {op[4]: (q, op[1], op[2]) for q in ops for op in ops[q] if op[0] == "send"}

    def matches(recv_rank, recv_op, k):
        src, dst, tag = envelope[k]
        return dst == recv_rank and tag == recv_op[2] and recv_op[1] in (src, ms.ANY_SOURCE)

    for q, op in current.items():
        if op[0] == "recv":
            assert not [k for k in unreceived if matches(q, op, k)], \
                f"rank {q} is reported blocked but a matching message was sent"
        else:
            assert not (eager > 0 and op[3] <= eager), f"rank {q}: an eager send blocked"
            dst_op = current.get(op[1])
            assert dst_op is not None, f"rank {q} waits for rank {op[1]}, which finished"
            assert not (dst_op[0] == "recv" and matches(op[1], dst_op, op[4]))


def ops_tag(ops, src, k):
    return next(op[2] for op in ops[src] if op[0] == "send" and op[4] == k)


def test_a_run_stopped_at_a_time_can_be_continued():
    def slow(mpi):
        yield mpi.compute("10us")
        yield mpi.send(count=4, dest=1 - mpi.rank) if mpi.rank == 0 else mpi.recv(count=4,
                                                                                     source=0)

    sim = ms.Simulation(slow, ranks=2)
    early = sim.run(until="5us")
    assert early.outcome is ms.Outcome.TIMEOUT and early.sim_time == pytest.approx(5e-6)
    assert sim.run(until="8us").sim_time == pytest.approx(8e-6)
    done = sim.run()
    assert done.outcome is ms.Outcome.COMPLETED and done.sim_time > 10e-6


@st.composite
def mixed_programs(draw):
    """Random programs mixing send modes (standard, buffered, synchronous, nonblocking)."""
    size = draw(st.integers(2, 4))
    msgs = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1),
                                   st.sampled_from([0, 16, 3000]),
                                   st.sampled_from(["send", "bsend", "ssend", "isend"])),
                         max_size=10))
    msgs = [m for m in msgs if m[0] != m[1]]
    ops = {r: [] for r in range(size)}
    for k, (src, dst, nbytes, mode) in enumerate(msgs):
        ops[src].append((mode, dst, nbytes, k))
        ops[dst].append(("recv", src if draw(st.booleans()) else ms.ANY_SOURCE, nbytes, k))
    for r in ops:
        ops[r] = draw(st.permutations(ops[r]))
    return size, ops, draw(st.sampled_from([0, 1024])), draw(st.sampled_from(["circular",
                                                                               "first-fit"]))


@given(mixed_programs())
def test_mixed_modes_deliver_each_message_once_in_per_pair_order(prog):
    """3.4-3.7: whatever the send modes, each message is received exactly once and messages
    of one pair arrive in sending order; a run that does not complete is a real deadlock."""
    size, ops, eager, allocator = prog

    def program(mpi):
        got, reqs = [], []
        for op, peer, nbytes, k in ops[mpi.rank]:
            if op == "recv":
                st_ = yield mpi.recv(count=3000, source=peer, tag=0)
                got.append(st_.data)
            elif op == "isend":
                reqs.append((yield mpi.isend(buf=(mpi.rank, k), count=nbytes, dest=peer)))
            else:
                yield getattr(mpi, op)(buf=(mpi.rank, k), count=nbytes, dest=peer)
        yield mpi.waitall(reqs)
        return got

    r = ms.run(program, ranks=size, network={"eager_limit": eager}, buffer=64 * 1024,
               mpi={"allocator": allocator})
    assert r.outcome in (ms.Outcome.COMPLETED, ms.Outcome.DEADLOCK), r.report()
    if r.outcome is ms.Outcome.DEADLOCK:
        assert r.deadlock.blocked and all(b.waits_for for b in r.deadlock.blocked)
        return
    got = [m for g in r.returned for m in g]
    sent = [(src, op[3]) for src in ops for op in ops[src] if op[0] != "recv"]
    assert sorted(got) == sorted(sent)
    for dst, g in enumerate(r.returned):
        for src in range(size):
            order = [op[3] for op in ops[src] if op[0] != "recv" and op[1] == dst]
            assert [k for (s, k) in g if s == src] == order
    assert all(x.buffer.overflows == 0 for x in r.ranks)


def raises_in_python(mpi):
    yield mpi.compute(1e-6)
    if mpi.rank == 1:
        raise ValueError("boom")


def helper_with_a_bad_rank(mpi):
    yield mpi.send(count=10, dest=5)


def calls_a_helper(mpi):
    yield from helper_with_a_bad_rank(mpi)


def test_errors_from_python_programs_carry_file_and_line():
    """As deadlocks do: the report and the JSON say where in the program file it happened,
    for an exception the program raised and for an MPIError raised at its yield (here in a
    helper it delegates to)."""
    raised = ms.run(raises_in_python, ranks=2)
    line = raises_in_python.__code__.co_firstlineno + 3
    assert raised.error.where == f"test_simulation.py:{line} (raises_in_python)"
    assert f"at test_simulation.py:{line}" in raised.report()
    mpi_error = ms.run(calls_a_helper, ranks=2)
    line = helper_with_a_bad_rank.__code__.co_firstlineno + 1
    assert mpi_error.error.error_class == "MPI_ERR_RANK"
    assert mpi_error.to_dict()["error"]["where"] == \
        f"test_simulation.py:{line} (helper_with_a_bad_rank)"


def yields_a_number(mpi):
    yield mpi.compute(1e-6)
    yield 5


def test_a_program_that_yields_what_no_call_returns_is_refused_at_that_yield():
    """Not a traceback out of the engine: the rank's error, where its program yielded."""
    r = ms.run(yields_a_number, ranks=2)
    assert r.outcome is ms.Outcome.ERROR
    assert r.error.error_class == "NotYielded"
    assert "yielded 5" in r.error.message
    line = yields_a_number.__code__.co_firstlineno + 2
    assert r.error.where == f"test_simulation.py:{line} (yields_a_number)"


def returns_at_once(mpi):
    return mpi.rank * 10


def test_a_program_that_is_a_plain_function_runs_and_returns_its_value():
    """A rank's program need not be a generator: it returns, then MPI_Finalize."""
    r = ms.run(returns_at_once, ranks=3)
    assert r.outcome is ms.Outcome.COMPLETED and r.returned == [0, 10, 20]


def test_a_normal_exit_costs_no_event_and_is_recorded_when_it_happens():
    """Ranks that return are told to the run at once (one event starts them all, none is
    spent on their exits); each one's end time is when its program returned."""
    sim = ms.Simulation(returns_at_once, ranks=1000)
    r = sim.run()
    assert sim.events == 1 and r.outcome is ms.Outcome.COMPLETED
    sim = ms.Simulation(ping, ranks=2)
    r = sim.run()
    ends = [rank.end_time for rank in r.ranks]
    assert 0 < ends[0] < ends[1] == r.sim_time  # the send completes before its delivery


def fails_at_once(mpi):
    yield mpi.send(count=1, dest=mpi.size)


def test_an_exit_by_an_error_is_reported_in_event_order():
    """Two ranks failing at the same instant: the first in the event order (rank 0, started
    first) is the run's error."""
    r = ms.run(fails_at_once, ranks=2)
    assert r.outcome is ms.Outcome.ERROR and r.error.rank == 0
