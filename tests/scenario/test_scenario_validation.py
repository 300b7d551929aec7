"""Scenario validation: every problem is reported once, as "file:line: key: problem"."""

import textwrap

import pytest

from mpisim.scenario import ScenarioError, load

HEADER = "name: t\nranks: 2\nparams: {count: 10}\n"


def problems_of(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    with pytest.raises(ScenarioError) as e:
        load(path)
    assert "\n" not in str(e.value)
    return e.value.problems, str(path)


def program(*ops, ranks="all"):
    body = "".join(f"      - {op}\n" for op in ops)
    return HEADER + f"programs:\n  - ranks: {ranks}\n    ops:\n{body}"


def only(tmp_path, text):
    problems, path = problems_of(tmp_path, text)
    assert len(problems) == 1, problems
    return problems[0].replace(path, "F")


# -- top-level keys, types, units -----------------------------------------------------------
def test_unknown_top_level_key_suggests_the_close_one(tmp_path):
    text = program("barrier: {}").replace("name: t", "nmae: t")
    assert only(tmp_path, text) == "F:1: nmae: unknown key (did you mean 'name'?)"


@pytest.mark.parametrize("value, problem", [
    ("two", "expected a whole number, got the text 'two'"),
    ("0", "must be at least 1, got 0"),
    ("2.5", "expected a whole number, got the number 2.5"),
    ("true", "expected a whole number, got the boolean true"),
    ("010", "'010' has a leading zero: YAML 1.1 reads it as octal"),
    ("[2]", "expected a whole number, got a list"),
    ("100000", "must be at most 65536"),
])
def test_ranks_must_be_a_positive_whole_number(tmp_path, value, problem):
    text = program("barrier: {}").replace("ranks: 2", f"ranks: {value}")
    assert only(tmp_path, text).startswith(f"F:2: ranks: {problem}")


def test_exponent_number_is_read_where_a_number_is_expected(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(program("barrier: {}").replace("ranks: 2", "ranks: 1e1"))
    assert load(path).ranks == 10


@pytest.mark.parametrize("setting, problem", [
    ("network: {latency: fast}", "network.latency: cannot read 'fast' as a time"),
    ("network: {bandwidth: 10 parsecs}", "network.bandwidth: unknown bandwidth unit"),
    ("network: {eager_limit: 1.5 B}", "network.eager_limit: size must be a whole number"),
    ("network: {contention: full}", "network.contention: 'full' is not one of nic, none"),
    ("network: {intra: {latency: 1us, speed: 3}}", "network.intra.speed: unknown key"),
    ("network: {ranks_per_node: 0}", "network.ranks_per_node: must be at least 1"),
    ("network: {latancy: 1us}", "network.latancy: unknown key (did you mean 'latency'?)"),
    ("mpi: {allocator: best-fit}", "mpi.allocator: 'best-fit' is not one of circular"),
    ("mpi: {profile: lam}", "mpi.profile: 'lam' is not one of standard, mpich-4.0, openmpi-4.1, "
                            "mpich-5.0, openmpi-5.0, mpich, openmpi or a profile file .yaml"),
    ("mpi: {force_ssend: yes}", "mpi.force_ssend: 'yes' is a boolean in YAML 1.1"),
    ("mpi: {force_ssend: 1}", "mpi.force_ssend: expected true or false"),
    ("mpi: [1]", "mpi: expected a mapping, got a list"),
    ("buffer: 10 parsecs", "buffer: unknown size unit 'parsecs'"),
    ("buffer: -5", "buffer: size must be non-negative"),
    ("until: soon", "until: cannot read 'soon' as a time"),
    ("seed: -1", "seed: must be at least 0"),
    ("max_events: 0", "max_events: must be at least 1"),
    ("description: on", "description: 'on' is a boolean in YAML 1.1 but a string in YAML 1.2"),
])
def test_settings_are_checked_with_units(tmp_path, setting, problem):
    text = program("barrier: {}") + setting + "\n"
    message = only(tmp_path, text)
    assert message.startswith("F:")
    assert problem in message
    line = text.splitlines().index(setting) + 1
    assert message.startswith(f"F:{line}: ")


def test_name_must_be_text(tmp_path):
    text = program("barrier: {}").replace("name: t", "name: 12")
    assert only(tmp_path, text) == "F:1: name: expected text, got the number 12"


def test_settings_accept_units_and_nulls(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(program("barrier: {}") + textwrap.dedent("""\
        network: {latency: 2us, bandwidth: 100 Gb/s, eager_limit: 64 KiB,
                  system_buffer: null, intra: {latency: 100ns}}
        mpi: {allocator: first-fit, force_ssend: true, bsend_overhead: 128}
        buffer: 1 MiB
        until: 1s
        """))
    sc = load(path)
    assert sc.network == {"latency": 2e-6, "bandwidth": 12.5e9, "eager_limit": 65536,
                          "system_buffer": None, "intra": {"latency": pytest.approx(1e-7)}}
    assert sc.mpi == {"allocator": "first-fit", "force_ssend": True, "bsend_overhead": 128}
    assert (sc.buffer, sc.until, sc.seed, sc.max_events) == (2**20, 1.0, 0, None)


def test_missing_ranks_and_programs(tmp_path):
    problems, path = problems_of(tmp_path, "name: t\n")
    assert problems == [f"{path}:1: ranks: missing (how many MPI processes)",
                        f"{path}:1: programs: missing (a list of {{ranks: selector, ops: "
                        "[...]})"]


@pytest.mark.parametrize("text, problem", [
    ("", "F:1: the file is empty"),
    ("- 1\n- 2\n", "F:1: expected a mapping of scenario keys"),
    ("ranks: [1\n", "invalid YAML"),
])
def test_whole_file_problems(tmp_path, text, problem):
    assert only(tmp_path, text).startswith(problem.split("invalid")[0] if "F:" in problem
                                           else "F:")
    assert problem.replace("F:1: ", "") in only(tmp_path, text)


def test_missing_file_and_wrong_extension(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load(tmp_path / "absent.yaml")
    (tmp_path / "x.txt").write_text("ranks: 1")
    with pytest.raises(ScenarioError, match="not a scenario file"):
        load(tmp_path / "x.txt")
    (tmp_path / "bin.yaml").write_bytes(b"ranks: \xff\xfe\n")
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load(tmp_path / "bin.yaml")


# -- params -------------------------------------------------------------------------------
@pytest.mark.parametrize("params, problem", [
    ("{rank: 1}", "params.rank: a param name must be an identifier other than rank"),
    ("{ANY_TAG: 1}", "params.ANY_TAG: a param name must be"),
    ("{buffer: 1}", "params.buffer: a param name must be"),
    ("{n: on}", "params.n: 'on' is a boolean in YAML 1.1"),
    ("{n: [1, 2]}", "params.n: a param is a number, text or true/false, not a list"),
    ("{n: .inf}", "params.n: a param is a number"),
    ("[1]", "params: expected a mapping, got a list"),
])
def test_params_are_checked(tmp_path, params, problem):
    text = program("barrier: {}").replace("params: {count: 10}", f"params: {params}")
    assert only(tmp_path, text).startswith(f"F:3: {problem}")


def test_params_with_units_are_numbers(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(program("compute: pause").replace(
        "{count: 10}", "{count: 64 KiB, pause: 5 ms, rate: 1 GB/s, mode: fast, on_: true}"))
    assert load(path).params == {"count": 65536, "pause": 0.005, "rate": 1e9, "mode": "fast",
                                 "on_": True}


# -- programs, ops, names -------------------------------------------------------------------
def test_unknown_call_suggests_the_close_one(tmp_path):
    assert only(tmp_path, program("bsned: {dest: 1, count: 1}")) == \
        "F:7: programs[0].ops[0]: unknown call 'bsned' (did you mean 'bsend'?)"


def test_undefined_name_names_the_key_path(tmp_path):
    text = program("barrier: {}", "send: {dest: peer, count: count}")
    assert only(tmp_path, text) == \
        "F:8: programs[0].ops[1].send.dest: undefined name 'peer'"


def test_undefined_name_suggests_a_close_one(tmp_path):
    assert only(tmp_path, program("send: {dest: 1 - rank, count: cont}")).endswith(
        "send.count: undefined name 'cont' (did you mean 'count'?)")


@pytest.mark.parametrize("op, problem", [
    ("send: {dst: 1, count: 1}", "send.dst: unknown argument (did you mean 'dest'?)"),
    ("send: {count: 1}", "send: missing dest"),
    ("send: {dest: 1}", "send: missing count (with datatype) or bytes"),
    ("send: {dest: 1, bytes: 1 KiB, count: 4}", "send.count: give count (+ datatype) or bytes"),
    ("send: {dest: 1, count: 2.5}", "send.count: expected a whole number, got the number 2.5"),
    ("send: {dest: 1, count: 4 KiB}", "send.count: expected a whole number, got the text"),
    ("send: {dest: 1, bytes: 4 parsecs}", "send.bytes: unknown size unit"),
    ("send: {dest: rank.x, count: 1}", "send.dest: attribute access not allowed"),
    ("send: {dest: open(1), count: 1}", "send.dest: calling open() is not allowed"),
    ("send: {dest: 1, count: count // 0}", "send.count: division by zero in 'count // 0'"),
    ("send: {dest: 1, count: 1, datatype: REALL}",
     "send.datatype: unknown datatype 'REALL' (did you mean 'REAL'?)"),
    ("send: {dest: 1, count: 1, datatype: count}", "param 'count' holds the number 10"),
    ("isend: {dest: 1, count: 1}", "isend: missing request"),
    ("isend: {dest: 1, count: 1, request: 'r[*]'}", "[*] is only for lists"),
    ("isend: {dest: 1, count: 1, request: 3}", "expected a request name (r, r[i] or r[*])"),
    ("wait: q", "wait.request: undefined request 'q'"),
    ("recv: {source: 1, count: 1, status: {src: s}}", "recv.status.src: unknown status field"),
    ("recv: {source: 1, count: 1, status: {source: rank}}",
     "'rank' is a reserved name; choose another variable name"),
    ("recv: {source: 1, count: 1, status: {source: count}}", "'count' is a param"),
    ("barrier: 3", "barrier: expected a mapping of arguments (comm), got the number 3"),
    ("buffer_attach: {}", "expected a size (e.g. 16 KiB) or {count, datatype, messages}"),
    ("buffer_attach: {size: 1, count: 1}", "give size, or count + datatype"),
    ("compute: soon", "compute.seconds: undefined name 'soon'"),
    ("compute: 5 parsecs", "compute.seconds: unknown time unit"),
    ("loop: {times: 2}", "loop: missing ops"),
    ("loop: {times: 2, var: rank, ops: []}", "loop.var: 'rank' is a reserved name"),
    ("if: {cond: x, then: []}", "if.cond: undefined name 'x'"),
    ("if: {cond: 'rank ==', then: []}", "if.cond: cannot read 'rank ==' as an expression"),
    ("{send: {dest: 1, count: 1}, recv: {count: 1}}", "an op is a mapping with one key"),
    ("42", "an op is a mapping with one key naming the call"),
])
def test_op_problems_name_the_key_path(tmp_path, op, problem):
    problems, path = problems_of(tmp_path, program(op))
    assert all(p.startswith(f"{path}:7: programs[0].ops[0]") for p in problems), problems
    assert any(problem in p for p in problems), problems


def test_loop_variable_is_visible_only_in_its_body(tmp_path):
    text = program("loop: {times: 2, var: i, ops: [{send: {dest: 1, count: i}}]}",
                   "send: {dest: 1, count: i}")
    assert only(tmp_path, text) == "F:8: programs[0].ops[1].send.count: undefined name 'i'"


def test_status_variable_must_be_set_before_use(tmp_path):
    good = program("recv: {count: 1, status: {source: who}}", "send: {dest: who, count: 1}")
    path = tmp_path / "good.yaml"
    path.write_text(good)
    assert load(path).program is not None
    bad = program("send: {dest: who, count: 1}", "recv: {count: 1, status: {source: who}}")
    assert only(tmp_path, bad).endswith("send.dest: undefined name 'who'")


def test_nested_ops_have_nested_paths(tmp_path):
    text = program("loop:\n          times: 2\n          ops:\n            - barrier: {}\n"
                   "            - if: {cond: true, then: [{bsend: {dest: 1}}]}")
    assert only(tmp_path, text) == \
        "F:11: programs[0].ops[0].loop.ops[1].if.then[0].bsend: missing count (with " \
        "datatype) or bytes"


@pytest.mark.parametrize("selector, problem", [
    ("5", "rank 5 is not in 0..1 (ranks: 2)"),
    ("'3..1'", "is not in 0..1"),
    ("'1..0'", "the range '1..0' is empty (1 > 0)"),
    ("evens", "undefined name 'evens'"),
    ("[0, x]", "undefined name 'x'"),
    ("[0, true]", "a list of ranks holds rank numbers, not the boolean true"),
    ("'rank.x'", "attribute access not allowed"),
    ("'1..rank'", "undefined name 'rank' (rank is only allowed in a condition)"),
    ("'size // 0'", "division by zero"),
    ("on", "'on' is a boolean in YAML 1.1"),
])
def test_bad_rank_selectors(tmp_path, selector, problem):
    message = only(tmp_path, program("barrier: {}", ranks=selector))
    assert message.startswith("F:5: programs[0].ranks: ")
    assert problem in message


@pytest.mark.parametrize("entry, problem", [
    ("  - ranks: all\n    opps: []\n", "programs[0].opps: unknown key (valid: ranks, ops)"),
    ("  - 3\n", "programs[0]: expected a mapping {ranks, ops}, got the number 3"),
    ("  - ranks: all\n", "programs[0]: missing ops"),
])
def test_bad_programs_entries(tmp_path, entry, problem):
    problems, _path = problems_of(tmp_path, HEADER + "programs:\n" + entry)
    assert any(problem in p for p in problems), problems


def test_programs_must_be_a_list(tmp_path):
    assert only(tmp_path, HEADER + "programs: {ranks: all}\n") == \
        "F:4: programs: expected a list of {ranks, ops}, got a mapping"


@pytest.mark.parametrize("expect, problem", [
    ("{outcome: finished}", "expect.outcome: 'finished' is not one of completed, deadlock"),
    ("{error_class: MPI_ERR_BUFFER}", "expect: missing outcome"),
    ("{outcome: completed, error_class: MPI_ERR_BUFFER}", "go with outcome: error"),
    ("{outcome: error, blocked: [0]}", "blocked goes with outcome: deadlock"),
    ("{outcome: deadlock, blocked: 0}", "expect.blocked: expected a list of ranks"),
    ("{outcome: completed, when: 3}", "expect.when: unknown key"),
    ("{outcome: completed, min_end_time: {0: later}}", "cannot read 'later' as a time"),
])
def test_bad_expect(tmp_path, expect, problem):
    assert problem in only(tmp_path, program("barrier: {}") + f"expect: {expect}\n")


# -- several problems ----------------------------------------------------------------------
def test_all_problems_are_collected_in_file_order_each_once(tmp_path):
    text = textwrap.dedent("""\
        name: t
        ranks: 2
        ranks: 3
        network: {latency: fast}
        programs:
          - ranks: 7
            ops:
              - send: {dest: peer, count: 1}
              - send: {dest: peer, count: 1}
              - bsned: {}
        """)
    problems, path = problems_of(tmp_path, text)
    assert [p.replace(path, "F") for p in problems] == [
        "F:3: ranks: duplicate key (first given at line 1)".replace("line 1", "line 2"),
        "F:4: network.latency: cannot read 'fast' as a time (e.g. '1us')",
        "F:6: programs[0].ranks: rank 7 is not in 0..1 (ranks: 2)",
        "F:8: programs[0].ops[0].send.dest: undefined name 'peer'",
        "F:9: programs[0].ops[1].send.dest: undefined name 'peer'",
        "F:10: programs[0].ops[2]: unknown call 'bsned' (did you mean 'bsend'?)",
    ]


def test_str_is_the_first_problem_and_a_count(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(program("bsned: {}", "recv: {count: x}"))
    with pytest.raises(ScenarioError) as e:
        load(path)
    assert str(e.value) == f"{e.value.problems[0]} (and 1 more)"
    assert isinstance(e.value, ValueError)


def test_the_shown_path_is_the_one_given(tmp_path, monkeypatch):
    (tmp_path / "sc").mkdir()
    (tmp_path / "sc" / "x.yaml").write_text(program("send: {dest: peer, count: 1}"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ScenarioError) as e:
        load("sc/x.yaml")
    assert str(e.value) == "sc/x.yaml:7: programs[0].ops[0].send.dest: undefined name 'peer'"


@pytest.mark.parametrize(("op", "key"), [
    ("buffer_attach: {count: -5, datatype: REAL}", "buffer_attach.count"),
    ("buffer_attach: {count: 5, messages: -1}", "buffer_attach.messages"),
    ("bsend: {dest: 0, count: -3}", "bsend.count"),
    ("recv: {source: 0, count: -1}", "recv.count"),
])
def test_literal_negative_counts_are_refused(tmp_path, op, key):
    """A negative count is MPI_ERR_COUNT when the call runs (3.2.2); a literal one is
    refused when the file is loaded, naming file, line and key."""
    problem = only(tmp_path, program(op))
    assert problem.startswith("F:") and f"programs[0].ops[0].{key}" in problem
    assert "must not be negative" in problem


def test_a_negative_count_computed_at_run_time_names_the_op_and_line(tmp_path):
    import mpisim as ms

    path = tmp_path / "s.yaml"
    path.write_text(program("buffer_attach: {count: 0 - 5, datatype: REAL}"))
    result = load(path).run()
    assert result.outcome is ms.Outcome.ERROR
    assert "programs[0].ops[0] (line" in result.error.message
    assert "buffer_attach: MPI_Pack_size: MPI_ERR_COUNT" in result.error.message
    report = result.report()
    assert "None" not in report and "Traceback" not in report
