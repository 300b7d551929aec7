"""One interface, three kinds of scenario: a scenario file's, an mpi4py script's and a
recording's each offer every member of mpisim.scenario.ScenarioLike, under its own name (no
attribute forwarded to something else), and run alike through the what-if tools."""

from __future__ import annotations

import pytest
from helpers.paths import DATA, SCENARIOS

import mpisim as ms
from mpisim.mpi4py import ScriptScenario, script_scenario
from mpisim.recorded import ReplayScenario, replay_scenario
from mpisim.scenario import Scenario, ScenarioLike, load

MEMBERS = sorted(name for name in vars(ScenarioLike) if not name.startswith("_"))


@pytest.fixture(params=["file", "script", "recording"])
def scenario(request):
    if request.param == "file":
        return load(SCENARIOS / "example-3.10-bsend.yaml")
    if request.param == "script":
        return script_scenario(str(SCENARIOS / "mpi4py" / "exchange.py"), [], 2,
                               output="discard")
    return replay_scenario(DATA / "replay" / "example-3.10-bsend.trace")


def test_the_interface_names_what_the_tools_use():
    assert MEMBERS == ["annotate", "check_expect", "expect", "name", "override_keys",
                       "params", "ranks", "run", "run_kwargs", "with_overrides"]


def test_each_kind_offers_every_member_as_its_own(scenario):
    assert isinstance(scenario, Scenario | ScriptScenario | ReplayScenario)
    own = {name for cls in type(scenario).__mro__ for name in vars(cls)}
    for name in MEMBERS:
        assert name in own or name in vars(scenario), name
    assert not hasattr(type(scenario), "__getattr__")


def test_each_kind_runs_overrides_and_checks_alike(scenario):
    faster = scenario.with_overrides({"network.eager_limit": "64KiB"})
    assert type(faster) is type(scenario) and faster.name == scenario.name
    result = faster.run()
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.settings["network.eager_limit"]["from"] == "--set"
    assert faster.check_expect(result) is None
    assert "network.eager_limit" in faster.override_keys()
    assert ms.check_safe(scenario).safe is False  # Example 3.10 needs buffering
