"""A rank program that forgets a ``yield`` is refused, never answered for.

An MPI call of the handle returns an event; only its ``yield`` makes the call wait and
complete. A call whose event is never yielded, a yield of something that is not an event,
and a helper generator called without ``yield from`` each end the run at once as
``Outcome.ERROR`` (error class ``NotYielded``) naming the call, its ``file:line`` and the
fix (mpisim.engine.yields). Correct programs, however they hold their events, run as before.
"""

from __future__ import annotations

import dis
import inspect

import pytest

import mpisim as ms
from mpisim.engine.yields import NotYielded, discarded_generators, locate

NET = ms.Network(latency="1us", bandwidth="10 GB/s", eager_limit="4 KiB")
COUNT = 2000  # 8000 bytes of REAL: above the eager limit, so Example 3.10 deadlocks


def line_of(func, text: str) -> int:
    """The line of ``func``'s source holding ``text`` (the first)."""
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def place(func, text: str) -> str:
    return f"test_yields.py:{line_of(func, text)} ({func.__name__})"


def refused(result, call, where) -> str:
    """The run ended at once with NotYielded naming ``call`` at ``where``; its message."""
    assert result.outcome is ms.Outcome.ERROR, result.report()
    err = result.error
    assert err.error_class == "NotYielded"
    assert err.call == call
    assert err.where == where
    assert "test_yields.py" not in err.message  # (the place is the error's where, once)
    report = result.report()
    assert "NotYielded" in report and where in report
    return err.message


# -- one call not yielded ------------------------------------------------------------------
def example_3_10(mpi, count=COUNT):
    peer = 1 - mpi.rank
    yield mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)


def example_3_10_send_not_yielded(mpi, count=COUNT):
    peer = 1 - mpi.rank
    mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)  # the forgotten yield
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)


def test_example_3_10_deadlocks_as_written():
    """3.5, Example 3.10: both ranks send 8000 bytes first (rendezvous): a deadlock."""
    assert ms.run(example_3_10, ranks=2, network=NET).outcome is ms.Outcome.DEADLOCK


def test_example_3_10_without_its_yield_is_an_error_naming_the_send_never_completed():
    """3.5, Example 3.10 with ``mpi.send(...)`` for ``yield mpi.send(...)``: the send would
    not block, and the deadlocking exchange would complete. It is refused at the rank's
    next call, at once (t = 0), naming the send's line and the fix."""
    r = ms.run(example_3_10_send_not_yielded, ranks=2, network=NET)
    assert r.outcome is not ms.Outcome.COMPLETED
    message = refused(r, "MPI_Send", place(example_3_10_send_not_yielded, "forgotten"))
    assert "`yield mpi.send(...)`" in message
    assert r.sim_time == 0 and r.error.rank == 0


def stores_the_event_and_never_yields_it(mpi):
    ev = mpi.isend(count=4, datatype=ms.INT, dest=1 - mpi.rank, tag=0)  # held, not yielded
    yield mpi.recv(count=4, datatype=ms.INT, source=1 - mpi.rank, tag=0)
    yield mpi.wait(ev)


def test_an_event_held_in_a_variable_but_not_yielded_before_the_next_call_is_refused():
    r = ms.run(stores_the_event_and_never_yields_it, ranks=2)
    message = refused(r, "MPI_Isend", place(stores_the_event_and_never_yields_it,
                                            "held, not yielded"))
    assert "`yield mpi.isend(...)`" in message


def last_call_not_yielded(mpi):
    yield mpi.barrier()
    mpi.send(count=4, datatype=ms.INT, dest=1 - mpi.rank, tag=0)  # last, not yielded


def test_a_call_not_yielded_before_the_program_returns_is_refused_at_its_end():
    r = ms.run(last_call_not_yielded, ranks=2)
    refused(r, "MPI_Send", place(last_call_not_yielded, "last, not yielded"))


