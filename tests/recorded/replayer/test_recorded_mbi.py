"""mpisim as a correctness checker of recorded C programs, scored as the MPI Bugs Initiative
scores tools (issue 32).

tests/data/mbi_c/ holds small C codes written for the project in the MBI's manner, in pairs
per rule (``<name>_ok.c``, ``<name>_bad.c``); the first line labels each: ``/* mbi: correct
*/``, ``/* mbi: error RULE */`` or ``/* mbi: leak RULE */``. Each was recorded under MPICH
5.0.2 with ``mpisim record`` into ``<name>.trace`` beside it (``python
tests/recorded/test_recorded_mbi.py`` records them again). A code is judged from the replay
of its stored recording, without any MPI: *flagged* when the replay has a finding; an
erroneous code counts as found only when the finding names its labelled rule, and a correct
one must have none at all. Recall and precision stay at 1.0 on the set; the real_mpi test
records a few again and judges them the same.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich
from helpers.paths import DATA

import mpisim as ms
from mpisim.cli.main import main
from mpisim.mpi.findings import ERROR, RULES, Finding

MBI_C = DATA / "mbi_c"
CODES = sorted(MBI_C.glob("*.c"))
HANG_AFTER = 20.0
"""Seconds a recorded run may take before ``mpisim record`` stops it (a code whose error
deadlocks under MPICH is judged from the calls it made until then)."""


def label(path: Path) -> tuple[str, str | None]:
    """("correct", None) or (kind, rule) from the code's first line."""
    words = path.read_text().splitlines()[0].strip("/* ").removeprefix("mbi:").split()
    return words[0], (words[1] if len(words) > 1 else None)


def judged(trace: Path) -> list[Finding]:
    """The findings of the replay of one recording."""
    return ms.replay(trace).findings


@pytest.fixture(scope="module")
def findings() -> dict[str, list]:
    return {p.stem: judged(p.with_suffix(".trace")) for p in CODES}


def test_every_code_is_labelled_recorded_and_has_its_twin():
    assert len(CODES) >= 20
    for path in CODES:
        kind, rule = label(path)
        assert kind in ("correct", "error", "leak"), path.name
        assert kind == "correct" or rule in RULES, path.name
        assert kind == "correct" or RULES[rule].kind == kind, path.name
        twin = path.name.replace("_bad", "_ok") if "_bad" in path.name else \
            path.name.replace("_ok", "_bad")
        assert (MBI_C / twin).exists(), f"{path.name} has no twin {twin}"
        trace = path.with_suffix(".trace")
        assert trace.exists(), f"{path.name} was not recorded"
        assert "MPICH Version:      5.0.2" in trace.read_text()
        assert f"#exe ./{path.stem}\n" in trace.read_text(), "an #exe line is not relative"


def score(found: dict[str, list]) -> tuple[float, float, list[str]]:
    """(recall, precision, what went wrong) over the set."""
    tp = fp = fn = 0
    wrong = []
    for path in CODES:
        kind, rule = label(path)
        rules = {f.rule for f in found[path.stem]}
        if kind == "correct":
            fp += bool(rules)
            if rules:
                wrong.append(f"{path.name}: correct, yet {sorted(rules)}")
        elif rule in rules:
            tp += 1
        else:
            fn += 1
            wrong.append(f"{path.name}: {rule} not found (found {sorted(rules)})")
    return tp / (tp + fn), (tp / (tp + fp) if tp + fp else 0.0), wrong


def test_recall_and_precision_are_one_on_the_recorded_set(findings):
    recall, precision, wrong = score(findings)
    assert (recall, precision) == (1.0, 1.0), "\n".join(wrong)


def test_each_erroneous_code_reports_its_own_rule_and_no_other_error(findings):
    """A labelled error is not drowned in others: no error of another rule beside it."""
    for path in CODES:
        kind, rule = label(path)
        if kind != "correct":
            others = {f.rule for f in findings[path.stem] if f.kind == ERROR} - {rule}
            assert not others, f"{path.name}: {sorted(others)} beside {rule}"


