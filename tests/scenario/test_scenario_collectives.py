"""Collectives in scenario files (MPI 4.1 §6): the v and w forms' counts per rank (a list,
or an expression of ``peer``) and the nonblocking forms, which store a request. Sizes are
read from the trace: each message of the algorithm carries what the op said."""

from __future__ import annotations

import textwrap

import pytest

import mpisim as ms
from mpisim.scenario import ScenarioError, load

NET = "network: {latency: 1us, bandwidth: 1 GB/s}\n"


def scenario(tmp_path, ops, ranks=4, extra=""):
    path = tmp_path / "s.yaml"
    body = textwrap.indent(textwrap.dedent(ops), " " * 6)
    path.write_text(f"name: s\nranks: {ranks}\n{NET}{extra}programs:\n  - ranks: all\n"
                    f"    ops:\n{body}")
    return load(path)


def sizes(result):
    """(src, dst) -> bytes of the messages of a run of one collective."""
    return {(int(m["src"]), int(m["dst"])): int(m["bytes"]) for m in result.trace.messages}


def triples(result):
    """Every message of the run as (src, dst, bytes)."""
    return [(int(m["src"]), int(m["dst"]), int(m["bytes"])) for m in result.trace.messages]


def test_6_6_scatterv_sends_each_rank_its_count_from_a_list(tmp_path):
    """6.6 MPI_Scatterv (linear): the root sends rank k sendcounts[k] elements."""
    result = scenario(tmp_path, """\
        - scatterv: {sendcounts: [1, 2, 3, 4], datatype: DOUBLE, root: 2}
        """).run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert sizes(result) == {(2, k): 8 * (k + 1) for k in (0, 1, 3)}


def test_6_8_alltoallv_counts_are_an_expression_of_peer(tmp_path):
    """6.8 MPI_Alltoallv: rank r sends sendcounts[k] to rank k; ``peer`` is k."""
    result = scenario(tmp_path, """\
        - alltoallv: {sendcounts: "rank * 10 + peer + 1", datatype: INT, algorithm: linear}
        """).run()
    assert sizes(result) == {(r, k): 4 * (10 * r + k + 1) for r in range(4) for k in range(4)
                             if r != k}


def test_6_8_alltoallw_takes_a_datatype_per_rank(tmp_path):
    """6.8 MPI_Alltoallw: block k is sendcounts[k] elements of sendtypes[k]."""
    result = scenario(tmp_path, """\
        - alltoallw: {sendcounts: 3, sendtypes: [BYTE, INT, DOUBLE], algorithm: linear}
        """, ranks=3).run()
    width = {0: 1, 1: 4, 2: 8}
    assert sizes(result) == {(r, k): 3 * width[k] for r in range(3) for k in range(3)
                             if r != k}


def test_6_5_gatherv_takes_each_ranks_own_count(tmp_path):
    """6.5 MPI_Gatherv (linear): rank r sends its own count to the root."""
    result = scenario(tmp_path, """\
        - gatherv: {count: rank + 1, datatype: INT, root: 0}
        """).run()
    assert sizes(result) == {(r, 0): 4 * (r + 1) for r in (1, 2, 3)}


def test_6_10_2_reduce_scatter_recvcounts_size_the_blocks(tmp_path):
    """6.10.2 MPI_Reduce_scatter: the reduce to rank 0 carries every block (the sum of the
    counts), the scatter from it each rank's block (and the blocks of its subtree)."""
    result = scenario(tmp_path, """\
        - reduce_scatter: {recvcounts: [1, 2, 3, 4], datatype: INT}
        """).run()
    got = sizes(result)
    assert got[(1, 0)] == got[(3, 2)] == got[(2, 0)] == 4 * 10  # binomial reduce: all blocks
    assert got[(0, 1)] == 4 * 2 and got[(0, 2)] == 4 * (3 + 4) and got[(2, 3)] == 4 * 4


def test_6_12_nonblocking_collectives_store_their_request(tmp_path):
    """6.12: ibcast, ialltoallv... return a request; the op stores it, waitall completes
    them (in any order with other requests)."""
    result = scenario(tmp_path, """\
        - ibarrier: {request: b}
        - ibcast: {count: 100, datatype: INT, root: 1, request: "r[0]"}
        - iscatterv: {sendcounts: peer, datatype: INT, request: "r[1]"}
        - ireduce_scatter: {recvcounts: [2, 2, 2, 2], request: "r[2]"}
        - isend: {dest: (rank + 1) % size, bytes: 8, request: "r[3]"}
        - irecv: {source: (rank - 1) % size, bytes: 8, request: "r[4]"}
        - waitall: "r[*]"
        - wait: b
        """).run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert (1, 3, 400) in triples(result)  # the binomial bcast from rank 1 reaches rank 3
    assert (0, 3, 4 * 3) in triples(result)  # the scatterv root sends rank 3 its 3 INTs


def test_a_nonblocking_collective_never_waited_for_is_reported(tmp_path):
    """The request of an ibarrier nobody waits for leaves no rank blocked; an ibarrier that
    one rank never calls blocks the others' wait, naming it."""
    result = scenario(tmp_path, """\
        - if:
            cond: rank != 3
            then:
              - ibarrier: {request: b}
              - wait: b
        """).run()
    assert result.outcome is ms.Outcome.DEADLOCK
    *waiting, finalizing = result.deadlock.blocked  # rank 3 in MPI_Finalize (11.2.2)
    assert (finalizing.rank, finalizing.call, finalizing.waits_for) == (
        3, "MPI_Finalize", [0, 1, 2])
    for b in waiting:
        assert b.rank != 3 and b.waits_for == [3]
        assert "MPI_Ibarrier for the members that have not called it: rank 3" in b.reason


@pytest.mark.parametrize("op, problem", [
    ("alltoallv: {datatype: INT}", "missing sendcounts"),
    ("alltoallv: {count: 1, sendcounts: 1}", "unknown argument"),
    ("ibcast: {count: 1}", "missing request"),
    ("alltoallv: {sendcounts: [1, -2, 1, 1]}", "must not be negative, got -2"),
    ("gatherv: {sendcounts: [1, 2]}", "unknown argument"),
    ("bcast: {count: peer}", "undefined name 'peer'"),
    ("alltoallw: {sendcounts: 1, sendtypes: [INT, FLOT]}", "unknown datatype 'FLOT'"),
    ("ibarrier: {count: 1, request: r}", "unknown argument"),
])
def test_bad_collective_ops_are_refused_when_loaded(tmp_path, op, problem):
    with pytest.raises(ScenarioError, match=problem):
        scenario(tmp_path, f"- {op}\n")


def test_a_counts_list_of_the_wrong_length_is_a_runtime_error_naming_the_op(tmp_path):
    """The communicator's size is known when the op runs (a run may change ``ranks``)."""
    result = scenario(tmp_path, "- reduce_scatter: {recvcounts: [1, 2, 3, 4]}\n").run(ranks=3)
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "ScenarioRuntimeError"
    assert ("programs[0].ops[0] (line 7): reduce_scatter.recvcounts: 4 counts for a "
            "communicator of 3 ranks") in result.error.message
