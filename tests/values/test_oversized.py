"""Numbers of any length, any magnitude, any type: refused with the file, line and key (or the
setting's key from Python), never a bare ValueError from Python's limit on converting long
digit strings (4300 digits), never an OverflowError, never a MemoryError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mpisim as ms
from mpisim.scenario import ScenarioError, load
from mpisim.values.readers import Invalid, SettingError, describe, read_int, read_size, read_time
from mpisim.values.units import MAX_DIGITS, UnitError, int_words, parse_quantity, parse_time

HUGE = "7" * 5000

SCENARIO = """\
ranks: 2
programs:
  - ranks: all
    ops:
      - send: {{dest: {dest}, count: 1, datatype: INT, tag: 0}}
      - recv: {{source: 1 - rank, count: 1, datatype: INT, tag: 0}}
      - compute: {compute}
"""


def _load(tmp_path: Path, dest: str = "1 - rank", compute: str = "1us") -> None:
    path = tmp_path / "big.yaml"
    path.write_text(SCENARIO.format(dest=dest, compute=compute))
    load(path)


@pytest.mark.parametrize(("dest", "compute", "line", "key"), [
    (HUGE, "1us", 5, "send.dest"),
    (f"'{HUGE}'", "1us", 5, "send.dest"),
    ("1 - rank", HUGE, 7, "compute"),
    ("1 - rank", f"{HUGE} us", 7, "compute"),
    ("1 - rank", f"{HUGE}.5", 7, "compute"),
], ids=range(5))
def test_a_number_of_5000_digits_is_refused_with_file_line_and_key(tmp_path, dest, compute,
                                                                    line, key):
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, dest, compute)
    first = info.value.problems[0]
    assert first.startswith(f"{tmp_path / 'big.yaml'}:{line}: ") and key in first
    assert "out of range" in first or "finite" in first
    assert len(first) < 300  # the digits are not echoed back


@pytest.mark.parametrize("value", [10**5000, -(10**5000), 10**401, HUGE, f"-{HUGE}",
                                   f"{HUGE} KiB", f"1e{HUGE}"], ids=range(7))
def test_readers_refuse_any_length_of_digits_with_invalid(value):
    for reader in (read_int, read_size, read_time):
        with pytest.raises(Invalid) as info:
            reader(value)
        assert len(str(info.value)) < 200


@pytest.mark.parametrize("value", [10**5000, HUGE, f"{HUGE}ms", "1" * (MAX_DIGITS + 1)],
                         ids=range(4))
def test_units_refuse_numbers_beyond_max_digits(value):
    with pytest.raises(UnitError, match="out of range"):
        parse_time(value)
    with pytest.raises(UnitError, match="out of range"):
        parse_quantity(str(value) if isinstance(value, str) else "1" * 5000)


def test_a_number_just_under_max_digits_is_read_then_bounded():
    """400 digits convert (no Python limit is hit); the reader's own bound then refuses."""
    with pytest.raises(Invalid, match="400 digits is out of range"):
        read_int("9" * MAX_DIGITS)
    assert parse_time("1" * 300) > 1e299


def test_error_texts_never_convert_a_huge_integer():
    assert int_words(10**5000) == "a number of about 5001 digits"  # (10**n has n + 1)
    assert int_words(10**30) == "a number of 31 digits"
    assert int_words(-5) == "-5"
    assert "5000 digits" in describe(10**4999)
    assert len(describe("x" * 10**6)) < 100


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"ranks": 10**5000}, "ranks"),
    ({"ranks": 2, "seed": 10**5000}, "seed"),
    ({"ranks": 2, "until": 10**5000}, "until"),
    ({"ranks": 2, "max_events": 2**70}, "max_events"),
    ({"ranks": 2, "buffer": HUGE}, "buffer"),
    ({"ranks": 2, "network": {"latency": 10**5000}}, "network.latency"),
    ({"ranks": 2, "network": {"bandwidth": f"{HUGE} GB/s"}}, "network.bandwidth"),
    ({"ranks": 2, "mpi": {"bsend_overhead": 10**5000}}, "mpi.bsend_overhead"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_python_api_refuses_huge_numbers_naming_the_setting(kwargs, key):
    def program(mpi):
        yield mpi.compute(0)
    with pytest.raises(SettingError) as info:
        ms.run(program, **kwargs)
    assert info.value.key == key and len(str(info.value)) < 200


def test_cli_refuses_a_huge_set_value_in_one_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.format(dest="1 - rank", compute="1us"))
    for setting in (f"network.latency={HUGE}us", f"buffer={HUGE}", f"seed={HUGE}"):
        p = subprocess.run([sys.executable, "-m", "mpisim", "run", str(path), "--set", setting],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, p.stderr
        assert "Traceback" not in p.stderr and "out of range" in p.stderr
        assert len(p.stderr.splitlines()) == 1
