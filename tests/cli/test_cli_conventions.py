"""The command line keeps the conventions users rely on: every exit code listed in
``mpisim --help``, ``--json`` and ``-q`` honoured by every command that offers them (an error
as a JSON object too), a "did you mean" for a misspelt ``--set`` key or profile name."""

from __future__ import annotations

import json
import re

import pytest
from helpers.paths import ROOT

from mpisim.cli import common
from mpisim.cli.main import main, parser

SCENARIOS = ROOT / "scenarios"
BSEND = str(SCENARIOS / "example-3.10-bsend.yaml")


def test_help_lists_every_exit_code():
    epilog = " ".join(parser().format_help().split())
    listed = {int(n) for n in re.findall(r"\b(\d+) [a-zA-Z(]", epilog)}
    codes = {v for k, v in vars(common).items() if k.startswith("EXIT_")}
    assert codes <= listed, sorted(codes - listed)
    assert "130/143 interrupted" in epilog


@pytest.mark.parametrize(("argv", "hint"), [
    (["run", BSEND, "--set", "network.eager_limt=1KiB"], "did you mean 'network.eager_limit'?"),
    (["run", BSEND, "--set", "mpi.profile=mpic"], "did you mean 'mpich'?"),
    (["check", BSEND, "--set", "mpi.alocator=first-fit"], "did you mean 'mpi.allocator'?"),
    (["sweep", BSEND, "--vary", "network.latncy=1us,2us"], "did you mean 'latency'?"),
])
def test_a_misspelt_set_key_or_profile_gets_did_you_mean(argv, hint, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.rstrip().endswith(f"({hint})")
    assert "(valid:" not in err  # not the list of every key


@pytest.mark.parametrize("argv", [
    ["run", "nowhere.yaml", "--json"],
    ["run", "BAD", "--json"],
    ["validate", "BAD", "--json"],
    ["check", BSEND, "--json", "--set", "network.eager_limt=1KiB"],
    ["sweep", BSEND, "--json"],
    ["min-buffer", BSEND, "--json", "--seeds", "x"],
    ["run", "--json"],  # (argparse's own error: a missing argument)
    ["mpi4py", "--json", "-n", "0", str(SCENARIOS / "mpi4py" / "ring.py")],
])
def test_an_error_under_json_is_a_json_object_too(argv, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: a\nranks: [\n")
    argv = [str(bad) if a == "BAD" else a for a in argv]
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's errors exit
        code = e.code
    assert code == 2
    captured = capsys.readouterr()
    found = json.loads(captured.out)
    assert found["outcome"] == "invalid" and found["exit_code"] == 2
    assert len(found["problems"]) == 1 and found["problems"][0] in captured.err
    assert not found["problems"][0].startswith("mpisim: ")


def test_validate_honours_json_and_quiet(capsys):
    assert main(["validate", BSEND, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "scenario": "example-3.10-bsend", "outcome": "valid", "ranks": 2, "exit_code": 0}
    assert main(["validate", BSEND, "-q"]) == 0
    assert capsys.readouterr().out == "example-3.10-bsend: valid\n"


def test_sweep_quiet_prints_its_outcome_line(capsys):
    assert main(["sweep", BSEND, "--vary", "count=10,20", "--jobs", "1", "-q"]) == 0
    assert capsys.readouterr().out == "example-3.10-bsend: 2 runs: 2 completed\n"


@pytest.mark.parametrize("command", [["run", BSEND], ["check", BSEND],
                                     ["min-buffer", BSEND], ["validate", BSEND],
                                     ["sweep", BSEND, "--vary", "count=10,20", "--jobs", "1"]])
def test_quiet_is_one_line_and_json_one_object(command, capsys):
    """Each command that offers -q and --json: -q one line, --json one JSON object."""
    main([*command, "-q"])
    assert len(capsys.readouterr().out.splitlines()) == 1
    main([*command, "--json"])
    assert isinstance(json.loads(capsys.readouterr().out), dict)


@pytest.mark.parametrize(("name", "written", "changed"), [
    ("example-3.10-send.yaml", "deadlock: rank 0 blocked in MPI_Send(peer 1, tag 0)", "deadlock"),
    ("example-3.10-bsend.yaml", "completed", "deadlock: rank 0 blocked in MPI_Bsend(peer 1"),
    ("rsend-before-recv.yaml", "error: rank 0, MPI_Rsend", "completed"),
])
def test_check_says_each_runs_outcome_once(name, written, changed, capsys):
    """The verdict, then each run on its own line (the one that decides with its reason),
    not the outcomes listed and then said again with the reason."""
    main(["check", str(SCENARIOS / name), "--jobs", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"  as written: {written}")
    assert lines[2].startswith("  with every send synchronous") and f": {changed}" in lines[2]
    assert not any("does not complete" in line for line in lines)
    assert len(set(lines)) == len(lines)


def test_profiles_and_settings_offer_json(capsys):
    assert main(["profiles", "mpich-5.0", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert list(found) == ["mpich-5.0"]
    assert found["mpich-5.0"]["settings"]["allocator"]["value"] == "first-fit"
    assert found["mpich-5.0"]["settings"]["allocator"]["evidence"]
    assert main(["settings", "--json"]) == 0
    settings = {s["key"]: s for s in json.loads(capsys.readouterr().out)}
    assert settings["network.eager_limit"]["kind"] == "size"
    assert settings["mpi.allocator"]["choices"] == ["circular", "first-fit", "unbounded"]


def test_check_lists_findings_once_and_leaks_summarised(capsys):
    """The error that ended the run as written is in the verdict, not again as a finding;
    a leak on every rank is one line (--findings all: each)."""
    main(["mpi4py", "-n", "4", "--check", "--jobs", "1", "ibsend_reattach.py"])
    err = capsys.readouterr().err
    assert err.count("dest -2 is not a rank") == 1 and "correctness findings" not in err
    library = str(SCENARIOS / "library-comm-buffer.yaml")
    main(["check", library, "--jobs", "1"])
    out = capsys.readouterr().out
    assert "correctness findings of the run as written (4 leak):" in out
    assert out.count("never freed") == 1 and "ranks 0-3" in out
    main(["check", library, "--jobs", "1", "--findings", "all"])
    assert capsys.readouterr().out.count("never freed") == 4
