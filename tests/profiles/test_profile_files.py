"""Profile files (what ``mpisim calibrate`` writes): loaded by path wherever a profile name is
accepted, each value with its evidence, bad files refused on one line naming file, line and
key; and the measured entry rule, which reproduces the named implementation sizings."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from helpers.paths import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import mpisim as ms
from mpisim.buffered.allocators import EntryRule, make_allocator
from mpisim.cli.main import main
from mpisim.profiles.library import PROFILES, MPIConfig, get_profile
from mpisim.profiles.profilefile import dump_profile, load_profile
from mpisim.scenario import load

MPICH_RULE = "rule: start 0, header 88, unit 16 up, last exact, split 96"
OMPI_RULE = "rule: start 8, header 16, unit 8 down, last rounded, split 0"

MINE = """\
mpisim_profile: 1
name: my-mpi
library: "MPICH Version: 9.9"
based_on: mpich
settings:
  eager_limit: 1000
  sizing:
    value: "rule: start 0, header 40, unit 8 up, last rounded, split 0"
    evidence: {probe: entry_bytes, parameters: {sizes: [20480]}, observed: {B1: 20520}}
  latency: 3us
  bandwidth: 1 GB/s
"""


def write(tmp_path: Path, text: str, name: str = "my.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_file_profile_takes_its_settings_and_the_rest_from_its_base(tmp_path) -> None:
    p = get_profile(str(write(tmp_path, MINE)))
    assert (p.name, p.eager_limit, p.latency, p.bandwidth) == ("my-mpi", 1000, 3e-6, 1e9)
    assert p.sizing.startswith("rule: start 0, header 40")
    base = PROFILES["mpich-4.0"]
    assert (p.allocator, p.attach_min, p.eager_cells) == (base.allocator, base.attach_min, 64)
    assert p.collectives_family == "mpich" and p.library == "MPICH Version: 9.9"
    assert dict(p.evidence)["sizing"]["observed"] == {"B1": 20520}


def test_a_file_profile_charges_entries_by_its_rule_and_uses_its_network(tmp_path) -> None:
    """Two pending 20000-byte bsends need 2 * (40 + 20000) B under the file's rule; the
    ping-pong latency and bandwidth are the network's defaults (a scenario may override)."""
    path = str(write(tmp_path, MINE))

    def prog(mpi, attach):
        if mpi.rank == 0:
            yield mpi.buffer_attach(attach)
            for _ in range(2):
                yield mpi.bsend(count=20000, dest=1)
            yield mpi.buffer_detach()
        else:
            yield mpi.compute(1e-3)
            for _ in range(2):
                yield mpi.recv(count=20000, source=0)

    ok = ms.run(prog, ranks=2, mpi=ms.MPIConfig(profile=path), params={"attach": 40080})
    short = ms.run(prog, ranks=2, mpi={"profile": path}, params={"attach": 40079})
    assert ok.outcome is ms.Outcome.COMPLETED and short.error.error_class == "MPI_ERR_BUFFER"
    assert "measured: 40-byte header" in short.error.message
    assert ok.settings["mpi.profile"]["value"] == "my-mpi"

    def ping(mpi):
        if mpi.rank == 0:
            yield mpi.send(count=1000, datatype=ms.BYTE, dest=1)
        else:
            yield mpi.recv(count=1000, datatype=ms.BYTE, source=0)

    assert ms.run(ping, ranks=2, mpi={"profile": path}).sim_time == pytest.approx(3e-6 + 1e-6)


