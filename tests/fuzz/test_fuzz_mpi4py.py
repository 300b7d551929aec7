"""Fuzzing the mpi4py front end with scripts that misbehave: a small grammar puts one
misbehaviour (a Python loop that never calls MPI again, deep recursion, a KeyboardInterrupt
the script raises itself, ``sys.exit`` in a reduction callback, a huge pickle, MPI called
from a thread, a plain exception) at a random rank after a random prefix of MPI calls.
Each run ends as ERROR naming the rank and the script's line of the misbehaviour (the loop:
as TIMEOUT at the wall-clock limit, ``--timeout``, naming them too); never a traceback of
mpisim's own, never a hang."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest
from fuzz.strategies import EXAMPLES, FUZZ
from hypothesis import given, settings
from hypothesis import strategies as st

HEADER = """\
import sys
import threading
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank = comm.rank
"""

PREFIX = {  # MPI calls every rank makes before the misbehaviour
    "barrier": "comm.Barrier()",
    "allreduce": "comm.allreduce(rank)",
    "ring": "comm.sendrecv(rank, dest=(rank + 1) % comm.size, source=(rank - 1) % comm.size)",
    "bcast": "comm.bcast('x' if rank == 0 else None, root=0)",
}

MISBEHAVIOUR = {  # the statement (one line), and the word the error is reported by
    "loop": ("while True: pass", "WallClockLimit"),
    "recursion": ("(f := lambda n: f(n + 1))(0)", "RecursionError"),
    "keyboard": ("raise KeyboardInterrupt", "ScriptInterrupt"),
    "exit-in-callback": ("comm.allreduce(1, op=MPI.Op.Create(lambda a, b, t: sys.exit(3)))",
                         "ScriptExit"),
    "huge-pickle": ("comm.send(bytearray(1 << 62), dest=0)", "MemoryError|OverflowError"),
    "thread": ("(t := threading.Thread(target=lambda: MPI.COMM_WORLD.Barrier())).start() "
               "or t.join() or comm.Barrier()", "MPI_Barrier"),
    "exception": ("{}['missing']", "KeyError"),
}
"""Misbehaviours that only the faulty rank makes (the others wait for it in MPI). A thread's
barrier is simulated (MPI 4.1 §11.6): the faulty rank then makes two barriers more than the
others, and the run ends as a DEADLOCK that names it (exit 3), not an error."""

DEADLOCKS = {"thread"}

COLLECTIVE = {"exit-in-callback"}  # every rank makes the call; rank 0's callback exits

TIMEOUT = 3.0


def _script(prefix: list[str], kind: str, bad_rank: int) -> tuple[str, int]:
    lines = HEADER.splitlines() + [PREFIX[p] for p in prefix]
    statement = MISBEHAVIOUR[kind][0]
    if kind in COLLECTIVE:
        lines.append(statement)
    else:
        lines += [f"if rank == {bad_rank}:", f"    {statement}"]
    line = len(lines)
    lines.append("comm.Barrier()")
    return "\n".join(lines) + "\n", line


def _run(path, ranks: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", str(ranks),
                           "--timeout", str(TIMEOUT), "--json", str(path)],
                          capture_output=True, text=True, timeout=TIMEOUT + 60)


@pytest.mark.slow
@pytest.mark.timeout(120 + 10 * max(8, EXAMPLES // 4))  # (the whole campaign, not one case)
@settings(FUZZ, max_examples=max(8, EXAMPLES // 4))  # each example is a subprocess
@given(prefix=st.lists(st.sampled_from(sorted(PREFIX)), max_size=3),
       kind=st.sampled_from(sorted(MISBEHAVIOUR)), ranks=st.integers(2, 4),
       bad=st.integers(0, 3))
def test_a_misbehaving_script_ends_as_error_naming_rank_and_line(tmp_path_factory, prefix,
                                                                  kind, ranks, bad):
    bad %= ranks
    text, line = _script(prefix, kind, bad)
    path = tmp_path_factory.mktemp("fuzz") / "bad.py"
    path.write_text(text)
    start = time.perf_counter()
    p = _run(path, ranks)
    assert time.perf_counter() - start < TIMEOUT + 30
    if kind == "loop":  # the wall-clock limit: a timeout naming the line the rank ran
        assert p.returncode == 5, (p.returncode, p.stderr[-2000:])
        assert f"rank {bad} running its own code at bad.py:{line} " in \
            json.loads(p.stdout)["timeout"]
        return
    if kind in DEADLOCKS:  # the faulty rank blocked in its extra barrier, at its line
        assert p.returncode == 3, (p.returncode, p.stderr[-2000:])
        blocked = json.loads(p.stdout)["deadlock"]["blocked"]
        assert any(b["rank"] == bad and b["call"] == MISBEHAVIOUR[kind][1] for b in blocked)
        return
    assert p.returncode == 4, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    error = json.loads(p.stdout)["error"]
    word = MISBEHAVIOUR[kind][1]
    assert re.search(word, f"{error['call']} {error['error_class']} {error['message']}"), error
    if kind not in COLLECTIVE:  # (a reduction's callback runs on the rank that combines)
        assert error["rank"] == bad, error
    assert f"bad.py:{line} " in error["where"], error


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(MISBEHAVIOUR))
def test_each_misbehaviour_once(tmp_path, kind):
    """Every misbehaviour of the grammar, at rank 1 of 2 after a barrier (the fuzz test
    draws only some of them in CI)."""
    text, _line = _script(["barrier"], kind, 1)
    path = tmp_path / "bad.py"
    path.write_text(text)
    p = _run(path, 2)
    assert p.returncode == (5 if kind == "loop" else 3 if kind in DEADLOCKS else 4), \
        p.stderr[-2000:]
    assert "bad.py:" in p.stdout
