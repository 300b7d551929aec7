"""``mpisim examples``: the examples shipped inside the package are listed one line each,
copied out (never over a file), and found by name by ``run`` and ``mpi4py``."""

from __future__ import annotations

import json
import os
import signal

import pytest
from helpers.paths import ROOT

from mpisim.cli import examples as ex
from mpisim.cli import shipped as found
from mpisim.cli.main import main


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def test_the_examples_are_the_clones_scenarios_mpi4py_scripts_and_c_program():
    """scenarios/ in a clone is the package's examples folder: one set of files (a link; a
    copy of the tree that does not keep links, such as the mutation runner's, holds the same
    files)."""
    scenarios = ROOT / "scenarios"
    if scenarios.is_symlink():
        assert scenarios.resolve() == found.EXAMPLES_DIR
    else:
        assert sorted(p.relative_to(scenarios).as_posix() for p in scenarios.rglob("*")
                      if p.is_file() and "__pycache__" not in p.parts) == \
            sorted(p.relative_to(found.EXAMPLES_DIR).as_posix()
                   for p in found.EXAMPLES_DIR.rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts)
    relatives = {e.relative for e in found.examples()}
    assert {"example-3.10-bsend.yaml", "example-3.10-python.py", "mpi4py/exchange.py",
            "c/example_3_10.c"} <= relatives
    assert relatives == {p.relative_to(found.EXAMPLES_DIR).as_posix()
                         for pattern in ("*.yaml", "*.py", "mpi4py/*.py", "c/*.c")
                         for p in found.EXAMPLES_DIR.glob(pattern)}


def test_every_example_is_listed_on_one_line_with_what_it_shows(capsys):
    code, out, _ = run_cli(capsys, "examples")
    assert code == 0
    for example in found.examples():
        (line,) = [x for x in out.splitlines() if x.split()[:1] == [example.name]]
        assert example.summary and line.rstrip().endswith(example.summary)
    line = next(x for x in out.splitlines() if x.split()[:1] == ["example-3.10-send"])
    assert line.split()[1] == "deadlock"  # how it ends: its expect:
    line = next(x for x in out.splitlines() if x.split()[:1] == ["rsend-before-recv"])
    assert line.split()[1] == "MPI_ERR_OTHER"


def test_a_scenario_runs_by_name_from_any_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(capsys, "run", "example-3.10-bsend", "--json")
    assert code == 0 and json.loads(out)["scenario"] == "example-3.10-bsend"
    code, out, _ = run_cli(capsys, "run", "example-3.10-send.yaml", "-q")
    assert code == 3 and out.startswith("example-3.10-send: deadlock")
    code, out, _ = run_cli(capsys, "validate", "example-3.10-python")
    assert code == 0 and "example-3.10-python" in out


def test_a_file_of_that_name_comes_before_the_shipped_example(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "example-3.10-bsend.yaml").write_text(
        "name: mine\nranks: 1\nprograms:\n  - ranks: all\n    ops: []\n")
    code, out, _ = run_cli(capsys, "run", "example-3.10-bsend.yaml", "-q")
    assert code == 0 and out.startswith("mine: completed")


def test_an_unknown_name_is_still_a_missing_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "run", "example-3.10-nope")
    assert code == 2 and "example-3.10-nope" in err


def test_a_slip_in_an_examples_name_gets_did_you_mean(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "run", "example-3.10-bsnd")
    assert code == 2 and err.count("\n") == 1
    assert "did you mean example-3.10-bsend?" in err
    code, _, err = run_cli(capsys, "mpi4py", "-n", "2", "exchang.py")
    assert code == 2 and "did you mean exchange.py?" in err


def test_an_mpi4py_script_runs_by_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert found.shipped("exchange.py", "mpi4py") == str(found.EXAMPLES_DIR / "mpi4py/exchange.py")
    assert found.shipped("exchange.py", "scenario") == "exchange.py"  # not a scenario
    code, _, err = run_cli(capsys, "mpi4py", "-n", "2", "exchange.py", "ssend", "10")
    assert code == 3 and "exchange" in err


def test_copy_writes_every_example_keeping_their_folders(tmp_path, capsys):
    dest = tmp_path / "new" / "examples"
    code, out, _ = run_cli(capsys, "examples", "copy", dest)
    assert code == 0 and f"copied {len(found.examples())} examples" in out
    for example in found.examples():
        assert (dest / example.relative).read_bytes() == example.path.read_bytes()
    assert sorted(p.name for p in tmp_path.rglob("*") if ".tmp" in p.name) == []


def test_copy_into_a_directory_keeps_its_other_files(tmp_path, capsys):
    (tmp_path / "mine.txt").write_text("mine")
    (tmp_path / "mpi4py").mkdir()
    (tmp_path / "mpi4py" / "other.py").write_text("x = 1\n")
    code, _, _ = run_cli(capsys, "examples", "copy", tmp_path)
    assert code == 0 and (tmp_path / "ring-bsend.yaml").is_file()
    assert (tmp_path / "mine.txt").read_text() == "mine"
    assert (tmp_path / "mpi4py" / "other.py").is_file()
    assert (tmp_path / "mpi4py" / "exchange.py").is_file()


def test_copy_refuses_to_overwrite_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "ring-bsend.yaml").write_text("mine")
    code, out, err = run_cli(capsys, "examples", "copy", tmp_path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "ring-bsend.yaml: exists" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ring-bsend.yaml"]
    assert (tmp_path / "ring-bsend.yaml").read_text() == "mine"
    (tmp_path / "file").write_text("")
    code, _, err = run_cli(capsys, "examples", "copy", tmp_path / "file")
    assert code == 2 and "not a directory" in err


def test_an_interrupted_copy_leaves_nothing(tmp_path, monkeypatch):
    """SIGINT while the files are copied: no destination, no temporary folder."""
    copied = []

    def copy_then_interrupt(src, dst):
        copied.append(dst)
        if len(copied) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return dst
    monkeypatch.setattr(ex.shutil, "copyfile", copy_then_interrupt)
    # SIGINT as a terminal gives it (a shell's background job, such as a CI script run
    # with &, starts with it ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            ex.copy_examples(tmp_path / "out")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert list(tmp_path.iterdir()) == []


def test_path_names_an_installed_example(capsys):
    code, out, _ = run_cli(capsys, "examples", "path", "c/example_3_10.c")
    assert code == 0 and out.strip() == str(found.EXAMPLES_DIR / "c" / "example_3_10.c")
    code, _, err = run_cli(capsys, "examples", "path", "nope")
    assert code == 2 and "no shipped example" in err
