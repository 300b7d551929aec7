"""A compact block's calls scaled to the process count (issue 41: a replay's memory bounded by
a fixed window per rank, whatever the recording's length).

A replay keeps the last two decoded blocks of each process; with blocks of a fixed 65,536
calls that window was 0.6 GB at 1,024 processes. :func:`.compact.block_calls` shares one
budget among the processes, within a floor and a ceiling; every writer of the format uses it
(the Python stream writer, hence the converter and the synthetic generator, from the
``#rank R SIZE`` header; the C recorder from MPI_COMM_WORLD's size, built with the budget and
the floor as ``-D``). Blocks of any size read alike: a recording with large blocks replays as
one with scaled blocks does."""

from __future__ import annotations

import io
import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mpisim as ms
from mpisim.recorded.read.stream import StreamedCalls, read_streamed
from mpisim.recorded.record import compact, synthetic
from mpisim.recorded.record.compact import (
    BLOCK_BUDGET,
    BLOCK_CALLS,
    BLOCK_FLOOR,
    StreamWriter,
    block_calls,
)
from mpisim.recorded.record.recorder import build_flags, build_key, shim_source


def _c_define(source: str, name: str) -> int:
    found = re.search(rf"#ifndef {name}\s*(?:/\*.*?\*/)?\s*#define {name} (\d+)", source)
    assert found is not None, name
    return int(found.group(1))


def _blocks(path: Path) -> list[list[int]]:
    """Each process's blocks' call counts, as the streamed reader finds them."""
    out = []
    for log in read_streamed(str(path)):
        assert isinstance(log.calls, StreamedCalls)
        out.append([n for _, _, n in log.calls._blocks])
    return out