def test_a_scenario_finds_its_profile_file_beside_it_and_set_from_the_cwd(
        tmp_path, monkeypatch, capsys) -> None:
    write(tmp_path, MINE)
    scen = (ROOT / "scenarios" / "example-3.10-bsend.yaml").read_text()
    (tmp_path / "s.yaml").write_text(scen.replace("mpi: {profile: standard, allocator: circular}",
                                                  "mpi: {profile: my.yaml}"))
    monkeypatch.chdir(ROOT)  # not the scenario's directory
    result = load(tmp_path / "s.yaml").run()
    assert result.settings["mpi.profile"] == {"value": "my-mpi", "from": "file"}
    monkeypatch.chdir(tmp_path)
    scenario = load(ROOT / "scenarios" / "example-3.10-bsend.yaml")
    result = scenario.with_overrides({"mpi.profile": "my.yaml"}).run()
    assert result.settings["mpi.profile"] == {"value": "my-mpi", "from": "--set"}
    assert main(["run", str(ROOT / "scenarios" / "example-3.10-bsend.yaml"), "--quiet",
                 "--set", "mpi.profile=my.yaml"]) == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("name: x\nsettings:\n  eager_limit: lots\n",
     "{f}:3: settings.eager_limit: cannot read 'lots'"),
    ("name: x\nsettings:\n  eagr_limit: 3\n", "{f}:3: settings.eagr_limit: unknown setting"),
    ("name: x\nsettings:\n  sizing: {value: 'rule: start 0', evidence: {}}\n",
     "{f}:3: settings.sizing: sizing: 'rule: start 0' is not one of"),
    ("name: x\nsettings:\n  allocator:\n    value: best-fit\n",
     "{f}:4: settings.allocator: 'best-fit' is not one of circular"),
    ("name: x\nsettings:\n  detach_unattached_error: yes-please\n",
     "{f}:3: settings.detach_unattached_error: expected true or false"),
    ("name: x\nbased_on: lam\nsettings: {}\n", "{f}:2: based_on: unknown profile 'lam'"),
    ("name: x\n", "{f}:1: settings: missing"),
    ("name: x\nsetings: {}\n", "{f}:2: setings: unknown key"),
    ("name: x\nsettings: {a: 1, a: 2}\n", "{f}:2: a: given twice"),
    ("name: [x\n", "{f}:1: not valid YAML: a '[' that is not closed"),
    ("mpisim_profile: 7\nsettings: {}\n", "{f}:1: mpisim_profile: format 7 is not supported"),
    ("", "{f}:1: empty file"),
])
def test_a_bad_profile_file_is_one_line_naming_file_line_and_key(tmp_path, text, expected):
    path = write(tmp_path, text, "bad.yaml")
    with pytest.raises(ValueError) as info:
        MPIConfig(profile=str(path)).resolve()
    message = str(info.value)
    assert message.startswith("mpi.profile: " + expected.format(f=path)), message
    assert "\n" not in message


def test_a_bad_profile_file_from_the_command_line_exits_2_on_one_line(tmp_path, capsys):
    path = write(tmp_path, "name: x\nsettings:\n  eager_limit: -4\n", "bad.yaml")
    code = main(["run", str(ROOT / "scenarios" / "example-3.10-bsend.yaml"),
                 "--set", f"mpi.profile={path}"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and f"{path}:3: settings.eager_limit" in err
    missing = main(["run", str(ROOT / "scenarios" / "example-3.10-bsend.yaml"),
                    "--set", "mpi.profile=nowhere.yaml"])
    assert missing == 2 and "cannot read the profile file" in capsys.readouterr().err


def test_a_dumped_profile_loads_back_equal(tmp_path) -> None:
    mine = dataclasses.replace(PROFILES["mpich-4.0"], name="round-trip", sizing=MPICH_RULE,
                               eager_limit=12345, latency=4e-7, bandwidth=2.5e9,
                               library="MPICH Version: 5.0.2")
    text = dump_profile(mine, {"eager_limit": {"probe": "eager_limit", "parameters": {},
                                               "observed": {"largest_eager": 12345}}},
                        based_on="mpich-4.0")
    back = load_profile(write(tmp_path, text, "rt.yaml"), PROFILES)
    assert back == mine
    assert dict(back.evidence)["eager_limit"]["observed"] == {"largest_eager": 12345}


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 4000), st.lists(st.tuples(st.integers(0, 600), st.booleans()),
                                      min_size=1, max_size=10))
def test_the_named_sizings_are_rules(capacity, steps) -> None:
    """MPICH's and Open MPI's sizings written as measured rules place and refuse every
    entry the same, at the same offsets (so a calibration can express either)."""
    for named, rule in (("mpich", MPICH_RULE), ("openmpi", OMPI_RULE)):
        a = make_allocator("first-fit", capacity, overhead=96, sizing=named)
        b = make_allocator("first-fit", capacity, overhead=96, sizing=rule)
        for m, done in steps:
            ea, _ = a.allocate(m)
            eb, _ = b.allocate(m)
            assert (ea is None) == (eb is None)
            if ea is not None:
                assert (ea.offset, ea.size) == (eb.offset, eb.size)
                if done:
                    a.complete(ea)
                    b.complete(eb)


def test_a_rule_string_round_trips_and_bad_ones_are_refused() -> None:
    rule = EntryRule.parse(MPICH_RULE)
    assert (rule.header, rule.unit, rule.round_up, rule.last_exact, rule.split) == (
        88, 16, True, True, 96)
    assert str(rule) == MPICH_RULE
    with pytest.raises(ValueError, match="unit must be a power of two"):
        EntryRule.parse("rule: start 0, header 1, unit 3 up, last exact, split 0")
    with pytest.raises(ValueError, match=r"^sizing: 'cubic' is not one of standard"):
        make_allocator("first-fit", 10, overhead=0, sizing="cubic")
