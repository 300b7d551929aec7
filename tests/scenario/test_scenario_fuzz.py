"""Fuzzing the loader: a mutated scenario file loads as a Scenario or raises ScenarioError,
never another exception, never a hang."""

import pickle
import time

from helpers.paths import SCENARIOS
from hypothesis import given, settings
from hypothesis import strategies as st

from mpisim.scenario import Scenario, ScenarioError, load

TEXTS = [p.read_text() for p in sorted(SCENARIOS.glob("*.yaml"))]

TOKENS = [":", ": ", "- ", "[", "]", "{", "}", ",", "\n", "  ", "\t", "'", '"', "#", "?",
          "on", "no", "010", "1e3", "1:30", ".inf", "~", "null", "true", "&a", "*a", "!!set",
          "!!python/object:os.system", "<<: ", "rank", "size", "count", "//0", "** 99",
          "9" * 30, "1..", "..", "KiB", "us", "-1", "ANY_SOURCE", "r[*]", "r[i]", "x.y",
          "__import__('os')", "loop", "if", "ops", "ranks", "programs", "bsend", "waitall",
          "buffer_attach", "expect", "outcome", "\u00b5s", "\x00", "\ufeff", "%", "|", ">"]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "replace", "delete_line", "dup_line",
                                     "indent"]))
        lines = text.splitlines(keepends=True) or [""]
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "delete_line":
            del lines[i]
        elif kind == "dup_line":
            lines.insert(i, lines[i])
        elif kind == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "    ", "\t"])) + lines[i].lstrip(" ")
        else:
            line = lines[i]
            a = draw(st.integers(0, len(line)))
            b = a if kind == "insert" else draw(st.integers(a, len(line)))
            token = draw(st.sampled_from(TOKENS) | st.text(max_size=6))
            lines[i] = line[:a] + token + line[b:]
        text = "".join(lines)
    return text


@settings(max_examples=150, deadline=None)
@given(text=mutated())
def test_mutated_files_load_or_raise_scenario_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "m.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    start = time.perf_counter()
    try:
        sc = load(path)
    except ScenarioError as e:
        assert e.problems and all(p.startswith(str(path)) for p in e.problems)
        assert "\n" not in str(e)
    else:
        assert isinstance(sc, Scenario)
        assert pickle.loads(pickle.dumps(sc)).name == sc.name
    assert time.perf_counter() - start < 5.0


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(["count", "ranks", "buffer", "seed", "until", "network.latency",
                            "network.eager_limit", "mpi.allocator", "mpi.force_ssend",
                            "max_events", "steps", "nope"]),
       value=st.sampled_from(["0", "-1", "1e3", "on", "010", "", "64KiB", "x", "[1", "{a: 1}",
                              "2 ** 99", "1..3", "true", "1.5", "99999999999999999999"]))
def test_any_override_gives_a_scenario_or_scenario_error(key, value):
    sc = load(SCENARIOS / "ring-bsend.yaml")
    try:
        assert isinstance(sc.with_overrides({key: value}), Scenario)
    except ScenarioError as e:
        assert e.problems
