"""Python scenarios: main(mpi, **params) plus a SCENARIO dict, validated like YAML."""

import pickle
import textwrap

import pytest

from mpisim.scenario import ScenarioError, load, pyscenario

GOOD = '''\
SCENARIO = {
    "name": "py",
    "ranks": 2,
    "params": {"count": 10},
    "network": {"latency": "2us"},
    "expect": {"outcome": "completed"},
}


def main(mpi, count=1):
    yield mpi.barrier()
    return count * (mpi.rank + 1)
'''


def write(tmp_path, text, name="scen.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def problems(path):
    with pytest.raises(ScenarioError) as e:
        load(path)
    return [p.replace(str(path), "F") for p in e.value.problems]


def test_a_python_scenario_loads_like_yaml(tmp_path):
    sc = load(write(tmp_path, GOOD))
    assert (sc.name, sc.ranks, sc.params, sc.network) == ("py", 2, {"count": 10},
                                                          {"latency": 2e-6})
    assert sc.expect == {"outcome": "completed"}
    assert sc.program.__name__ == "scen"


def test_header_problems_name_the_line_of_the_key(tmp_path):
    path = write(tmp_path, GOOD.replace('"ranks": 2', '"ranks": "two"')
                 .replace('"2us"', '"fast"'))
    assert problems(path) == ["F:3: ranks: expected a whole number, got the text 'two'",
                              "F:5: network.latency: cannot read 'fast' as a time (e.g. '1us')"]


def test_programs_key_is_refused(tmp_path):
    path = write(tmp_path, GOOD.replace('"ranks": 2,', '"ranks": 2, "programs": [],'))
    assert problems(path) == ["F:3: SCENARIO.programs: not used in a Python scenario: "
                              "main(mpi, **params) is the program"]


def test_missing_scenario_and_main(tmp_path):
    assert problems(write(tmp_path, "def main(mpi):\n    yield mpi.barrier()\n"))[0].startswith(
        "F: SCENARIO: missing")
    assert problems(write(tmp_path, 'SCENARIO = {"ranks": 1}\n')) == [
        "F: main: no function main(mpi, **params)"]
    assert problems(write(tmp_path, 'SCENARIO = [1]\ndef main(mpi):\n    pass\n')) == [
        "F:1: SCENARIO: expected a dict, got a list"]


def test_main_must_accept_the_params(tmp_path):
    path = write(tmp_path, GOOD.replace("def main(mpi, count=1):", "def main(mpi):"))
    (message,) = problems(path)
    assert message.startswith("F:10: main: main(mpi, **params) cannot take the params ['count']")


def test_import_errors_name_the_line(tmp_path):
    assert problems(write(tmp_path, "x = 1\ndef main(:\n")) == ["F:2: syntax error: invalid "
                                                                "syntax"]
    (message,) = problems(write(tmp_path, "x = 1\nraise RuntimeError('boom')\n"))
    assert message == "F:2: importing it raised RuntimeError: boom"
    (message,) = problems(write(tmp_path, "import sys\nsys.exit(3)\n"))
    assert message == "F:2: importing it raised SystemExit: 3"


def test_overrides_apply_to_python_scenarios(tmp_path):
    sc = load(write(tmp_path, GOOD)).with_overrides({"count": "7", "network.latency": "1us"})
    assert sc.params == {"count": 7} and sc.network == {"latency": 1e-6}
    with pytest.raises(ScenarioError, match="override nope: unknown key"):
        sc.with_overrides({"nope": 1})


def test_the_program_pickles_by_path_and_imports_again(tmp_path):
    sc = load(write(tmp_path, GOOD))
    blob = pickle.dumps(sc)
    pyscenario._MODULES.clear()  # as in a fresh worker process
    again = pickle.loads(blob)
    main = again.program.main()
    assert main.__name__ == "main" and main.__module__.startswith("mpisim_scenario_scen")
