"""Threads of a rank in scenario files (MPI 4.1 §11.6): ``init_thread``, ``thread``, ``join``,
``query_thread`` and ``is_thread_main``; problems reported at load with their line, a
deadlock or an error in a thread's op at that op, with the thread's name."""

from __future__ import annotations

import textwrap

import pytest

import mpisim as ms
from mpisim.scenario.problems import ScenarioError

L, B = 1e-6, 1e10


def scenario(tmp_path, text: str):
    path = tmp_path / "threads.yaml"
    path.write_text(textwrap.dedent(text))
    return ms.load_scenario(path)


def problems(tmp_path, text: str) -> str:
    with pytest.raises(ScenarioError) as e:
        scenario(tmp_path, text)
    return "\n".join(e.value.problems)


def test_a_thread_blocked_in_a_receive_blocks_only_itself(tmp_path):
    """§11.6: rank 0's thread waits 20 µs in MPI_Recv while its main thread sends and
    computes; the join ends when rank 1's late message (sent after 20 µs) arrives."""
    sc = scenario(tmp_path, """
        ranks: 2
        network: {latency: 1us, bandwidth: 10 GB/s}
        programs:
          - ranks: 0
            ops:
              - init_thread: multiple
              - thread:
                  name: listener
                  ops:
                    - recv: {source: 1, bytes: 8, tag: 7}
              - send: {dest: 1, bytes: 8, tag: 3}
              - compute: 5us
              - join: listener
          - ranks: 1
            ops:
              - recv: {source: 0, bytes: 8, tag: 3}
              - compute: 20us
              - send: {dest: 0, bytes: 8, tag: 7}
        """)
    r = sc.run()
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.sim_time == pytest.approx(L + 8 / B + 20e-6 + L + 8 / B)


def test_the_level_and_the_main_thread_are_bound_by_name(tmp_path):
    """§11.2.1: init_thread gives the level asked for; query_thread answers it; the main
    thread is the rank's own ops, not a thread body (§11.6.2)."""
    sc = scenario(tmp_path, """
        ranks: 1
        programs:
          - ranks: all
            ops:
              - init_thread: {required: serialized, provided: given}
              - query_thread: {provided: level}
              - is_thread_main: {flag: main}
              - loop: {times: given + level + main, ops: [compute: 1us]}
              - thread:
                  name: t
                  ops:
                    - is_thread_main: {flag: main}
                    - loop: {times: 10 * main, ops: [compute: 1us]}
              - join: t
        """)
    r = sc.run()
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.sim_time == pytest.approx(5e-6)  # 2 + 2 + 1, and nothing in the thread


def test_a_thread_op_in_a_loop_starts_several_and_join_waits_for_them_all(tmp_path):
    sc = scenario(tmp_path, """
        ranks: 1
        programs:
          - ranks: all
            ops:
              - loop:
                  times: 3
                  var: k
                  ops:
                    - thread: {name: w, ops: [compute: {seconds: (k + 1) * 1us}]}
              - join: w
        """)
    r = sc.run()
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.sim_time == pytest.approx(3e-6)  # the three run side by side


def test_what_a_thread_binds_is_its_own(tmp_path):
    """A name a thread's op binds is not known to the rank's later ops: refused at load."""
    text = problems(tmp_path, """
        ranks: 2
        programs:
          - ranks: all
            ops:
              - thread:
                  name: t
                  ops:
                    - recv: {source: 1 - rank, bytes: 8, tag: 0, status: {source: who}}
              - send: {dest: 1 - rank, bytes: 8, tag: 0}
              - join: t
              - compute: {seconds: who * 1us}
        """)
    assert "threads.yaml:12: programs[0].ops[3].compute.seconds: undefined name 'who'" in text


def test_load_problems_name_the_line(tmp_path):
    text = problems(tmp_path, """
        ranks: 1
        programs:
          - ranks: all
            ops:
              - init_thread: plenty
              - thread: {ops: [compute: 1us]}
              - thread: {name: t, daemon: maybe, ops: []}
              - join: [t, u]
        """)
    assert "threads.yaml:6: programs[0].ops[0].init_thread.required: expected a thread " \
           "level (single, funneled, serialized, multiple, 0..3, or a param holding one), " \
           "got the text 'plenty'" in text
    assert "threads.yaml:7: programs[0].ops[1].thread: missing name" in text
    assert "threads.yaml:8: programs[0].ops[2].thread.daemon: expected true or false" in text
    assert "threads.yaml:9: programs[0].ops[3].join[1]: no thread named 'u'" in text