def test_the_findings_name_the_calls_where_the_recording_made_them(findings):
    """A finding points at the recorded call: its rank, MPI name and ``call N, SITE``."""
    (mismatch,) = findings["p2p_type_bad"]
    assert mismatch.message.startswith("rank 0 sends INT where rank 1 receives FLOAT")
    assert [(c.rank, c.call) for c in mismatch.calls] == [(0, "MPI_Send"), (1, "MPI_Recv")]
    assert all(c.where.startswith("call 2, ") for c in mismatch.calls)
    (derived,) = findings["derived_type_bad"]
    assert "sends INT (in " in derived.message and "receives FLOAT" in derived.message
    (op,) = findings["coll_op_bad"]
    assert "ops MPI_MAX and MPI_SUM" in op.message
    nulls = findings["op_null_bad"]  # each rank's MPI_Reduce, caught (MPI_ERRORS_RETURN)
    assert sorted(c.rank for f in nulls for c in f.calls) == [0, 1]
    assert all(f.message.startswith("MPI_ERR_OP: MPI_Reduce: MPI_OP_NULL") for f in nulls)
    (comm,) = findings["comm_null_bad"]
    assert comm.message.startswith("MPI_ERR_COMM") and comm.calls[0].call == "MPI_Send"
    leaks = sorted((f.rule, f.message) for f in findings["pcoll_free_bad"])
    assert leaks == [("leak-request", f"rank {r}'s request made by MPI_Allreduce_init was "
                                      "never freed") for r in (0, 1)]


def test_a_null_handle_ends_the_replay_with_the_error_class_mpi_names():
    """The run ends as MPICH's did (in the erroneous call), with the standard's class."""
    result = ms.replay(MBI_C / "type_null_bad.trace")
    assert result.outcome is ms.Outcome.ERROR
    assert (result.error.rank, result.error.call, result.error.error_class) == (
        0, "MPI_Send", "MPI_ERR_TYPE")


def test_replay_strict_exits_8_on_an_erroneous_recording_and_0_on_its_twin(capsys):
    assert main(["replay", str(MBI_C / "req_wait_bad.trace"), "-q", "--strict"]) == 8
    assert "correctness finding" in capsys.readouterr().err
    assert main(["replay", str(MBI_C / "req_wait_ok.trace"), "-q", "--strict"]) == 0


# -- recording the set (a real MPI) -----------------------------------------------------------
def record(source: Path, out: Path, mpicc: str, mpiexec: str, build: Path
           ) -> subprocess.CompletedProcess:
    """Compile ``source`` in ``build`` and record it on 2 processes into ``out`` (in the text
    format, as the stored recordings are), its program's paths made relative
    (``#exe ./name``) so that the recording is the same wherever it was made."""
    work = build / source.stem
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([mpicc, "-g", "-O0", "-o", str(work / source.stem), str(source)],
                   check=True, timeout=120)
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--format", "text",
                          "--out", str(out), "--timeout", str(HANG_AFTER), "--", mpiexec,
                          "-n", "2",
                          f"./{source.stem}"], capture_output=True, text=True,
                         timeout=180, cwd=work)
    if out.exists():
        text = out.read_text()
        text = re.sub(r"^#exe .*/", "#exe ./", text, flags=re.M)
        text = re.sub(r"^#pid \d+", "#pid 0", text, flags=re.M)
        text = re.sub(r"^#host .*", "#host recorder", text, flags=re.M)
        out.write_text(text.replace(f"{work}/", "./"))
    return run


@pytest.mark.real_mpi
@pytest.mark.parametrize("name", ["derived_type_bad", "op_null_bad", "pcoll_free_ok",
                                  "pcoll_free_bad", "cancel_ok", "comm_null_bad"])
def test_a_fresh_recording_under_mpich_is_judged_as_the_stored_one(name, tmp_path, findings):
    mpicc, mpiexec = oracle_mpich()
    trace = tmp_path / f"{name}.trace"
    run = record(MBI_C / f"{name}.c", trace, mpicc, mpiexec, tmp_path)
    assert trace.exists(), run.stderr
    fresh = judged(trace)
    assert sorted((f.rule, f.message) for f in fresh) == \
        sorted((f.rule, f.message) for f in findings[name])


if __name__ == "__main__":  # record the set again: python tests/recorded/test_recorded_mbi.py
    import tempfile

    python = os.environ.get("MPISIM_ORACLE_PYTHON", sys.executable)
    compiler, launcher = (str(Path(python).parent / tool) for tool in ("mpicc", "mpiexec"))
    names = sys.argv[1:] or [p.stem for p in CODES]
    from mpisim.recorded import TraceError, read_trace

    with tempfile.TemporaryDirectory() as tmp:
        for stem in names:
            for _attempt in range(3):  # a crash in MPICH may kill a process before MPI_Init
                done = record(MBI_C / f"{stem}.c", MBI_C / f"{stem}.trace", compiler,
                              launcher, Path(tmp))
                try:
                    read_trace(MBI_C / f"{stem}.trace")
                    break
                except TraceError as e:
                    print(stem, "again:", e)
            print(stem, done.returncode, done.stderr.strip().splitlines()[-1:])
