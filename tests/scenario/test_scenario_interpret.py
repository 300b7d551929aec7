"""Compiled scenario programs run on the engine: order, loops, requests, locations, errors."""

import pickle
import textwrap

import numpy as np
import pytest

import mpisim as ms
from mpisim.scenario import interpret as compiled
from mpisim.scenario import load

NET = "network: {latency: 1us, bandwidth: 1 GB/s, eager_limit: 4 KiB}\n"


def scenario(tmp_path, body, ranks=2, params="{}", extra=""):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: s\nranks: {ranks}\nparams: {params}\n{NET}{extra}"
                    + textwrap.dedent(body))
    return load(path)


def test_where_names_the_op_and_line_in_a_deadlock(tmp_path):
    """3.5 Example 3.10: both blocked in MPI_Send; the report says where in the file."""
    sc = scenario(tmp_path, """\
        programs:
          - ranks: all
            ops:
              - send: {dest: 1 - rank, bytes: 8000}
              - recv: {source: 1 - rank, bytes: 8000}
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert {b.where for b in result.deadlock.blocked} == {"programs[0].ops[0] (line 8)"}


def test_where_of_nested_ops(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: all
            ops:
              - loop:
                  times: 2
                  ops:
                    - if:
                        cond: rank == 0
                        then: [{ssend: {dest: 1, count: 1}}]
                        else: [{ssend: {dest: 0, count: 1}}]
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    where = {b.rank: b.where for b in result.deadlock.blocked}
    assert where == {0: "programs[0].ops[0].loop.ops[0].if.then[0] (line 13)",
                     1: "programs[0].ops[0].loop.ops[0].if.else[0] (line 14)"}


def test_a_rank_runs_every_matching_entry_in_order(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: all
            ops: [{compute: 1us}]
          - ranks: 0
            ops: [{compute: 2us}]
          - ranks: odd
            ops: [{compute: 4us}]
        """, ranks=3)
    result = sc.run()
    assert [r.end_time for r in result.ranks] == pytest.approx([3e-6, 5e-6, 1e-6])


def test_a_rank_in_no_entry_runs_nothing(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: 0
            ops: [{compute: 1us}]
        """, ranks=3)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert [r.end_time for r in result.ranks] == pytest.approx([1e-6, 0.0, 0.0])


def test_if_else_and_loop_variables(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: 0
            ops:
              - loop:
                  times: n
                  var: i
                  ops:
                    - if: {cond: i % 2 == 0, then: [{send: {dest: 1, tag: i, count: i}}],
                           else: [{send: {dest: 1, tag: 100 + i, count: 1}}]}
          - ranks: 1
            ops:
              - loop: {times: n, var: i, ops: [{recv: {count: 10}}]}
        """, params="{n: 5}")
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    msgs = result.trace.messages
    assert msgs["tag"].tolist() == [0, 101, 2, 103, 4]
    assert msgs["bytes"].tolist() == [0, 1, 2, 1, 4]


def test_named_requests_indexed_by_a_loop_variable(tmp_path):
    """3.7: requests stored as r[i] are waited for by name, r[*] takes them all."""
    sc = scenario(tmp_path, """\
        programs:
          - ranks: 0
            ops:
              - loop: {times: 4, var: i, ops: [{isend: {dest: 1, tag: i, bytes: 16 KiB,
                                                        request: "r[i]"}}]}
              - wait: "r[3]"
              - waitall: "r[*]"
          - ranks: 1
            ops:
              - loop: {times: 4, var: i, ops: [{irecv: {source: 0, tag: 3 - i, bytes: 16 KiB,
                                                        request: "q[i]"}}]}
              - waitany: {requests: "q[*]", index: first, status: {tag: tag}}
              - waitall: ["q[0]", "q[1]", "q[2]", "q[3]"]
              - send: {dest: 0, tag: 50, count: first + 10 * tag}
          - ranks: 0
            ops: [{recv: {source: 1, tag: 50, count: 100}}]
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    reply = result.trace.messages[result.trace.messages["tag"] == 50]
    # the first irecv to complete is for tag 0 (sent first), posted as q[3]
    assert reply["bytes"].tolist() == [3 + 10 * 0]


def test_status_variables_reply_to_any_source(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: 0
            ops:
              - loop:
                  times: size - 1
                  ops:
                    - recv: {source: ANY_SOURCE, count: 8, status: {source: who, count: n}}
                    - send: {dest: who, tag: 1, count: n + who}
          - ranks: rank > 0
            ops:
              - compute: (size - rank) * 1us
              - send: {dest: 0, count: 8}
              - recv: {source: 0, tag: 1, count: 100}
        """, ranks=4)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    replies = result.trace.messages[result.trace.messages["src"] == 0]
    assert replies["dst"].tolist() == [3, 2, 1], "served in arrival order"
    assert replies["bytes"].tolist() == [11, 10, 9]


