"""Settings in force: every report, the JSON and --out show the effective profile,
allocator, sizing, MPI_BSEND_OVERHEAD, eager limit and eager cells, and where each came
from (the profile, the scenario file, --set); --set mpi.profile=X models that library (its
allocator and sizing) unless the allocator is also set; run --profiles compares them."""

from __future__ import annotations

import json

from helpers.paths import SCENARIOS

import mpisim as ms
from mpisim.cli.main import main
from mpisim.profiles.library import get_profile
from mpisim.scenario import load

HOL = SCENARIOS / "circular-head-of-line.yaml"


def test_a_run_says_which_settings_were_in_force_and_where_from():
    result = load(SCENARIOS / "example-3.10-bsend.yaml").run()
    s = result.settings
    assert s["mpi.profile"] == {"value": "standard", "from": "file"}
    assert s["mpi.allocator"] == {"value": "circular", "from": "file"}
    assert s["mpi.sizing"] == {"value": "standard", "from": "profile"}
    assert s["mpi.bsend_overhead"] == {"value": 96, "from": "profile"}
    assert s["network.eager_limit"] == {"value": 4096, "from": "file"}
    assert s["network.eager_cells"] == {"value": None, "from": "profile"}
    assert json.loads(result.to_json())["settings"] == s
    assert "settings in force: profile standard (file), allocator circular (file)" in \
        result.report()


def test_the_python_api_tells_given_from_profile():
    def quiet(mpi):
        yield mpi.compute(1e-6)

    s = ms.run(quiet, ranks=1, mpi={"profile": "openmpi", "allocator": "circular"}).settings
    assert s["mpi.profile"] == {"value": "openmpi", "from": "given", "release": "Open MPI 4.1"}
    assert s["mpi.allocator"] == {"value": "circular", "from": "given"}
    assert s["mpi.sizing"] == {"value": "openmpi", "from": "profile"}
    assert ms.run(quiet, ranks=1).settings["mpi.profile"]["from"] == "default"


def test_set_profile_brings_its_allocator_unless_the_allocator_is_set_too():
    """The file says allocator: circular; MPICH's allocator is not the standard's circular
    queue, so --set mpi.profile=mpich models MPICH, which completes every send."""
    mpich = load(HOL).with_overrides({"mpi.profile": "mpich"}).run()
    assert mpich.outcome is ms.Outcome.COMPLETED
    assert mpich.settings["mpi.profile"] == {"value": "mpich", "from": "--set",
                                             "release": "MPICH 4.0"}
    assert mpich.settings["mpi.allocator"]["from"] == "profile"
    assert mpich.settings["mpi.allocator"]["value"] != "circular"
    both = load(HOL).with_overrides({"mpi.profile": "mpich", "mpi.allocator": "circular"}).run()
    assert both.settings["mpi.allocator"] == {"value": "circular", "from": "--set"}
    assert both.outcome is ms.Outcome.ERROR


def test_out_and_the_other_commands_show_them(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(HOL), "--set", "mpi.profile=openmpi", "--out", str(out)]) == 0
    d = json.loads((out / "result.json").read_text())
    assert d["settings"]["mpi.profile"] == {"value": "openmpi", "from": "--set",
                                            "release": "Open MPI 4.1"}
    main(["check", str(HOL), "--buffered"])
    main(["min-buffer", str(HOL)])
    text = capsys.readouterr().out
    assert text.count("settings in force: profile standard (file), allocator circular (file)") \
        == 2


def test_run_profiles_side_by_side(tmp_path, capsys):
    code = main(["run", str(HOL), "--profiles", "standard,mpich,openmpi", "-q"])
    text = capsys.readouterr().out
    rows = {line.split()[0]: line.split(")")[-1].split()[0] if ")" in line else line.split()[1]
            for line in text.splitlines()[2:5]}
    assert rows == {"standard": "error", "mpich": "completed", "openmpi": "completed"}
    assert "  mpich (MPICH 4.0)  " in text and "  openmpi (Open MPI 4.1)  " in text
    assert code == 4
    code = main(["run", str(HOL), "--profiles", "standard,mpich", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert list(d["profiles"]) == ["standard", "mpich"]
    assert d["profiles"]["mpich"]["settings"]["mpi.profile"]["from"] == "--profiles"
    out = tmp_path / "out"
    assert main(["run", str(HOL), "--profiles", "mpich,openmpi", "--out", str(out)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == ["mpich", "openmpi"]
    code = main(["run", str(HOL), "--profiles", "mpich,lam"])
    assert code == 2 and "lam" in capsys.readouterr().err


def test_compare_profiles_from_python():
    def quiet(mpi):
        yield mpi.compute(1e-6)

    found = ms.compare_profiles(quiet, ranks=1)
    assert [name for name, _ in found.results] == ["standard", "mpich", "openmpi"]
    assert [r.settings["mpi.sizing"]["value"] for _, r in found.results] == [
        "standard", "mpich", "openmpi"]
    assert found.exit_code == 0 and "quiet under 3 profiles" in found.table()


def test_profile_table_stays_aligned_with_measured_sizing_rules(capsys):
    """A measured profile's sizing is a long rule: the table shows it as a numbered note
    below, so every row's columns start where the header's do."""
    assert main(["run", str(HOL), "--profiles", "standard,mpich-5.0,openmpi-5.0,mpich",
                 "--quiet"]) != 2
    lines = capsys.readouterr().out.splitlines()
    header, rows, notes = lines[1], lines[2:6], lines[6:]
    starts = [header.index(word) for word in ("outcome", "sim time", "allocator", "sizing",
                                              "eager limit")]
    for row in rows:
        assert all(row[i - 2:i] == "  " and row[i] != " " for i in starts), row
    sizing = header.index("sizing")
    assert [row[sizing:].split()[0] for row in rows] == ["standard", "rule", "rule", "mpich"]
    rules = {p: get_profile(p).sizing for p in ("mpich-5.0", "openmpi-5.0")}
    assert notes == [f"  [1] {rules['mpich-5.0']}", f"  [2] {rules['openmpi-5.0']}"]