def sends_in_a_loop_without_yield(mpi):
    for _ in range(3):
        mpi.isend(count=4, datatype=ms.INT, dest=1 - mpi.rank, tag=0)  # in the loop
    yield mpi.barrier()


def test_a_call_not_yielded_in_a_loop_is_refused_at_its_second_round():
    r = ms.run(sends_in_a_loop_without_yield, ranks=2)
    refused(r, "MPI_Isend", place(sends_in_a_loop_without_yield, "in the loop"))


def swallows_everything(mpi):
    try:
        mpi.send(count=4, datatype=ms.INT, dest=1 - mpi.rank, tag=0)
        yield mpi.recv(count=4, datatype=ms.INT, source=1 - mpi.rank, tag=0)
    except Exception:
        pass


def test_a_program_catching_exception_does_not_hide_the_refusal():
    r = ms.run(swallows_everything, ranks=2)
    assert r.outcome is ms.Outcome.ERROR and r.error.error_class == "NotYielded"


# -- no call yielded -----------------------------------------------------------------------
def no_yield_at_all(mpi):
    peer = 1 - mpi.rank
    mpi.send(count=COUNT, datatype=ms.REAL, dest=peer, tag=0)  # first call
    mpi.recv(count=COUNT, datatype=ms.REAL, source=peer, tag=0)


def one_call_and_no_yield(mpi):
    mpi.barrier()  # its only call


def test_a_plain_function_program_making_calls_is_refused_at_its_second_call():
    """Example 3.10 with no yield at all would "complete": refused naming the first call."""
    r = ms.run(no_yield_at_all, ranks=2, network=NET)
    refused(r, "MPI_Send", place(no_yield_at_all, "first call"))


def test_a_plain_function_program_making_one_call_is_refused_saying_it_has_no_yield():
    r = ms.run(one_call_and_no_yield, ranks=2)
    message = refused(r, "MPI_Barrier", place(one_call_and_no_yield, "its only call"))
    assert "has no `yield`" in message and "`yield mpi.barrier(...)`" in message


def test_a_plain_function_program_making_no_call_still_runs():
    r = ms.run(lambda mpi: mpi.rank + 1, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED and r.returned == [1, 2]


# -- helper generators ---------------------------------------------------------------------
def exchange(mpi, count):
    peer = 1 - mpi.rank
    yield mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)


def helper_called_without_yield_from(mpi):
    exchange(mpi, COUNT)  # needs yield from
    yield mpi.barrier()


def helper_yielded(mpi):
    yield exchange(mpi, COUNT)  # a generator, yielded


def helper_delegated(mpi, count=COUNT):
    yield from exchange(mpi, count)


def test_a_helper_generator_called_without_yield_from_is_refused_before_any_call():
    """Its body would never run: the exchange (a deadlock, 3.5) would vanish."""
    r = ms.run(helper_called_without_yield_from, ranks=2, network=NET)
    message = refused(r, None, place(helper_called_without_yield_from, "needs yield from"))
    assert "`yield from exchange(...)`" in message
    assert r.sim_time == 0 and r.messages["sent"] == 0


def test_a_helper_generator_yielded_instead_of_delegated_is_refused_at_that_yield():
    r = ms.run(helper_yielded, ranks=2, network=NET)
    message = refused(r, None, place(helper_yielded, "a generator, yielded"))
    assert "`yield from exchange(...)`" in message
    assert "in the program at" in r.report()


def test_a_helper_generator_delegated_with_yield_from_runs_as_inlined():
    assert ms.run(helper_delegated, ranks=2, network=NET).outcome is ms.Outcome.DEADLOCK
    assert ms.run(helper_delegated, ranks=2, params={"count": 10}).outcome \
        is ms.Outcome.COMPLETED