def test_iprobe_and_test_flags(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: 0
            ops:
              - iprobe: {source: 1, flag: early}
              - compute: 10us
              - iprobe: {source: 1, flag: late, status: {count: n}}
              - irecv: {source: 1, count: 64, request: r}
              - test: {request: r, flag: done}
              - send: {dest: 1, count: "early * 1 + late * 2 + done * 4 + 8 * n"}
          - ranks: 1
            ops:
              - send: {dest: 0, count: 3}
              - recv: {source: 0, count: 100}
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    reply = result.trace.messages[result.trace.messages["src"] == 0]
    assert reply["bytes"].tolist() == [0 + 2 + 4 + 24]


def test_buffer_attach_forms_and_detach_size(tmp_path):
    """3.6: the buffer for k messages is k * (pack_size + MPI_BSEND_OVERHEAD)."""
    sc = scenario(tmp_path, """\
        programs:
          - ranks: 0
            ops:
              - buffer_attach: {count: 100, datatype: DOUBLE, messages: 3}
              - buffer_detach: {size: got}
              - buffer_attach: got + 1
              - buffer_detach: {}
              - buffer_attach: 2 KiB
        """, extra="mpi: {bsend_overhead: 100}\n")
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED
    rows = result.trace.buffer
    attaches = rows[(rows["rank"] == 0) & (rows["event"] == "attach")]["capacity"].tolist()
    assert attaches == [3 * (800 + 100), 3 * 900 + 1, 2048]


def test_datatype_from_a_param_and_bytes(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: 0
            ops:
              - send: {dest: 1, count: 3, datatype: dtype}
              - send: {dest: 1, bytes: 1 KiB}
          - ranks: 1
            ops:
              - recv: {count: 3, datatype: dtype}
              - recv: {bytes: 1 KiB}
        """, params="{dtype: DOUBLE}")
    result = sc.run()
    assert result.trace.messages["bytes"].tolist() == [24, 1024]
    assert sc.with_overrides({"dtype": "INT"}).run().trace.messages["bytes"].tolist() == \
        [12, 1024]


@pytest.mark.parametrize("ops, message", [
    (["send: {dest: 1, count: 10 // rank}"],
     "programs[0].ops[0] (line 8): send.count: division by zero in '10 // rank'"),
    (["send: {dest: 1, count: rank / 2 + 0.5 * (rank + 1)}"],
     "send.count: expected a whole number, got the number 0.5"),
    (["loop: {times: rank - 1, ops: []}"], "loop.times: must not be negative, got -1"),
    (["compute: rank - 1"], "compute.seconds: time must be finite and non-negative"),
    (['isend: {dest: 1, count: 1, request: "r[0]"}', 'wait: "r[rank + 5]"'],
     "programs[0].ops[1] (line 9): wait: no request stored under 'r[5]' yet"),
    (["if: {cond: rank > 0, then: [{recv: {count: 1, status: {source: who}}}]}",
      "send: {dest: who, count: 1}"], "send.dest: name 'who' has no value yet"),
])
def test_run_time_errors_end_the_run_naming_the_op(tmp_path, ops, message):
    body = "programs:\n  - ranks: all\n    ops:\n" + "".join(f"      - {op}\n" for op in ops)
    result = scenario(tmp_path, body).run()
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "ScenarioRuntimeError"
    assert result.error.rank == 0
    assert message in result.error.message


def test_a_loop_that_never_communicates_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "MAX_SPINS", 1000)
    sc = scenario(tmp_path, """\
        programs:
          - ranks: all
            ops: [{loop: {times: 1e12, ops: [{if: {cond: false, then: [{barrier: {}}]}}]}}]
        """)
    result = sc.run()
    assert result.outcome is ms.Outcome.ERROR
    assert "1000 loop iterations and if tests without any MPI call" in result.error.message


def test_running_with_another_size_or_params_selects_again(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: size - 1
            ops: [{compute: t}]
        """, ranks=2, params="{t: 1us}")
    result = sc.run(ranks=4, params={"t": 3e-6})
    assert [r.end_time for r in result.ranks] == pytest.approx([0, 0, 0, 3e-6])


def test_a_pickled_scenario_runs_the_same(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: all
            ops:
              - buffer_attach: {count: 1000, datatype: REAL}
              - bsend: {dest: 1 - rank, count: 1000, datatype: REAL}
              - recv: {source: 1 - rank, count: 1000, datatype: REAL}
        """)
    again = pickle.loads(pickle.dumps(sc))
    assert again.run().to_json() == sc.run().to_json()


def test_run_passes_overrides_to_ms_run(tmp_path):
    sc = scenario(tmp_path, """\
        programs:
          - ranks: all
            ops: [{compute: 1ms}]
        """)
    assert sc.run(until="10us").outcome is ms.Outcome.TIMEOUT
    assert sc.run().outcome is ms.Outcome.COMPLETED


def test_python_scenario_runs_with_its_params(tmp_path):
    path = tmp_path / "p.py"
    path.write_text(textwrap.dedent('''\
        import numpy as np

        SCENARIO = {"ranks": 2, "params": {"count": 4}, "expect": {"outcome": "completed"}}


        def main(mpi, count):
            if mpi.rank == 0:
                yield mpi.send(np.arange(count, dtype=float), dest=1)
                return None
            data = np.empty(count)
            yield mpi.recv(data, source=0)
            return data.sum()
        '''))
    sc = load(path).with_overrides({"count": "5"})
    result = sc.run()
    assert sc.check_expect(result) is None
    assert result.returned == [None, pytest.approx(np.arange(5).sum())]
