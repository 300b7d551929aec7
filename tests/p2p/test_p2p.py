"""Point-to-point semantics of the simulation core (MPI 3.4-3.7), one rule per test."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.programs import exchange

import mpisim as ms

L, BW = 1e-6, 1e10  # 1 us, 10 GB/s


def net(**kw):
    return {"latency": L, "bandwidth": BW, **kw}


def test_example_3_10_completes_when_the_message_fits_the_eager_limit():
    """3.5 Example 3.10: completes if at least one message is buffered (eager, 4000 <= 4096)."""
    r = ms.run(exchange, ranks=2, network=net(eager_limit="4 KiB"))
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.messages == {"sent": 2, "received": 2, "bytes": 8000}


def test_example_3_10_deadlocks_when_the_message_exceeds_the_eager_limit():
    """3.5 Example 3.10: with no buffering both ranks block in MPI_Send: cycle 0 <-> 1."""
    r = ms.run(exchange, ranks=2, network=net(eager_limit=3999))
    assert r.outcome is ms.Outcome.DEADLOCK
    assert [(b.rank, b.call, b.peer, b.bytes, b.waits_for) for b in r.deadlock.blocked] == [
        (0, "MPI_Send", 1, 4000, [1]), (1, "MPI_Send", 0, 4000, [0])]
    assert r.deadlock.cycles == [[0, 1]]
    assert "MPI_Send" in r.report() and "cycle: 0 -> 1 -> 0" in r.report()


def test_example_3_10_always_deadlocks_with_ssend():
    """3.5: 'The same will certainly happen if the synchronous mode is used.'"""
    for count in (0, 1, 1000):
        r = ms.run(exchange, ranks=2, network=net(eager_limit="1 MiB"),
                   params={"count": count, "send": "ssend"})
        assert r.outcome is ms.Outcome.DEADLOCK
        assert {b.call for b in r.deadlock.blocked} == {"MPI_Ssend"}
        assert r.deadlock.cycles == [[0, 1]]


def test_eager_limit_zero_makes_every_standard_send_rendezvous():
    r = ms.run(exchange, ranks=2, network=net(eager_limit=0), params={"count": 1})
    assert r.outcome is ms.Outcome.DEADLOCK
    assert set(r.trace.messages["protocol"]) == {"rendezvous"}


def one_message(mpi, nbytes=1000, recv_delay=0.0, mode="send"):
    if mpi.rank == 0:
        yield getattr(mpi, mode)(count=nbytes, dest=1, tag=7)
        return mpi.now
    yield mpi.compute(recv_delay)
    yield mpi.recv(count=nbytes, source=0, tag=7)
    return mpi.now


def test_eager_message_arrives_latency_plus_size_over_bandwidth_after_it_was_sent():
    """Hockney: an eager message of n bytes is received latency + n / bandwidth later."""
    n = 5000
    r = ms.run(one_message, ranks=2, network=net(eager_limit=8192), params={"nbytes": n})
    assert r.returned[1] == pytest.approx(L + n / BW, rel=1e-12)
    assert r.returned[0] == pytest.approx(n / BW, rel=1e-12)  # local completion: bytes left


def test_rendezvous_takes_rts_cts_and_data():
    """Rendezvous: RTS (latency), CTS once matched (latency), then the data."""
    n = 100_000
    r = ms.run(one_message, ranks=2, network=net(eager_limit=1024), params={"nbytes": n})
    assert r.returned[1] == pytest.approx(3 * L + n / BW, rel=1e-12)
    assert r.returned[0] == pytest.approx(2 * L + n / BW, rel=1e-12)
    m = r.trace.messages[0]
    assert m["protocol"] == "rendezvous" and m["match"] == pytest.approx(L)


def test_rendezvous_send_completes_only_after_the_late_receive_is_posted():
    n, delay = 100_000, 50e-6
    r = ms.run(one_message, ranks=2, network=net(eager_limit=1024),
               params={"nbytes": n, "recv_delay": delay})
    assert r.returned[0] == pytest.approx(delay + L + n / BW, rel=1e-12)
    assert r.returned[1] == pytest.approx(delay + 2 * L + n / BW, rel=1e-12)


def test_ssend_completes_only_after_the_matching_receive_has_started():
    """3.4: a synchronous send completes only once the matching receive has started."""
    delay = 30e-6
    r = ms.run(one_message, ranks=2, network=net(eager_limit=8192),
               params={"nbytes": 8, "recv_delay": delay, "mode": "ssend"})
    assert r.returned[0] == pytest.approx(delay + L, rel=1e-12)  # ack travels back


def test_sends_serialise_on_the_senders_port():
    def two(mpi, contention_bytes=10_000):
        if mpi.rank == 0:
            a = yield mpi.isend(count=contention_bytes, dest=1, tag=0)
            b = yield mpi.isend(count=contention_bytes, dest=2, tag=0)
            yield mpi.waitall([a, b])
        else:
            yield mpi.recv(count=contention_bytes, source=0, tag=0)
            return mpi.now

    n = 10_000
    r = ms.run(two, ranks=3, network=net(eager_limit=65536))
    assert r.returned[1] == pytest.approx(n / BW + L)
    assert r.returned[2] == pytest.approx(2 * n / BW + L)
    r = ms.run(two, ranks=3, network=net(eager_limit=65536, contention="none"))
    assert r.returned[2] == pytest.approx(n / BW + L)


def test_a_message_to_oneself_costs_no_latency_and_leaves_the_port_free():
    """3.4: a rank may send to itself; the message is copied within the process (MPICH's and
    Open MPI's self transport), so an eager message to oneself takes n / bandwidth, an ssend
    to oneself completes when its receive matches, and neither queues behind the port."""
    n = 10_000

    def to_self(mpi, mode="isend"):
        other = yield mpi.isend(count=n, dest=1 - mpi.rank, tag=1)  # occupies the port
        mine = yield getattr(mpi, mode)(count=n, dest=mpi.rank, tag=0)
        yield mpi.recv(count=n, source=mpi.rank, tag=0)
        yield mpi.wait(mine)
        done = mpi.now
        yield mpi.recv(count=n, source=1 - mpi.rank, tag=1)
        yield mpi.wait(other)
        return done

    for mode in ("isend", "issend"):
        r = ms.run(to_self, ranks=2, network=net(eager_limit=65536), params={"mode": mode})
        assert r.outcome is ms.Outcome.COMPLETED
        assert r.returned[0] == pytest.approx(n / BW, rel=1e-12), mode


def test_two_level_machine_uses_intra_node_settings_within_a_node():
    def ping(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=100, dest=1)
            yield mpi.send(count=100, dest=2)
        else:
            yield mpi.recv(count=100, source=0)
            return mpi.now

    r = ms.run(ping, ranks=3, network=net(ranks_per_node=2,
                                          intra={"latency": "100ns", "bandwidth": "100 GB/s"}))
    assert r.returned[1] == pytest.approx(100e-9 + 100 / 100e9)
    assert r.returned[2] == pytest.approx(100 / 100e9 + 100 / BW + L)


def test_per_call_overhead_delays_sends():
    r = ms.run(one_message, ranks=2, network=net(overhead="2us"), params={"nbytes": 0})
    assert r.returned[1] == pytest.approx(2e-6 + L)


def test_non_overtaking_holds_when_a_rendezvous_message_is_followed_by_an_eager_one():
    """3.5: messages from one sender to one receiver are received in the order sent."""
    def prog(mpi):
        if mpi.rank == 0:
            a = yield mpi.isend(buf="big", count=100_000, dest=1, tag=1)
            b = yield mpi.isend(buf="small", count=10, dest=1, tag=1)
            yield mpi.waitall([a, b])
        else:
            yield mpi.compute("10us")
            s1 = yield mpi.recv(count=100_000, source=0, tag=ms.ANY_TAG)
            s2 = yield mpi.recv(count=100_000, source=ms.ANY_SOURCE, tag=1)
            return [s1.data, s2.data]

    r = ms.run(prog, ranks=2, network=net(eager_limit=1024))
    assert r.returned[1] == ["big", "small"]


def test_jitter_is_seeded_and_never_reorders_a_pair():
    def burst(mpi, n=20):
        if mpi.rank == 0:
            reqs = []
            for i in range(n):
                reqs.append((yield mpi.isend(buf=i, count=8, dest=1, tag=0)))
            yield mpi.waitall(reqs)
        else:
            got = []
            for _ in range(n):
                got.append((yield mpi.recv(count=8, source=0, tag=0)).data)
            return got, mpi.now

    kw = dict(ranks=2, network=net(jitter="5us"))
    a, b, c = ms.run(burst, seed=1, **kw), ms.run(burst, seed=1, **kw), ms.run(burst, seed=2, **kw)
    assert a.to_json() == b.to_json()
    assert a.returned[1][0] == list(range(20))
    assert a.returned[1][1] != c.returned[1][1]


def test_any_source_and_any_tag_match_the_first_arrived_message():
    def prog(mpi):
        if mpi.rank == 0:
            got = []
            for _ in range(2):
                st = yield mpi.recv(count=8, source=ms.ANY_SOURCE, tag=ms.ANY_TAG)
                got.append((st.source, st.tag))
            return got
        yield mpi.compute(f"{mpi.rank * 10}us")
        yield mpi.send(count=8, dest=0, tag=mpi.rank + 40)

    assert ms.run(prog, ranks=3).returned[0] == [(1, 41), (2, 42)]


def test_a_message_matches_the_first_posted_receive_that_fits_it():
    """3.5 non-overtaking: 'if a process posts two receives which both match the same
    message, the second receive operation cannot be satisfied by this message, if the first
    one is still pending' -- the first posted receive takes the first message."""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.send(buf="first", count=8, dest=1, tag=3)
            yield mpi.send(buf="second", count=8, dest=1, tag=3)
            return None
        wide = yield mpi.irecv(count=8, source=ms.ANY_SOURCE, tag=ms.ANY_TAG)
        narrow = yield mpi.irecv(count=8, source=0, tag=3)
        statuses = yield mpi.waitall([wide, narrow])
        return [s.data for s in statuses]

    assert ms.run(prog, ranks=2).returned[1] == ["first", "second"]


@pytest.mark.parametrize("eager_limit", [1, 4096, 65536])
def test_a_message_of_exactly_the_eager_limit_goes_eager(eager_limit):
    """The documented threshold: eager iff 0 < bytes <= eager limit; one byte more is
    rendezvous, so the send waits for the late receive."""
    def prog(mpi, nbytes):
        if mpi.rank == 0:
            yield mpi.send(count=nbytes, dest=1)
            return mpi.now
        yield mpi.compute("1ms")
        yield mpi.recv(count=nbytes, source=0)

    at_limit = ms.run(prog, ranks=2, network=net(eager_limit=eager_limit),
                      params={"nbytes": eager_limit})
    assert list(at_limit.trace.messages["protocol"]) == ["eager"]
    assert at_limit.returned[0] == pytest.approx(eager_limit / BW)  # did not wait for the recv
    over = ms.run(prog, ranks=2, network=net(eager_limit=eager_limit),
                  params={"nbytes": eager_limit + 1})
    assert list(over.trace.messages["protocol"]) == ["rendezvous"]
    assert over.returned[0] > 1e-3


def test_receive_smaller_than_the_message_raises_mpi_err_truncate():
    """3.2.4: a message longer than the receive buffer is an overflow error (MPI_ERR_TRUNCATE)."""
    def prog(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=10, datatype=ms.INT, dest=1)
        else:
            try:
                yield mpi.recv(count=9, datatype=ms.INT, source=0)
            except ms.MPIError as e:
                return e.error_class

    assert ms.run(prog, ranks=2).returned[1] == "MPI_ERR_TRUNCATE"


@pytest.mark.parametrize("kwargs, error_class", [
    ({"dest": 2}, "MPI_ERR_RANK"), ({"dest": -5}, "MPI_ERR_RANK"),
    ({"dest": 1, "tag": -1}, "MPI_ERR_TAG"), ({"dest": 1, "tag": 2**31}, "MPI_ERR_TAG"),
    ({"dest": 1, "count": -1}, "MPI_ERR_COUNT"), ({"dest": 1, "datatype": "int"}, "MPI_ERR_TYPE"),
])
def test_invalid_send_arguments_raise_in_the_program(kwargs, error_class):
    """Errors are raised inside the program (MPI_ERRORS_RETURN lets it catch them)."""
    def prog(mpi):
        if mpi.rank == 0:
            try:
                yield mpi.send(**{"count": 1, **kwargs})
            except ms.MPIError as e:
                assert isinstance(e, RuntimeError)
                return e.error_class
        return None

    assert ms.run(prog, ranks=2).returned[0] == error_class


def test_an_uncaught_mpi_error_ends_the_run_as_error():
    """MPI_ERRORS_ARE_FATAL: the run stops with rank, call, time and class."""
    def prog(mpi):
        yield mpi.compute("3us")
        yield mpi.recv(count=1, source=7)

    r = ms.run(prog, ranks=2)
    assert r.outcome is ms.Outcome.ERROR and r.exit_code == 4
    assert (r.error.rank, r.error.call, r.error.error_class) == (0, "MPI_Recv", "MPI_ERR_RANK")
    assert r.error.time == pytest.approx(3e-6)
    assert r.to_dict()["error"]["error_class"] == "MPI_ERR_RANK"


def test_a_python_exception_ends_the_run_with_the_traceback_in_the_report():
    def prog(mpi):
        yield mpi.compute("1us")
        return 1 // 0

    r = ms.run(prog, ranks=1)
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "ZeroDivisionError"
    assert "Traceback" in r.report() and "return 1 // 0" in r.report()


def test_ready_send_before_the_receive_is_posted_is_an_error():
    """3.4: a ready send may start only if the matching receive is already posted."""
    def prog(mpi, late=True):
        if mpi.rank == 0:
            yield mpi.compute("0us" if late else "5us")
            yield mpi.rsend(count=4, dest=1)
        else:
            yield mpi.compute("10us" if late else "0us")
            yield mpi.recv(count=4, source=0)

    bad = ms.run(prog, ranks=2)
    assert bad.outcome is ms.Outcome.ERROR
    assert (bad.error.rank, bad.error.call, bad.error.error_class) == (0, "MPI_Rsend",
                                                                       "MPI_ERR_OTHER")
    assert "before a matching receive was posted" in bad.error.message
    assert ms.run(prog, ranks=2, params={"late": False}).outcome is ms.Outcome.COMPLETED


def test_system_buffer_full_turns_standard_sends_rendezvous():
    r = ms.run(exchange, ranks=2, network=net(eager_limit="64 KiB", system_buffer=3999))
    assert r.outcome is ms.Outcome.DEADLOCK
    r = ms.run(exchange, ranks=2, network=net(eager_limit="64 KiB", system_buffer=4000))
    assert r.outcome is ms.Outcome.COMPLETED


def test_numpy_arrays_travel_and_fill_the_receive_buffer():
    def prog(mpi):
        if mpi.rank == 0:
            a = np.arange(6, dtype=np.float64)
            yield mpi.send(a, dest=1, tag=3)
            a[:] = -1  # the message was copied when sent
        else:
            b = np.zeros(6)
            st = yield mpi.recv(b, source=0, tag=3)
            return b.tolist(), st.count, st.data.tolist()

    got, count, data = ms.run(prog, ranks=2).returned[1]
    assert got == data == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and count == 48


def test_python_objects_travel_as_copies():
    def prog(mpi):
        if mpi.rank == 0:
            obj = {"k": [1, 2]}
            yield mpi.send(obj, count=16, dest=1)
            obj["k"].append(3)
        else:
            return (yield mpi.recv(count=16, source=0)).data

    assert ms.run(prog, ranks=2).returned[1] == {"k": [1, 2]}


def test_proc_null_send_and_receive_complete_at_once():
    def prog(mpi):
        yield mpi.send(count=10, dest=ms.PROC_NULL)
        st = yield mpi.recv(count=10, source=ms.PROC_NULL)
        return st.source, st.count, mpi.now

    assert ms.run(prog, ranks=1).returned[0] == (ms.PROC_NULL, 0, 0.0)