def test_a_deadlock_in_a_thread_names_the_thread_and_its_op(tmp_path):
    """The shipped example: the main thread joins its listener before sending what the
    listener's reply needs (§11.6)."""
    from helpers.paths import SCENARIOS

    r = ms.load_scenario(SCENARIOS / "threads-join-deadlock.yaml").run()
    assert r.outcome is ms.Outcome.DEADLOCK
    rows = [(b.rank, b.thread, b.call, b.where) for b in r.deadlock.blocked]
    assert rows == [
        (0, None, "join 'listener'", "programs[0].ops[2].if.then[0] (line 23)"),
        (0, "listener", "MPI_Recv", "programs[0].ops[1].thread.ops[0] (line 19)"),
        (1, None, "MPI_Recv", "programs[1].ops[0] (line 28)")]
    fixed = ms.load_scenario(SCENARIOS / "threads-join-deadlock.yaml").run(
        params={"count": 1024, "fixed": True})
    assert fixed.outcome is ms.Outcome.COMPLETED


def test_an_error_in_a_threads_op_is_located_at_it(tmp_path):
    sc = scenario(tmp_path, """
        ranks: 2
        programs:
          - ranks: all
            ops:
              - thread:
                  name: sender
                  ops:
                    - send: {dest: rank + 5, bytes: 8, tag: 0}
              - join: sender
        """)
    r = sc.run()
    assert r.outcome is ms.Outcome.ERROR
    assert "thread 'sender'" in r.error.message
    assert r.error.where == "programs[0].ops[0].thread.ops[0] (line 9)"


def test_a_funneled_rank_whose_thread_calls_mpi_has_a_thread_level_finding(tmp_path):
    """§11.2.1: under MPI_THREAD_FUNNELED only the main thread calls MPI."""
    sc = scenario(tmp_path, """
        ranks: 2
        params: {level: funneled}
        programs:
          - ranks: all
            ops:
              - init_thread: level
              - thread:
                  name: comm
                  ops:
                    - barrier: {}
        """)
    r = sc.run()
    assert r.outcome is ms.Outcome.COMPLETED
    assert {(f.rule, f.calls[0].rank) for f in r.findings} == {("thread-level", 0),
                                                                ("thread-level", 1)}
    assert sc.run(params={"level": "multiple"}).findings == []


def test_two_threads_waiting_on_one_request_is_a_finding(tmp_path):
    """§11.6.2: requests are the rank's, shared by its threads; two of them waiting on the
    same one is erroneous (thread-same-request)."""
    sc = scenario(tmp_path, """
        ranks: 2
        programs:
          - ranks: 0
            ops:
              - init_thread: multiple
              - irecv: {source: 1, bytes: 8, tag: 0, request: r}
              - thread: {name: waiter, ops: [wait: r]}
              - wait: r
              - join: waiter
          - ranks: 1
            ops:
              - compute: 5us
              - send: {dest: 0, bytes: 8, tag: 0}
        """)
    r = sc.run()
    assert "thread-same-request" in {f.rule for f in r.findings}, r.report()


def test_the_shipped_communication_thread_overlaps_the_computation():
    """The exchange (4 steps of 64 KiB around a ring) hides behind 4 x 40 µs of
    computation: the run ends when the computation does."""
    from helpers.paths import SCENARIOS

    r = ms.load_scenario(SCENARIOS / "threads-comm-thread.yaml").run()
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.sim_time == pytest.approx(160e-6)
    assert r.findings == []


def test_init_thread_after_the_first_call_is_refused_at_its_line(tmp_path):
    """§11.2.1: MPI_Init_thread initializes MPI, so it is the program's first call."""
    sc = scenario(tmp_path, """
        ranks: 1
        programs:
          - ranks: all
            ops:
              - barrier: {}
              - init_thread: multiple
        """)
    r = sc.run()
    assert r.outcome is ms.Outcome.ERROR
    assert "programs[0].ops[1] (line 7): MPI_ERR_OTHER: MPI_Init_thread: MPI is initialized " \
           "already" in r.error.message


def test_a_join_of_a_thread_this_rank_never_started_is_an_error_at_the_join(tmp_path):
    sc = scenario(tmp_path, """
        ranks: 2
        programs:
          - ranks: 0
            ops:
              - thread: {name: t, ops: [compute: 1us]}
          - ranks: all
            ops:
              - join: t
        """)
    r = sc.run()
    assert r.outcome is ms.Outcome.ERROR and r.error.rank == 1
    assert "programs[1].ops[0] (line 9): join: no thread named 't' was started on this " \
           "rank" in r.error.message
