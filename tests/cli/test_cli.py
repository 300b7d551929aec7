"""The mpisim command line: commands, exit codes, JSON, files, and errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from helpers.paths import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from mpisim.cli.main import main
from mpisim.scenario import load as load_scenario

SCENARIOS = ROOT / "scenarios"

EXCHANGE = textwrap.dedent("""\
    name: exchange
    ranks: 2
    params: {count: 1000}
    network: {latency: 1us, bandwidth: 10 GB/s, eager_limit: 2 KiB}
    programs:
      - ranks: all
        ops:
          - send: {dest: 1 - rank, count: count, datatype: REAL, tag: 0}
          - recv: {source: 1 - rank, count: count, datatype: REAL, tag: 0}
    """)


@pytest.fixture
def exchange(tmp_path):
    path = tmp_path / "exchange.yaml"
    path.write_text(EXCHANGE)
    return path


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def test_run_exit_codes_follow_the_outcome(exchange, capsys):
    """Exit codes: 3 deadlock; 0 completed (docs/contract.md, exit codes)."""
    code, out, _ = run_cli(capsys, "run", exchange)
    assert code == 3 and "DEADLOCK" in out and "cycle: 0 -> 1 -> 0" in out
    code, out, _ = run_cli(capsys, "run", exchange, "--set", "network.eager_limit=64KiB")
    assert code == 0 and "COMPLETED" in out


def test_run_json_is_the_result_json(exchange, capsys):
    code, out, _ = run_cli(capsys, "run", exchange, "--json", "--set", "count=10")
    d = json.loads(out)
    assert code == 0 and d["outcome"] == "completed" and d["params"] == {"count": 10}
    assert d["scenario"] == "exchange" and d["messages"]["bytes"] == 80


def test_overflow_exits_4_and_explains(capsys):
    code, out, _ = run_cli(capsys, "run", SCENARIOS / "example-3.10-bsend-too-small.yaml")
    assert code == 4 and "MPI_ERR_BUFFER" in out


def test_run_out_writes_whole_files(exchange, tmp_path, capsys):
    out_dir = tmp_path / "o"
    code, _out, _ = run_cli(capsys, "run", exchange, "--out", out_dir, "--plot", "--trace",
                           "chrome")
    assert code == 3
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == ["buffer.csv", "messages.csv", "occupancy.png", "result.json",
                     "timeline.png", "trace.json"]
    assert json.loads((out_dir / "result.json").read_text())["outcome"] == "deadlock"


def test_validate_accepts_and_refuses(exchange, tmp_path, capsys):
    code, out, _ = run_cli(capsys, "validate", exchange)
    assert code == 0 and "ok" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text(EXCHANGE.replace("ranks: 2", "ranks: [2"))
    code, _, err = run_cli(capsys, "validate", bad)
    assert code == 2 and "bad.yaml" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, needle", [
    (["--set", "network.latency=fast"], "latency"),
    (["--set", "nosuchkey=1"], "nosuchkey"),
    (["--set", "count"], "KEY=VALUE"),
])
def test_bad_overrides_exit_2_with_one_line(exchange, capsys, args, needle):
    code, _, err = run_cli(capsys, "run", exchange, *args)
    assert code == 2 and needle in err and "Traceback" not in err


def test_every_problem_is_reported_once_on_its_own_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(EXCHANGE.replace("1 - rank, count", "peer, count").replace(
        "bandwidth: 10 GB/s", "bandwith: 10 GB/s"))
    code, _, err = run_cli(capsys, "validate", bad)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 3
    assert "bad.yaml:4: network.bandwith" in lines[0] and "undefined name 'peer'" in lines[1]


def test_missing_file_exits_2(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", tmp_path / "nope.yaml")
    assert code == 2 and "nope.yaml" in err


def test_check_reports_safety(exchange, capsys):
    """3.5: Example 3.10 is not safe: with synchronous sends it deadlocks."""
    code, out, _ = run_cli(capsys, "check", exchange, "--json", "--set", "count=10")
    d = json.loads(out)
    assert code == 3 and d["safe"] is False
    assert d["as_written"]["outcome"] == "completed" and d["synchronous"]["outcome"] == "deadlock"


def test_min_buffer_json_shape(capsys, tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text(textwrap.dedent("""\
        name: two-bsends
        ranks: 2
        buffer: 1 KiB
        network: {eager_limit: 0}
        programs:
          - ranks: 0
            ops:
              - bsend: {dest: 1, count: 100}
              - bsend: {dest: 1, count: 200}
          - ranks: 1
            ops:
              - compute: 5us
              - recv: {source: 0, count: 100}
              - recv: {source: 0, count: 200}
        """))
    code, out, _ = run_cli(capsys, "min-buffer", path, "--json")
    d = json.loads(out)
    assert code == 0 and d["min_buffer"] == 100 + 96 + 200 + 96
    assert d["peak_live"][0] == 492 and d["non_monotonic"] == []


def test_min_buffer_searches_the_scenarios_own_attach(capsys):
    """3.6.1: Example 3.10 with bsend needs one entry of 8000 + 96 B per rank."""
    code, out, _ = run_cli(capsys, "min-buffer", SCENARIOS / "example-3.10-bsend.yaml")
    assert code == 0 and "(8096 B)" in out
    assert "buffer_attach at programs[0].ops[0] (line 17)" in out
    assert "at 8096 B: completed" in out and "at 8095 B: error" in out
    code, out, _ = run_cli(capsys, "min-buffer", SCENARIOS / "ring-bsend.yaml", "--json")
    d = json.loads(out)
    assert code == 0 and d["min_buffer"] == 32864 and d["below"]["size"] == 32863
    assert d["at_answer"]["outcome"] == "completed" and d["runs"] >= 3


def test_min_buffer_of_a_deadlocking_program_is_no_number(capsys):
    code, out, _ = run_cli(capsys, "min-buffer", SCENARIOS / "example-3.10-send.yaml")
    assert code == 3 and "deadlocks whatever the buffer" in out and "min buffer" not in out
    code, out, _ = run_cli(capsys, "min-buffer", SCENARIOS / "rsend-before-recv.yaml", "-q")
    assert code == 4 and "whatever the buffer" in out


def test_min_buffer_per_rank_and_seeds(capsys):
    code, out, _ = run_cli(capsys, "min-buffer", SCENARIOS / "master-worker-bsend-bursts.yaml",
                           "--per-rank", "--json")
    d = json.loads(out)
    assert code == 0 and [r["rank"] for r in d["per_rank"]] == [1, 2, 3, 4]
    assert d["not_buffering"] == [0]
    code, out, _ = run_cli(capsys, "min-buffer", SCENARIOS / "example-3.10-bsend.yaml",
                           "--seeds", "0..3", "--json")
    assert code == 0 and json.loads(out)["seeds"] == [0, 1, 2, 3]
    code, _, err = run_cli(capsys, "min-buffer", SCENARIOS / "example-3.10-bsend.yaml",
                           "--seeds", "0..x")
    assert code == 2 and "--seeds" in err and "Traceback" not in err


def test_sweep_with_four_keys_writes_its_files(exchange, tmp_path, capsys):
    """More keys than a map shows: the plot folds the others (worst case), no traceback."""
    out = tmp_path / "sweep4"
    code, text, _ = run_cli(capsys, "sweep", exchange, "--vary", "count=100,1000",
                            "--vary", "network.eager_limit=1KiB,8KiB",
                            "--vary", "network.latency=1us,2us", "--vary", "seed=0,1",
                            "--out", out)
    assert code == 0 and "wrote" in text
    assert sorted(p.name for p in out.iterdir()) == ["sweep.csv", "sweep.png"]
    assert len((out / "sweep.csv").read_text().splitlines()) == 1 + 16


def test_sweep_prints_a_table_and_writes_csv(exchange, tmp_path, capsys):
    code, out, _ = run_cli(capsys, "sweep", exchange, "--vary", "count=100,1000",
                           "--vary", "network.eager_limit=1KiB,8KiB", "--jobs", "1",
                           "--out", tmp_path / "s")
    assert code == 0
    rows = (tmp_path / "s" / "sweep.csv").read_text().strip().splitlines()
    assert len(rows) == 5 and "deadlock" in out and "completed" in out


def test_python_m_mpisim_and_version():
    out = subprocess.run([sys.executable, "-m", "mpisim", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.startswith("mpisim ")


MUTATIONS = st.sampled_from([
    ("ranks: 2", "ranks: [2"), ("ranks: 2", "ranks: -1"), ("ranks: 2", "ranks: on"),
    ("count: 1000", "count: 1e3"), ("count: 1000", "count: 010"), ("count: 1000", "count: x"),
    ("1us", "1 parsec"), ("10 GB/s", "0 GB/s"), ("2 KiB", "-2 KiB"),
    ("send:", "sned:"), ("dest: 1 - rank", "dest: 1 - rnak"), ("dest: 1 - rank", "dest: 7"),
    ("tag: 0", "tag: -3"), ("datatype: REAL", "datatype: QUAD"),
    ("ranks: all", "ranks: 0..5"), ("ranks: all", "ranks: even"), ("ops:", "opz:"),
    ("    ops:", "    ops: 3\n    x:"), ("1 - rank", "__import__('os')"),
    ("1 - rank", "(1 - rank) // 0"), ("count: count", "count: count * 1000000"),
    ("name: exchange", "name: exchange\nname: again"), ("params:", "params: 3\nfoo:"),
])


@settings(max_examples=40, deadline=None)
@given(st.lists(MUTATIONS, min_size=1, max_size=3), st.integers(0, 2**31))
def test_fuzzed_scenarios_always_exit_with_a_documented_code(tmp_path_factory, muts, cut):
    """Mutated scenarios: always one of the documented exit codes, never a traceback."""
    text = EXCHANGE
    for old, new in muts:
        text = text.replace(old, new, 1)
    if cut % 5 == 0:
        text = text[: cut % max(len(text), 1)]
    path = tmp_path_factory.mktemp("fuzz") / "s.yaml"
    path.write_text(text)
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["run", str(path), "--quiet"])
    assert code in (0, 2, 3, 4, 5)
    assert "Traceback" not in err.getvalue()
    if code == 2:  # one line per problem, each naming what is wrong
        assert all(line.startswith("mpisim: ") for line in err.getvalue().strip().splitlines())


def test_scenarios_know_buffer_flush_and_buffer_automatic(tmp_path, capsys):
    """MPI 4.1 (facts): MPI_Buffer_flush and MPI_BUFFER_AUTOMATIC from a scenario file."""
    path = tmp_path / "flush.yaml"
    path.write_text(textwrap.dedent("""\
        name: flush
        ranks: 2
        network: {eager_limit: 0}
        programs:
          - ranks: 0
            ops:
              - buffer_attach: BUFFER_AUTOMATIC
              - bsend: {dest: 1, bytes: 1 KiB}
              - buffer_flush: {}
              - buffer_detach: {}
          - ranks: 1
            ops:
              - compute: 10us
              - recv: {source: 0, bytes: 1 KiB}
        """))
    code, out, _ = run_cli(capsys, "run", path, "--json")
    d = json.loads(out)
    assert code == 0 and d["ranks"][0]["buffer"]["peak_live"] == 1024 + 96
    assert d["ranks"][0]["end_time"] > 10e-6  # the flush waited for the late receive


RING_64 = textwrap.dedent("""\
    name: ring-64-rank-40-short
    ranks: 64
    network: {eager_limit: 0}
    programs:
      - ranks: rank != 40
        ops:
          - buffer_attach: {count: 1000, datatype: BYTE}
      - ranks: 40
        ops:
          - buffer_attach: 500
      - ranks: all
        ops:
          - compute: 1us
          - bsend: {dest: (rank + 1) % size, count: 1000}
          - recv: {source: (rank - 1 + size) % size, count: 1000}
          - buffer_detach: {}
    """)


def test_the_failing_rank_comes_first_in_the_report_and_the_plots(tmp_path, capsys):
    """Rank 40 of 64 overflows: the report's buffer table and the occupancy plot show it
    first, and --plot writes layout.png of its overflow."""
    from mpisim.plot import plot_occupancy

    path = tmp_path / "ring64.yaml"
    path.write_text(RING_64)
    out = tmp_path / "out"
    code, text, _ = run_cli(capsys, "run", path, "--out", out, "--plot")
    assert code == 4
    table = text.split("attached buffers", 1)[1].splitlines()
    assert table[2].split()[:2] == ["*", "40"] and table[3].split()[0] == "0"
    assert sorted(p.name for p in out.iterdir()) == [
        "buffer.csv", "layout.png", "messages.csv", "occupancy.png", "result.json",
        "timeline.png"]
    result = load_scenario(path).run()
    assert result.failing_ranks() == [40]
    fig = plot_occupancy(result)
    assert fig.findobj(lambda a: a.get_gid() == "used:40")


def test_plot_ranks_and_window_options(tmp_path, capsys):
    path = tmp_path / "ring64.yaml"
    path.write_text(RING_64)
    out = tmp_path / "out"
    code, _, _ = run_cli(capsys, "run", path, "--out", out, "--plot", "--ranks", "39,40",
                         "--window", "0..3us")
    assert code == 4 and (out / "timeline.png").exists()
    for bad in (["--ranks", "64"], ["--ranks", "a..b"], ["--window", "3us..1us"],
                ["--window", "soon"]):
        code, _, err = run_cli(capsys, "run", path, "--plot", "--out", out, *bad)
        assert code == 2 and bad[0] in err


def test_strict_exits_6_when_the_run_disagrees_with_expect(tmp_path, capsys):
    """For CI: with expect: the exit code says agree (0) or disagree (6), whatever the
    outcome; without --strict it follows the outcome."""
    code, _, _ = run_cli(capsys, "run", SCENARIOS / "example-3.10-send.yaml", "--strict")
    assert code == 0  # meant to deadlock, and does
    code, _, _ = run_cli(capsys, "run", SCENARIOS / "example-3.10-send.yaml")
    assert code == 3
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text((SCENARIOS / "example-3.10-bsend.yaml").read_text()
                     .replace("expect: {outcome: completed}", "expect: {outcome: deadlock}"))
    code, out, err = run_cli(capsys, "run", wrong, "--strict")
    assert code == 6 and "DISAGREES" in out
    assert "disagrees with expect: expected outcome deadlock, got completed" in err
    code, _, _ = run_cli(capsys, "run", wrong)
    assert code == 0


def test_check_buffered_keeps_bsends_buffered(capsys):
    """3.5's literal check turns bsend into ssend, so every Bsend exchange is NOT SAFE;
    --buffered asks whether it relies on buffering beyond its attached buffer."""
    path = SCENARIOS / "example-3.10-bsend.yaml"
    code, out, _ = run_cli(capsys, "check", path)
    assert code == 3 and "NOT SAFE" in out and "check --buffered" in out
    code, out, _ = run_cli(capsys, "check", path, "--buffered", "--json")
    d = json.loads(out)
    assert code == 0 and d["safe"] is True and d["buffered"] is True
    code, out, _ = run_cli(capsys, "check", SCENARIOS / "example-3.10-send.yaml", "--buffered")
    assert code == 3 and "NOT SAFE" in out
