"""Profile names that say what they are: ``mpich`` and ``openmpi`` are the short names of
the 4.x profiles. Scenarios naming them keep their results, but every report and table
prints the release they stand for, a replay's ``--profiles`` of another release of the
recorded library says so beside its row, and a report says how its profile was chosen in
the user's own terms (``--profiles``, not ``--set``)."""

from __future__ import annotations

import json

import pytest
from helpers.paths import DATA, SCENARIOS

import mpisim as ms
from mpisim.cli.main import main, parser
from mpisim.profiles.library import ALIASES, PROFILES
from mpisim.profiles.names import canonical, label, release, release_note
from mpisim.scenario import load

RECORDING = DATA / "replay" / "example-3.10-bsend.trace"  # made with MPICH 5.0.2


def test_each_short_name_prints_the_release_it_stands_for():
    assert label("mpich") == "mpich (MPICH 4.0)"
    assert label("openmpi") == "openmpi (Open MPI 4.1)"
    for name in ("standard", "mpich-4.0", "openmpi-4.1", "mpich-5.0", "my.yaml"):
        assert label(name) == name  # the name says it already
    assert release("openmpi-5.0") == "Open MPI 5.0" and release("standard") is None
    for alias, full in ALIASES.items():  # the release is the one its profile describes
        assert canonical(alias) == full
        assert PROFILES[full].description.startswith(release(alias))


def test_a_release_note_only_for_another_release_of_the_same_library():
    assert release_note("mpich", "mpich-5.0", "MPICH 5.0.2") == \
        "mpich is MPICH 4.0; this recording is MPICH 5.0.2: mpich-5.0"
    assert release_note("mpich-4.0", "mpich-5.0", "MPICH 5.0.2").startswith("mpich-4.0 is")
    assert release_note("mpich-5.0", "mpich-5.0", "MPICH 5.0.2") is None
    assert release_note("openmpi", "mpich-5.0", "MPICH 5.0.2") is None  # another library
    assert release_note("standard", "mpich-5.0", "MPICH 5.0.2") is None


@pytest.mark.parametrize("path", ["library-comm-buffer.yaml", "mpich-eager-cells-bsend.yaml"])
def test_a_scenario_naming_the_short_name_keeps_its_results(path):
    """The short name is a stable alias: the same run as under mpich-4.0, reported with
    the name the file gives and the release beside it."""
    short = load(SCENARIOS / path).run()
    full = load(SCENARIOS / path).with_overrides({"mpi.profile": "mpich-4.0"}).run()
    assert short.outcome == full.outcome and short.sim_time == full.sim_time
    assert [r.buffer.peak_used for r in short.ranks] == [r.buffer.peak_used for r in full.ranks]
    assert short.settings["mpi.profile"] == {"value": "mpich", "from": "file",
                                             "release": "MPICH 4.0"}
    assert "release" not in full.settings["mpi.profile"]
    assert "settings in force: profile mpich (MPICH 4.0) (file)," in short.report()


def test_run_profiles_labels_each_row_and_says_profiles_chose_it(capsys):
    code = main(["run", str(SCENARIOS / "example-3.10-bsend.yaml"), "--profiles",
                 "standard,mpich,openmpi"])
    text = capsys.readouterr().out
    assert code == 0
    assert "\n  mpich (MPICH 4.0)   " in text and "\n  openmpi (Open MPI 4.1)  " in text
    assert "-- mpich (MPICH 4.0) --" in text
    assert text.count("settings in force: profile ") == 3
    assert text.count("(--profiles), allocator") == 3 and "(--set)" not in text
    assert "this recording" not in text  # a scenario, not a replay: no release notes


def test_compare_profiles_says_the_python_call_chose_them():
    runs = ms.compare_profiles(SCENARIOS / "example-3.10-bsend.yaml", ["mpich"], jobs=1)
    (_, result), = runs.results
    assert result.settings["mpi.profile"]["from"] == "compare_profiles"
    assert "profile mpich (MPICH 4.0) (compare_profiles)" in result.report()


def test_a_replay_under_another_release_of_its_library_says_so_beside_the_row(capsys):
    code = main(["replay", str(RECORDING), "--profiles", "standard,mpich,mpich-5.0", "-q"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    at = next(i for i, line in enumerate(lines) if line.startswith("  mpich (MPICH 4.0) "))
    assert lines[at + 1] == "    (mpich is MPICH 4.0; this recording is MPICH 5.0.2: mpich-5.0)"
    assert sum("this recording is" in line for line in lines) == 1  # not standard, mpich-5.0
    main(["replay", str(RECORDING), "--profiles", "mpich,mpich-5.0", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert d["notes"] == {"mpich": "mpich is MPICH 4.0; this recording is MPICH 5.0.2: "
                                   "mpich-5.0"}
    assert d["profiles"]["mpich"]["settings"]["mpi.profile"]["from"] == "--profiles"


def test_the_profiles_table_names_each_short_name_with_its_evidence(capsys):
    assert main(["profiles", "mpich"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("mpich (short name of mpich-4.0, MPICH 4.0): MPICH 4.0")
    assert "without evidence" not in out  # the 4.0 profile's own evidence
    main(["profiles"])
    assert "mpich-4.0 (short name mpich): " in capsys.readouterr().out


@pytest.mark.parametrize("command", ["run", "replay", "mpi4py"])
def test_help_says_what_the_short_names_stand_for(command):
    sub = parser()._subparsers._group_actions[0].choices[command]
    assert "MPICH 4.0" in sub.format_help() and "Open MPI 4.1" in sub.format_help()


def test_a_sweep_over_profiles_prints_each_short_name_with_its_release():
    table = ms.sweep(SCENARIOS / "example-3.10-send.yaml",
                     {"mpi.profile": ["standard", "mpich", "openmpi-5.0"]}, jobs=1)
    rows = [line.split("  deadlock")[0].strip() for line in table.text().splitlines()[1:4]]
    assert rows == ["standard", "mpich (MPICH 4.0)", "openmpi-5.0"]
    assert [r["mpi.profile"] for r in table.rows()] == ["standard", "mpich", "openmpi-5.0"]


def test_a_sweep_plot_over_profiles_labels_each_short_name_with_its_release():
    from mpisim.plot.sweepmap import plot_sweep

    table = ms.sweep(SCENARIOS / "example-3.10-send.yaml",
                     {"mpi.profile": ["standard", "openmpi"], "count": [500, 2500]}, jobs=1)
    fig = plot_sweep(table)
    ticks = {t.get_text() for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
    assert {"standard", "openmpi (Open MPI 4.1)"} <= ticks
