"""``mpisim replay --to-yaml`` of one-sided communication and MPI-IO (mpisim.recorded.toyaml.ops):
the stored recordings onesided.trace, rma-requests.trace and file-view.trace are refused at
their first call the scenario grammar cannot say, by name and site; the same recordings
without those calls export to scenarios that load and run to the replay's outcome."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml
from helpers import paths

import mpisim as ms
from mpisim.recorded import replay_scenario
from mpisim.recorded.toyaml.write import scenario_text

DATA = paths.DATA / "replay"


def _mpisim(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpisim", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def _without(name: str, drop: tuple[str, ...] = (), cut_from: str | None = None) -> str:
    """The stored recording ``name`` without the calls whose line matches a pattern of
    ``drop``, and (``cut_from``) without every call from the first of that name to
    MPI_Finalize, in each rank's log: a recording of the same program without them."""
    out, skipping = [], False
    lines = (DATA / name).read_text().splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line, word = lines[i], lines[i].split(" ", 1)[0]
        if line.startswith("#mpisim-trace"):
            skipping = False
        if word[:1].isupper() and word not in ("T", "C"):  # a call, then its "= " line
            skipping = (skipping or word == cut_from) and word != "Finalize"
            if skipping or any(re.match(p, line) for p in drop):
                i += 2
                continue
        out.append(line)
        i += 1
    return "".join(out)


def _export_and_run(tmp_path, monkeypatch, text: str) -> tuple[str, ms.Result, ms.Result]:
    """The trace ``text``'s scenario text, the scenario's run and the replay's (both in
    ``tmp_path``: a scenario's files are relative to the working directory)."""
    monkeypatch.chdir(tmp_path)
    trace = tmp_path / "run.trace"
    trace.write_text(text)
    sc = replay_scenario(trace)
    written = scenario_text(sc)
    (tmp_path / "run.yaml").write_text(written)
    return written, ms.scenario.load(str(tmp_path / "run.yaml")).run(), sc.run()


@pytest.mark.parametrize(("name", "refusal"), [
    ("onesided.trace", "call 14, onesided+0x1644: MPI_Fetch_and_op has no op in the "
                       "scenario grammar"),
    ("rma-requests.trace", "call 8, rma_requests+0x13da: MPI_Rget_accumulate has no op"),
    ("file-view.trace", "call 7, file_view+0x1462: MPI_File_set_view has a derived etype or "
                        "filetype"),
])
def test_a_call_the_grammar_cannot_say_is_refused_by_name_and_site(tmp_path, name, refusal):
    out = _mpisim("replay", str(DATA / name), "--to-yaml", str(tmp_path / "out.yaml"))
    assert out.returncode == 2
    assert refusal in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "out.yaml").exists()


def test_file_seek_is_refused_the_pointer_has_no_op(tmp_path):
    (tmp_path / "fv.trace").write_text(_without("file-view.trace", (r"File_set_view .*fT=1 ",)))
    out = _mpisim("replay", str(tmp_path / "fv.trace"), "--to-yaml", "-")
    assert out.returncode == 2
    assert "call 12, file_view+0x14ca: MPI_File_seek moves the individual file pointer" \
        in out.stderr


