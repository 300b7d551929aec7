"""Fuzzing scenario files and ``--set``: any value (any type, any length of digits, any
magnitude) at any key loads and runs, or is refused with the file, the line and the key;
never a traceback, never a hang."""

from __future__ import annotations

import re
import subprocess
import sys
import time

from fuzz.render import yaml_text
from fuzz.strategies import FUZZ, TEXTS, VALUES
from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms
from mpisim.scenario import Scenario, ScenarioError, load

TEMPLATE = """\
ranks: {ranks}
params: {{count: {count}}}
buffer: {buffer}
seed: {seed}
max_events: {max_events}
network: {{latency: {latency}, bandwidth: {bandwidth}, eager_limit: {eager_limit}}}
mpi: {{allocator: {allocator}, bsend_overhead: {bsend_overhead}}}
programs:
  - ranks: all
    ops:
      - bsend: {{dest: {dest}, count: {send_count}, datatype: INT, tag: {tag}}}
      - recv: {{source: {source}, count: count, datatype: INT, tag: 0}}
      - compute: {compute}
      - loop: {{times: {times}, ops: [{{barrier: {{}}}}]}}
"""
DEFAULTS = dict(ranks="2", count="4", buffer="1 KiB", seed="0", max_events="100000",
                latency="1us", bandwidth="10 GB/s", eager_limit="4 KiB", allocator="circular",
                bsend_overhead="96", dest="1 - rank", send_count="count", tag="0",
                source="1 - rank", compute="1us", times="3")
LINES = {key: 1 + next(i for i, line in enumerate(TEMPLATE.splitlines())
                       if "{" + key + "}" in line) for key in DEFAULTS}
PROBLEM = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<key>[\w.\[\]]+)[:. ]")
WHERE = {key: {line} for key, line in LINES.items()}
WHERE["count"] |= {LINES["send_count"], LINES["send_count"] + 1}
"""Where a value is refused: at its own line, or for a parameter (any value is a valid
parameter) at the lines of the ops that use it, which give it its type."""


@FUZZ
@given(key=st.sampled_from(sorted(DEFAULTS)), value=VALUES)
def test_any_value_at_any_key_runs_or_is_refused_with_file_line_and_key(
        tmp_path_factory, key, value):
    path = tmp_path_factory.mktemp("fuzz") / "s.yaml"
    path.write_text(TEMPLATE.format(**{**DEFAULTS, key: yaml_text(value)}), encoding="utf-8")
    start = time.perf_counter()
    try:
        scenario = load(path)
    except ScenarioError as e:
        for problem in e.problems:
            found = PROBLEM.match(problem)
            assert found and found["path"] == str(path), problem
            assert len(problem) < 400 and "\n" not in problem
        assert any(int(PROBLEM.match(p)["line"]) in WHERE[key] for p in e.problems), e.problems
    else:
        assert isinstance(scenario, Scenario)
        result = scenario.run(max_events=100_000)
        assert result.outcome in set(ms.Outcome)
        result.to_json()
    assert time.perf_counter() - start < 20


SET_KEYS = ["count", "ranks", "buffer", "seed", "until", "max_events", "network.latency",
            "network.bandwidth", "network.eager_limit", "network.intra.latency",
            "mpi.allocator", "mpi.bsend_overhead", "mpi.profile", "mpi.alignment"]


@FUZZ
@given(key=st.sampled_from(SET_KEYS), text=TEXTS)
def test_any_set_value_gives_a_scenario_or_a_one_line_error_naming_the_key(
        tmp_path_factory, key, text):
    path = tmp_path_factory.mktemp("fuzz") / "s.yaml"
    path.write_text(TEMPLATE.format(**DEFAULTS), encoding="utf-8")
    scenario = load(path)
    try:
        changed = scenario.with_overrides({key: text})
    except ScenarioError as e:
        assert e.problems and all(p.startswith(str(path)) and "\n" not in p
                                  and len(p) < 400 + len(text) for p in e.problems)
        assert any(key in p for p in e.problems), e.problems
    else:
        assert isinstance(changed, Scenario)


def test_the_command_line_refuses_bad_values_in_one_line(tmp_path):
    """Through the CLI: exit 2, one line per problem, no traceback."""
    path = tmp_path / "s.yaml"
    path.write_text(TEMPLATE.format(**{**DEFAULTS, "dest": "9" * 5000}), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "mpisim", "run", str(path)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith(f"mpisim: {path}:{LINES['dest']}: ")
