"""Scenario.with_overrides (the CLI's --set/--vary), run_kwargs and pickling."""

import pickle
import textwrap

import pytest

from mpisim.scenario import ScenarioError, load

TEXT = textwrap.dedent("""\
    name: over
    ranks: 2
    params: {count: 10, mode: fast}
    network: {latency: 1us}
    buffer: 1 KiB
    programs:
      - ranks: all
        ops:
          - send: {dest: 1 - rank, count: 100 // count}
      - ranks: 1
        ops:
          - barrier: {}
    """)


@pytest.fixture
def scenario(tmp_path):
    path = tmp_path / "over.yaml"
    path.write_text(TEXT)
    return load(path)


def test_string_values_are_read_as_yaml_scalars_then_validated(scenario):
    sc = scenario.with_overrides({"count": "4096", "network.eager_limit": "64KiB",
                                  "mpi.allocator": "first-fit", "buffer": "16 KiB",
                                  "ranks": "8", "network.intra.latency": "100ns",
                                  "seed": "3", "until": "1ms"})
    assert sc.params == {"count": 4096, "mode": "fast"}
    assert sc.network == {"latency": 1e-6, "eager_limit": 65536,
                          "intra": {"latency": pytest.approx(1e-7)}}
    assert sc.mpi == {"allocator": "first-fit"}
    assert (sc.buffer, sc.ranks, sc.seed, sc.until) == (16384, 8, 3, 0.001)


def test_overrides_return_a_new_scenario(scenario):
    sc = scenario.with_overrides({"count": 20})
    assert sc is not scenario and sc.params["count"] == 20
    assert scenario.params["count"] == 10


def test_typed_values_and_the_params_prefix(scenario):
    sc = scenario.with_overrides({"params.count": 5, "buffer": 2048, "mode": "slow"})
    assert sc.params == {"count": 5, "mode": "slow"} and sc.buffer == 2048


def test_empty_string_is_null(scenario):
    assert scenario.with_overrides({"buffer": ""}).buffer is None


def test_unknown_key_lists_the_valid_ones(scenario):
    with pytest.raises(ScenarioError) as e:
        scenario.with_overrides({"zzz": "3"})
    message = str(e.value)
    assert message.startswith(f"{scenario.path}: override zzz: unknown key (valid: count, ")
    assert "network.eager_limit" in message and "mpi.allocator" in message


@pytest.mark.parametrize(("key", "close"), [("cnt", "count"),
                                            ("network.eager_limt", "network.eager_limit"),
                                            ("mpi.alocator", "mpi.allocator")])
def test_a_misspelt_key_gets_did_you_mean_as_in_a_file(scenario, key, close):
    """--set and --vary get the hint a scenario file's key gets, not the list of 40 keys."""
    with pytest.raises(ScenarioError) as e:
        scenario.with_overrides({key: "3"})
    assert str(e.value) == \
        f"{scenario.path}: override {key}: unknown key (did you mean {close!r}?)"


@pytest.mark.parametrize(("key", "value", "close"), [("mpi.profile", "mpic", "mpich"),
                                                     ("mpi.profile", "openmpi5.0", "openmpi-5.0"),
                                                     ("mpi.allocator", "first_fit", "first-fit")])
def test_a_misspelt_choice_gets_did_you_mean(scenario, key, value, close):
    with pytest.raises(ScenarioError) as e:
        scenario.with_overrides({key: value})
    message = str(e.value)
    assert f"override {key}: {value!r} is not one of " in message
    assert message.endswith(f"(did you mean {close!r}?)")


def test_bad_value_names_the_key(scenario):
    with pytest.raises(ScenarioError) as e:
        scenario.with_overrides({"network.latency": "fast"})
    assert str(e.value) == \
        f"{scenario.path}: override network.latency: cannot read 'fast' as a time (e.g. '1us')"


def test_yaml11_word_in_an_override_is_refused(scenario):
    with pytest.raises(ScenarioError, match=r"override mpi\.force_ssend: 'on' is a boolean"):
        scenario.with_overrides({"mpi.force_ssend": "on"})


def test_override_is_validated_with_the_whole_file(scenario):
    """A new param can break an expression; a new size can break a selector."""
    with pytest.raises(ScenarioError) as e:
        scenario.with_overrides({"count": "0"})
    assert str(e.value) == (f"{scenario.path}:9: programs[0].ops[0].send.count: division by "
                            "zero in '100 // count'")
    with pytest.raises(ScenarioError, match=r":10: programs\[1\].ranks: rank 1 is not in 0..0"):
        scenario.with_overrides({"ranks": 1})


def test_several_bad_overrides_are_all_reported(scenario):
    with pytest.raises(ScenarioError) as e:
        scenario.with_overrides({"x": 1, "y": 2})
    assert len(e.value.problems) == 2 and str(e.value).endswith("(and 1 more)")


def test_run_kwargs_are_what_ms_run_takes(scenario):
    kw = scenario.run_kwargs()
    assert set(kw) == {"program", "ranks", "network", "mpi", "params", "buffer", "name",
                       "seed", "until", "max_events"}
    assert (kw["ranks"], kw["name"], kw["buffer"], kw["params"]) == (2, "over", 1024,
                                                                      {"count": 10,
                                                                       "mode": "fast"})
    assert callable(kw["program"])


def test_scenarios_pickle_and_keep_working(scenario):
    again = pickle.loads(pickle.dumps(scenario))
    assert (again.name, again.params, again.network) == (scenario.name, scenario.params,
                                                         scenario.network)
    assert again.with_overrides({"count": "2"}).params["count"] == 2


def test_scenario_error_pickles_with_its_problems():
    e = pickle.loads(pickle.dumps(ScenarioError(["f:1: a: x", "f:2: b: y"])))
    assert e.problems == ["f:1: a: x", "f:2: b: y"] and str(e) == "f:1: a: x (and 1 more)"