def test_onesided_windows_are_named_and_run_to_the_replays_outcome(tmp_path, monkeypatch):
    """onesided.c's fence and lock epochs (Fetch_and_op, Get_accumulate, PSCW and sessions
    left out): windows ``as: w1``/``w2``, named by ``win:``; assertions as mpisim's bits;
    MPI_Win_flush_all in a lock_all epoch a loop of flushes to every rank."""
    text, written, replayed = _export_and_run(tmp_path, monkeypatch, _without(
        "onesided.trace", (r"Fetch_and_op ", r"Get_accumulate "), cut_from="Comm_group"))
    ops = yaml.safe_load(text)["programs"][0]["ops"]
    calls = [next(iter(op)) for op in ops if "compute" not in op]
    assert calls == ["win_create", "win_fence", "put", "win_fence", "get", "accumulate",
                     "win_fence", "win_free", "win_allocate", "win_lock", "put", "win_flush",
                     "win_unlock", "win_lock_all", "loop", "win_unlock_all", "barrier",
                     "win_free"]
    assert {"size": 128, "disp_unit": 8, "as": "w1"} in [op.get("win_create") for op in ops]
    assert {"win": "w1", "assertion": ms.MODE_NOPRECEDE} in [op.get("win_fence") for op in ops]
    assert {"target": 0, "target_disp": 4, "count": 4, "datatype": "DOUBLE", "win": "w1",
            "op": "SUM"} in [op.get("accumulate") for op in ops]
    flushes = next(op["loop"] for op in ops if "loop" in op)
    assert flushes["times"] == 4 and flushes["ops"] == [{"win_flush": {"target": "i",
                                                                        "win": "w2"}}]
    assert written.outcome is replayed.outcome is ms.Outcome.COMPLETED
    assert written.messages == replayed.messages


def test_request_based_rma_is_its_plain_form_and_its_waits_are_nothing(tmp_path, monkeypatch):
    text, written, replayed = _export_and_run(tmp_path, monkeypatch, _without(
        "rma-requests.trace", (r"Rget_accumulate ", r"Wait .* r=4$")))
    ops = yaml.safe_load(text)["programs"][0]["ops"]
    calls = [next(iter(op)) for op in ops if "compute" not in op]
    assert calls == ["win_allocate", "win_lock_all", "put", "get", "accumulate", "loop",
                     "win_unlock_all", "win_free"]
    assert next(op["accumulate"] for op in ops if "accumulate" in op)["op"] == "SUM"
    assert "MPI_Rput, its wait written as nothing" in text
    assert written.outcome is replayed.outcome is ms.Outcome.COMPLETED


def test_file_view_files_are_named_and_the_cli_runs_to_the_replays_outcome(tmp_path):
    """file_view.c without its derived view and its MPI_File_seek, its file given an
    absolute name: ``as: f1``/``f2``, named by ``fh:``; the name made relative (the run never
    writes where the recorded program did); the failed first delete and the local queries
    as nothing; the split collective as file_read_all. ``mpisim run`` of the file completes
    as ``mpisim replay`` of the recording, and the program's own delete removes its file."""
    text = _without("file-view.trace", (r"File_set_view .*fT=1 ", r"File_seek "))
    (tmp_path / "fv.trace").write_text(text.replace("name=view.dat", "name=/scratch/view.dat"))
    out = _mpisim("replay", "fv.trace", "--to-yaml", "fv.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = yaml.safe_load((tmp_path / "fv.yaml").read_text())
    ops = [op for op in doc["programs"][0]["ops"] if "compute" not in op]
    assert ops[0] == {"barrier": {}}  # the delete that failed in the recording: nothing
    assert ops[1] == {"file_open": {"filename": "scratch_view.dat", "amode": ["RDWR", "CREATE"],
                                    "as": "f1"}}
    assert {"file_read_at_all": {"fh": "f1", "offset": 0, "count": 8, "datatype": "INT"}} in ops
    assert {"file_iread_at": {"fh": "f1", "offset": 6, "count": 4, "datatype": "INT",
                              "request": "r1"}} in ops
    assert {"file_read_all": {"fh": "f1", "count": 16, "datatype": "INT"}} in ops
    assert {"file_open": {"filename": "scratch_view.dat", "amode": ["RDONLY"], "as": "f2"}} in ops
    assert ops[-1] == {"file_delete": {"filename": "scratch_view.dat"}}
    ran = _mpisim("run", "fv.yaml", cwd=tmp_path)
    replayed = _mpisim("replay", "fv.trace", cwd=tmp_path)
    assert ran.returncode == replayed.returncode == 0, ran.stderr + replayed.stderr
    outcome = re.compile(r": (\w+) at t = .*?\((\d+) ranks, (\d+) messages sent")
    assert outcome.search(ran.stdout).groups() == outcome.search(replayed.stdout).groups() \
        == ("COMPLETED", "2", "6")
    assert not (tmp_path / "scratch_view.dat").exists()