def test_a_helper_in_a_closure_called_without_yield_from_is_found():
    def make():
        def inner(mpi):
            yield mpi.barrier()

        def program(mpi):
            inner(mpi)
            yield mpi.barrier()
        return program
    error = discarded_generators(make())
    assert isinstance(error, NotYielded) and "`yield from inner(...)`" in error.message


class Ranks:
    def program(self, mpi):
        exchange(mpi, 4)  # a method's helper, not delegated
        yield mpi.barrier()


def test_a_method_as_the_program_is_checked_for_helpers_too():
    r = ms.run(Ranks().program, ranks=2)
    refused(r, None, f"test_yields.py:{line_of(Ranks.program, 'not delegated')} (program)")


def test_a_generator_stored_or_iterated_is_not_a_discarded_helper():
    def program(mpi):
        steps = exchange(mpi, 4)
        yield from steps
        list(exchange(mpi, 4))
    assert discarded_generators(program) is None


# -- yields of what is not an event ---------------------------------------------------------
def yields_a_number(mpi):
    yield 5  # a number


def yields_nothing(mpi):
    yield  # bare


def yields_the_method(mpi):
    yield mpi.barrier  # not called


@pytest.mark.parametrize("program, text, words", [
    (yields_a_number, "a number", "yielded 5 (an int)"),
    (yields_nothing, "bare", "a bare `yield`"),
    (yields_the_method, "not called", "`yield mpi.barrier(...)`"),
])
def test_a_yield_of_what_is_not_an_event_is_refused_naming_the_yield(program, text, words):
    r = ms.run(program, ranks=2)
    message = refused(r, None, place(program, text))
    assert words in message


# -- correct programs, however they hold their events, are untouched ------------------------
def held_then_yielded(mpi):
    peer = 1 - mpi.rank
    ev = mpi.irecv(count=4, datatype=ms.INT, source=peer, tag=0)
    req = yield ev  # the event yielded before the next call
    yield mpi.send(count=4, datatype=ms.INT, dest=peer, tag=0)
    status = yield mpi.wait(req)
    return status.count


def test_an_event_yielded_later_but_before_the_next_call_is_fine():
    r = ms.run(held_then_yielded, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED and r.returned == [16, 16]


def test_the_runs_buffer_attach_and_finalize_are_not_the_programs_calls():
    """The buffer the run attaches before the program, and MPI_Finalize's wait for it, are
    made for the program: a plain function program is still fine."""
    r = ms.run(lambda mpi: None, ranks=2, buffer="4 KiB")
    assert r.outcome is ms.Outcome.COMPLETED


def test_locate_picks_the_unyielded_call_before_the_next_one_not_the_next_one_itself():
    def program(mpi):
        mpi.send()  # A
        yield mpi.send()  # B
    code = program.__code__
    a = inspect.getsourcelines(program)[1] + 1
    assert locate(code, "send") == a  # (returned: the last not yielded)
    b_offset = max(i.offset for i in dis.get_instructions(code) if i.opname.startswith("CALL"))
    assert locate(code, "send", b_offset) == a


def made_of_several(mpi):
    peer = 1 - mpi.rank
    status = yield mpi.sendrecv(sendcount=1, sendtype=ms.INT, dest=peer, recvcount=1,
                                recvtype=ms.INT, source=peer)
    yield mpi.sendrecv_replace(count=1, datatype=ms.INT, dest=peer, source=peer)
    reqs = [(yield mpi.send_init(count=1, datatype=ms.INT, dest=peer, tag=1)),
            (yield mpi.recv_init(count=1, datatype=ms.INT, source=peer, tag=1))]
    yield mpi.startall(reqs)
    yield mpi.waitall(reqs)
    for req in reqs:
        yield mpi.request_free(req)
    return status.count


def test_a_call_made_of_several_is_one_call_of_the_program():
    """3.10 and 3.9: a sendrecv posts a send and a receive, a startall starts each request;
    the program yields the one call."""
    r = ms.run(made_of_several, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned == [4, 4]
