"""Leak findings summarised in reports: one line per rule and call site with its count and
ranks (issues 37 and 39), ``--findings all`` (run, mpi4py, replay) and
``report(findings="all")`` for every finding, the JSON keeping every one."""

from __future__ import annotations

import json
import textwrap

import pytest
from helpers.paths import DATA

import mpisim as ms
from mpisim.cli.main import main
from mpisim.mpi.findings import Call, Finding
from mpisim.report.findings import finding_lines, rank_ranges

TUTORIAL = textwrap.dedent("""\
    from mpi4py import MPI
    import numpy as np
    comm = MPI.COMM_WORLD
    row = MPI.DOUBLE.Create_contiguous(4)
    row.Commit()
    col = MPI.DOUBLE.Create_vector(4, 1, 4)
    col.Commit()
    a = np.zeros(16)
    if comm.rank == 0:
        for r in range(1, comm.size):
            comm.Send([a, 1, row], dest=r)
    else:
        comm.Recv([a, 1, row], source=0)
    """)
"""An ordinary tutorial script that never frees its two datatypes (MPI 4.1 §5.1.9)."""


@pytest.fixture
def tutorial(tmp_path):
    path = tmp_path / "tut.py"
    path.write_text(TUTORIAL)
    return path


def _findings_block(report: str) -> list[str]:
    lines = report.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("correctness findings"))
    return lines[start:]


def test_a_datatype_never_freed_on_every_rank_is_one_line_per_call_site(tutorial):
    result = ms.run_mpi4py(tutorial, ranks=4)
    assert len(result.findings) == 8  # the result keeps every one
    assert _findings_block(result.report()) == [
        "correctness findings (8 leak):",
        "  leak [leak-datatype, MPI 4.1 §5.1.9]: 4 datatypes made by MPI_Type_commit at "
        "tut.py:5 (<module>) never freed, ranks 0-3",
        "  leak [leak-datatype, MPI 4.1 §5.1.9]: 4 datatypes made by MPI_Type_commit at "
        "tut.py:7 (<module>) never freed, ranks 0-3",
        "  (each leak once per call site, with its count: --findings all lists every "
        "finding)"]
    every = _findings_block(result.report(findings="all"))
    assert len(every) == 1 + 8 * 2
    assert every[1] == ("  leak [leak-datatype, MPI 4.1 §5.1.9]: rank 0's datatype made by "
                        "MPI_Type_commit was never freed")


def test_errors_and_warnings_are_listed_one_by_one_beside_the_summarised_leaks():
    findings = [
        Finding("leak-comm", "rank 0's communicator made by MPI_Comm_dup was never freed",
                [Call(0, "MPI_Comm_dup", "call 3, prog.c:9")]),
        Finding("type-mismatch", "rank 0 sends INT where rank 1 receives FLOAT",
                [Call(0, "MPI_Send", "call 4, prog.c:11"),
                 Call(1, "MPI_Recv", "call 4, prog.c:13")]),
        Finding("leak-comm", "rank 1's communicator made by MPI_Comm_dup was never freed",
                [Call(1, "MPI_Comm_dup", "call 5, prog.c:9")]),  # the same line, call 5 there
        Finding("leak-comm", "rank 3's communicator made by MPI_Comm_dup was never freed",
                [Call(3, "MPI_Comm_dup", "call 3, prog.c:9")]),
    ]
    assert finding_lines(findings) == [
        "correctness findings (1 error, 3 leak):",
        "  leak [leak-comm, MPI 4.1 §7.4.3]: 3 communicators made by MPI_Comm_dup at prog.c:9 "
        "never freed, ranks 0-1, 3",
        "  error [type-mismatch, MPI 4.1 §3.3.1]: rank 0 sends INT where rank 1 receives FLOAT",
        "      rank 0: MPI_Send at call 4, prog.c:11",
        "      rank 1: MPI_Recv at call 4, prog.c:13",
        "  (each leak once per call site, with its count: --findings all lists every "
        "finding)"]
    assert len(finding_lines(findings, "all")) == 1 + 3 * 2 + 3


def test_a_single_leak_is_one_line_without_the_hint():
    one = [Finding("leak-window", "rank 2's window made by MPI_Win_create was never freed",
                   [Call(2, "MPI_Win_create", "w.py:4 (main)")])]
    assert finding_lines(one) == [
        "correctness findings (1 leak):",
        "  leak [leak-window, MPI 4.1 §12.2.5]: 1 window made by MPI_Win_create at w.py:4 "
        "(main) never freed, rank 2"]
    assert finding_lines([]) == []


def test_rank_ranges():
    assert rank_ranges([3, 0, 1, 2, 7, 5, 9, 8]) == "0-3, 5, 7-9"
    assert rank_ranges([4]) == "4"


def test_mpi4py_findings_all_lists_every_finding_and_json_keeps_them(tutorial, capsys):
    assert main(["mpi4py", "-n", "4", str(tutorial)]) == 0
    summary = _findings_block(capsys.readouterr().err)
    assert len(summary) == 4
    assert main(["mpi4py", "-n", "4", "--findings", "all", str(tutorial)]) == 0
    assert len(_findings_block(capsys.readouterr().err)) == 17
    assert main(["mpi4py", "-n", "4", "--json", str(tutorial)]) == 0
    assert len(json.loads(capsys.readouterr().out)["findings"]) == 8


def test_replay_and_run_take_findings_all(tmp_path, capsys):
    trace = DATA / "mbi_c" / "leak_type_bad.trace"
    assert main(["replay", str(trace)]) == 0
    out = capsys.readouterr().out
    assert ("2 datatypes made by MPI_Type_commit at call 2, leak_type_bad+0x11fe never "
            "freed, ranks 0-1") in out
    assert main(["replay", str(trace), "--findings", "all"]) == 0
    out = capsys.readouterr().out
    assert out.count("was never freed") == 2
    scenario = tmp_path / "leak.yaml"
    scenario.write_text(textwrap.dedent("""\
        name: leak
        ranks: 3
        programs:
          - ranks: all
            ops:
              - comm_dup: {as: copy}
        """))
    code = main(["run", str(scenario)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "3 communicators made by MPI_Comm_dup at programs[0].ops[0]" in out
    assert main(["run", str(scenario), "--findings", "all"]) == 0
    assert capsys.readouterr().out.count("was never freed") == 3