# -- the rule ---------------------------------------------------------------------------------
@pytest.mark.parametrize("size, calls", [
    (1, BLOCK_CALLS), (2, BLOCK_CALLS), (8, BLOCK_CALLS), (64, BLOCK_CALLS),  # the ceiling
    (65, BLOCK_BUDGET // 65), (128, 32768), (1024, 4096),  # the budget shared
    (2048, BLOCK_FLOOR), (4096, BLOCK_FLOOR), (65536, BLOCK_FLOOR),  # the floor
    (0, BLOCK_CALLS),  # (no process count known: one process's)
])
def test_a_blocks_calls_share_the_budget_within_the_floor_and_the_ceiling(size, calls):
    assert block_calls(size) == calls


def test_all_processes_blocks_hold_about_the_budget_until_the_floor():
    """The replay's window (two blocks a process) stays within twice the budget from the
    ceiling's end to the floor's start, and never grows as processes are added there."""
    sizes = [64, 65, 100, 127, 128, 500, 1000, 1024, 1500, 2047, 2048]
    for size in sizes:
        assert BLOCK_BUDGET - size < size * block_calls(size) <= BLOCK_BUDGET
    per = [block_calls(n) for n in range(1, 70000, 37)]
    assert per == sorted(per, reverse=True)
    assert min(per) >= BLOCK_FLOOR and max(per) <= BLOCK_CALLS


# -- the Python writers -----------------------------------------------------------------------
def _stream(header: list[str], n: int, **kw: int) -> list[int]:
    """``n`` calls written through a StreamWriter; its blocks' call counts."""
    out = io.BytesIO()
    w = StreamWriter(out, header, **kw)
    for i in range(n):
        w.call(b"Barrier comm=0\0= 0", 10 + i % 7, 100, 0)
    w.close()
    firsts = [first for _, first in w.index] + [w.calls]
    return [b - a for a, b in itertools.pairwise(firsts)]


def test_the_writer_takes_its_blocks_size_from_the_rank_header():
    """1,024 processes: blocks of 4,096 calls; no ``#rank`` line: the ceiling's; an explicit
    size wins."""
    assert _stream(["#rank 3 1024", "#pid 1"], 10000) == [4096, 4096, 1808]
    assert _stream(["#pid 1"], 70000) == [BLOCK_CALLS, 70000 - BLOCK_CALLS]
    assert _stream(["#rank 0 1024"], 250, calls=100) == [100, 100, 50]
    with pytest.raises(ValueError, match="calls: 0"):
        StreamWriter(io.BytesIO(), ["#rank 0 2"], calls=0)


@pytest.fixture
def small_budget(monkeypatch):
    """A budget of 50 calls a block at 64 processes (floor 10): a 64-process recording of a
    hundred calls or so a process has blocks of the scaled size."""
    monkeypatch.setattr(compact, "BLOCK_BUDGET", 64 * 50)
    monkeypatch.setattr(compact, "BLOCK_FLOOR", 10)


def test_a_64_process_recording_has_blocks_of_its_share_and_replays_as_large_blocks(
        small_budget, monkeypatch, tmp_path):
    """The synthetic generator and the converter write blocks of the budget's share (50
    calls here) and the same bytes; the recording replays to the result JSON of the same
    calls in one large block a process (as every recording was written before)."""
    for name in ("text", "scaled", "large"):
        (tmp_path / name).mkdir()
    text, scaled, large = (tmp_path / name / "halo.trace" for name in
                           ("text", "scaled", "large"))
    synthetic.write(text, "halo3d", 64, 8)
    synthetic.write(scaled, "halo3d", 64, 8, fmt="compact")
    converted = tmp_path / "converted.trace"
    compact.convert(text, converted)
    assert scaled.read_bytes() == converted.read_bytes()
    per = 14 * 8 + 2
    assert _blocks(scaled) == [[50, 50, per - 100]] * 64
    monkeypatch.setattr(compact, "BLOCK_BUDGET", 1 << 30)
    synthetic.write(large, "halo3d", 64, 8, fmt="compact")
    assert _blocks(large) == [[per]] * 64
    results = [ms.replay(path) for path in (scaled, large)]
    assert results[0].outcome is ms.Outcome.COMPLETED
    assert results[0].to_json().replace(str(scaled), "RECORDING") == \
        results[1].to_json().replace(str(large), "RECORDING")


# -- the C recorder: the same rule, passed at build time ----------------------------------------
def test_the_recorder_is_built_with_the_budget_and_the_floor_its_fallbacks_equal():
    """A hand build (``mpicc -c $(mpisim record --shim)``) scales its blocks as the Python
    writers do; ``mpisim record`` passes the numbers, and a recorder built with another
    budget is another build."""
    source = shim_source().read_text()
    assert _c_define(source, "MPISIM_BLOCK_BUDGET") == BLOCK_BUDGET
    assert _c_define(source, "MPISIM_BLOCK_FLOOR") == BLOCK_FLOOR
    flags = build_flags()
    assert f"-DMPISIM_BLOCK_BUDGET={BLOCK_BUDGET}" in flags
    assert f"-DMPISIM_BLOCK_FLOOR={BLOCK_FLOOR}" in flags
    assert f"-DMPISIM_BLOCK_BUDGET={12000}" in build_flags(block_budget=12000)
    assert build_key(b"x", "cc", build_flags(block_budget=12000)) != \
        build_key(b"x", "cc", build_flags())
    with pytest.raises(ValueError, match="block_budget"):
        build_flags(block_budget=0)


SIZES = [1, 2, 8, 64, 65, 128, 129, 1000, 1024, 2048, 4096, 65536, 1 << 20]


def test_the_recorders_rows_a_block_are_the_writers_calls_within_its_static_rows(tmp_path):
    """The shim's ``c_rows_for`` compiled alone with ``build_flags()``'s defines gives
    :func:`block_calls` at every size, capped at its static ``C_ROWS``."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc) on PATH")
    source = shim_source().read_text()
    rows = int(re.search(r"#define C_ROWS (\d+)", source).group(1))
    function = re.search(r"static uint32_t c_rows_for\(int size\) \{.*?\n\}", source, re.S)
    assert function is not None
    program = tmp_path / "rows.c"
    program.write_text("#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                       f"#define C_ROWS {rows}\n{function.group(0)}\n"
                       "int main(int argc, char **argv) {\n"
                       "    for (int i = 1; i < argc; i++) printf(\"%u\\n\", "
                       "c_rows_for(atoi(argv[i])));\n    return 0;\n}\n")
    subprocess.run([cc, *build_flags(), "-o", str(tmp_path / "rows"), str(program)],
                   check=True, timeout=60)
    out = subprocess.run([str(tmp_path / "rows"), *map(str, SIZES)], capture_output=True,
                         text=True, check=True, timeout=60).stdout.split()
    assert [int(n) for n in out] == [min(rows, block_calls(n)) for n in SIZES]
