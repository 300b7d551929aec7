"""The recorder writes the compact format as the program runs (``mpisim record --format
compact``, the default): the same runs recorded in both formats read as the same calls, and
a run stopped in a deadlock keeps its blocked calls. Needs MPICH's ``mpicc``/``mpiexec``
beside this Python (skipped without them)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import compiled, mpich
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay_scenario
from mpisim.recorded.read.compact import MAGIC

pytestmark = [pytest.mark.real_mpi, pytest.mark.slow]

PROGRAMS = {"pingpong": ["2", "500", "8"], "cart_halo": ["4", "bsend", "100"],
            "comm_chapters": ["4"], "nested_persistent": ["2"], "isendrecv": ["2"],
            "matched_probe": ["2"], "collectives": ["4"]}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return compiled(tmp_path_factory, {name: DATA / "replay_c" / f"{name}.c"
                                       for name in (*PROGRAMS, "example_3_10")})


def _record(built, out: Path, fmt: str, program: str, n: str, *args: str,
            extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    apps, env = built
    _, mpiexec = mpich()
    return subprocess.run([sys.executable, "-m", "mpisim", "record", "--format", fmt,
                           "--out", str(out), *extra, "--", mpiexec, "-n", n,
                           str(apps / program), *args],
                          capture_output=True, text=True, env=env, timeout=300)


def _without_times(call):
    """A call but its times and its buffers' addresses (two runs place them apart: address
    space randomisation), their sizes kept."""
    return dataclasses.replace(call, line=0, gap=0.0, duration=None if call.duration is None
                               else 0.0, args=_sized(call.args), out=_sized(call.out))


def _sized(fields):
    return {k: (v.partition(":")[2] if k in ("sb", "rb", "wb") else v)
            for k, v in fields.items()}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_both_formats_record_the_same_calls(built, tmp_path, program):
    n, *args = PROGRAMS[program]
    logs = {}
    for fmt in ("text", "compact"):
        out = tmp_path / f"{fmt}.trace"
        run = _record(built, out, fmt, program, n, *args)
        assert run.returncode == 0, run.stderr
        logs[fmt] = read_trace(out, sources=False)
    assert (tmp_path / "compact.trace").read_bytes().startswith(MAGIC)
    text, compact = logs["text"], logs["compact"]
    assert compact.outcome() == text.outcome() == "completed"
    for a, b in zip(text.ranks, compact.ranks, strict=True):
        assert [_without_times(c) for c in a.calls] == [_without_times(c) for c in b.calls]
        assert (a.types, a.comms, a.ended) == (b.types, b.comms, b.ended)
        assert {k: v for k, v in a.header.items() if k != "pid"} == \
            {k: v for k, v in b.header.items() if k not in ("pid", "recorder", "args")}
        assert b.header["args"].endswith(program + "".join(f" {x}" for x in args))
    result = replay_scenario(tmp_path / "compact.trace").run()
    assert result.outcome is ms.Outcome.COMPLETED


def test_a_stalled_deadlock_keeps_the_blocked_calls_in_the_compact_format(built, tmp_path):
    """3.4: two standard sends of 100,000 floats each way block under MPICH's rendezvous;
    the stall watch stops the run and every process's blocked MPI_Send is in its log."""
    out = tmp_path / "deadlock.trace"
    run = _record(built, out, "compact", "example_3_10", "2", "send", "100000",
                  extra=("--stall", "2"))
    assert run.returncode == 3, run.stderr
    trace = read_trace(out, sources=False)
    assert trace.outcome() == "killed"
    assert [call.name for _, call in trace.blocked()] == ["Send", "Send"]
    assert all(r.ended.startswith("signal ") for r in trace.ranks)
    sc = replay_scenario(out).with_overrides({"mpi.profile": "mpich"})
    assert sc.run().outcome is ms.Outcome.DEADLOCK
