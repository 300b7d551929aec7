"""The recorder's memo (the shim's memo section): a loop's calls looked up by their binary
arguments, their key's text made once. It must change no byte of a recording: the same
programs recorded with it and without it (``MPISIM_NO_MEMO=1``) decode to the same streams
(keys, rows, description and data lines in the same places: all but the times), and with
``MPISIM_MEMO_CHECK=1`` every hit is compared with the text the call makes. Needs MPICH's
``mpicc``/``mpiexec`` beside this Python (skipped without them)."""

from __future__ import annotations

import re
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from helpers.compact import frames
from helpers.mpi_tools import compiled, mpich, recorder_shim
from helpers.paths import DATA

from mpisim.recorded import read_trace
from mpisim.recorded.read.compact import BLOCK, MAGIC, PAYLOAD

pytestmark = [pytest.mark.real_mpi, pytest.mark.slow]

HERE = Path(__file__).parent
SOURCES = {"memo_loops": HERE / "memo_loops.c", "pingpong": DATA / "replay_c" / "pingpong.c",
           "nested_persistent": DATA / "replay_c" / "nested_persistent.c",
           "collectives": DATA / "replay_c" / "collectives.c",
           "cart_halo": DATA / "replay_c" / "cart_halo.c",
           "two_threads": DATA / "replay_c" / "two_threads.c",
           "wildcard": DATA / "races_c" / "wildcard_data_same.c",
           "matched_probe": DATA / "replay_c" / "matched_probe.c"}
SAME = {"memo_loops": ["4", "12", "exact"], "pingpong": ["2", "300", "8"],
        "nested_persistent": ["2"], "collectives": ["4"], "cart_halo": ["4", "bsend", "100"]}
"""Programs whose calls do not depend on timing: their two recordings are the same."""
CHECKED = {"memo_loops": ["4", "12", "all"], "two_threads": ["2", "40"], "wildcard": ["3"],
           "matched_probe": ["2"], "pingpong": ["2", "300", "8"]}
"""Programs whose calls may depend on timing (wildcard receives, tests polled, threads)."""
LOOPS = {"memo_loops", "two_threads", "pingpong"}
ADDRESS = re.compile(rb"( [srw]b=)([0-9a-f]+):")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    apps, env = compiled(tmp_path_factory, SOURCES, "-pthread")
    return apps, recorder_shim(), env


def _run(built, logs: Path, program: str, n: str, *args: str, **env: str) -> Path:
    """The program run under the recorder (compact), its logs in ``logs``."""
    apps, shim, base = built
    _, mpiexec = mpich()
    logs.mkdir()
    run = subprocess.run([mpiexec, "-n", n, "-genv", "LD_PRELOAD", str(shim),
                          str(apps / program), *args],
                         env={**base, "MPISIM_TRACE_DIR": str(logs),
                              "MPISIM_TRACE_FORMAT": "compact", **env},
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return logs


def decoded(stream: bytes) -> tuple[list, list, list]:
    """A process's compact stream decoded as it is stored: each row's key id and base (its
    times aside), the description and data lines with the row each stands before, the keys
    in the order given; buffer addresses renamed in the order they appear (two runs place
    them apart), their sizes kept."""
    rows, texts, keys, names = [], [], [], {}

    def rename(m: re.Match) -> bytes:
        return m.group(1) + b"A%d:" % names.setdefault(m.group(2), len(names))

    for pos, (_, codec, _, stored, _, _, n, _, _) in frames(stream)[0]:
        body = stream[pos + BLOCK.size:pos + BLOCK.size + stored]
        body = zlib.decompress(body) if codec else body
        *widths, ntext, _, text_bytes, _ = PAYLOAD.unpack_from(body, 0)
        at, columns = PAYLOAD.size, []
        for width in widths:
            planes = np.frombuffer(body, np.uint8, n * width, at).reshape(width, n)
            columns.append(sum(planes[b].astype(np.uint64) << np.uint64(8 * b)
                               for b in range(width)) if width else np.zeros(n, np.uint64))
            at += n * width
        places = np.frombuffer(body, "<u4", ntext, at).tolist()
        at += 4 * ntext
        lines = body[at:at + text_bytes].split(b"\n")[:-1]
        texts += [(len(rows) + p, ADDRESS.sub(rename, t)) for p, t in zip(places, lines,
                                                                             strict=True)]
        keys += [ADDRESS.sub(rename, k) for k in body[at + text_bytes:].split(b"\n")[:-1]]
        rows += list(zip(columns[0].tolist(), columns[3].tolist(), strict=True))
    return rows, texts, keys


def _streams(logs: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(logs.glob("rank.*.log"))}


def _memo_counts(logs: Path) -> list[tuple[int, int, str]]:
    counts = []
    for path in sorted(logs.glob("rank.*.memo")):
        head, _, first = path.read_text().partition("\n")
        _, checked, _, differed = head.split()
        counts.append((int(checked), int(differed), first.strip()))
    return counts


@pytest.mark.parametrize("program", sorted(SAME))
def test_the_memo_changes_no_byte_of_a_recording(built, tmp_path, program):
    """Recorded with and without the memo, each process's stream decodes to the same keys,
    rows (key id, request base) and lines in the same places."""
    n, *args = SAME[program]
    on = _streams(_run(built, tmp_path / "on", program, n, *args, MPISIM_NO_MEMO="0"))
    off = _streams(_run(built, tmp_path / "off", program, n, *args, MPISIM_NO_MEMO="1"))
    assert on.keys() == off.keys() and len(on) == int(n)
    for name in on:
        with_memo, without = decoded(on[name]), decoded(off[name])
        assert with_memo[2] == without[2], f"{name}: keys"
        assert with_memo[0] == without[0], f"{name}: rows"
        assert with_memo[1] == without[1], f"{name}: description and data lines"


def test_the_memo_changes_nothing_without_data_hashes(built, tmp_path):
    """MPISIM_NO_HASH=1 (no H lines): the same recording with and without the memo."""
    args = ("4", "12", "exact")
    on = _streams(_run(built, tmp_path / "on", "memo_loops", *args, MPISIM_NO_HASH="1"))
    off = _streams(_run(built, tmp_path / "off", "memo_loops", *args, MPISIM_NO_HASH="1",
                        MPISIM_NO_MEMO="1"))
    for name in on:
        assert decoded(on[name]) == decoded(off[name]), name
        assert not any(t.startswith(b"H ") for _, t in decoded(on[name])[1])


@pytest.mark.parametrize("program", sorted(CHECKED))
def test_every_hit_of_the_memo_is_the_text_the_call_makes(built, tmp_path, program):
    """With MPISIM_MEMO_CHECK=1 each hit also makes its text and compares: entries, buffers
    kept and hashed, result keys and request bases all the same (wildcard receives, tests
    polled until done, errors returned, threads under MPI_THREAD_MULTIPLE)."""
    n, *args = CHECKED[program]
    logs = _run(built, tmp_path / "logs", program, n, *args, MPISIM_MEMO_CHECK="1")
    counts = _memo_counts(logs)
    assert len(counts) == int(n)
    assert [(differed, first) for _, differed, first in counts] == [(0, "")] * int(n)
    if program in LOOPS:
        assert all(checked > 0 for checked, _, _ in counts)


def test_a_run_stopped_inside_a_remembered_call_keeps_it(built, tmp_path):
    """3.7.3: every process blocked in the MPI_Wait its loop made each round (its entry
    given by the memo, its request id made absolute again when the log ends) is in the
    recording as without the memo."""
    apps, _, env = built
    _, mpiexec = mpich()
    traces = {}
    for memo in ("0", "1"):
        out = tmp_path / f"stall{memo}.trace"
        run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(out),
                              "--stall", "2", "--", mpiexec, "-n", "2",
                              str(apps / "memo_loops"), "6", "stall"],
                             capture_output=True, text=True, timeout=300,
                             env={**env, "MPISIM_NO_MEMO": memo})
        assert run.returncode == 3, run.stderr
        trace = read_trace(out, sources=False)
        assert [call.name for _, call in trace.blocked()] == ["Wait", "Wait"]
        traces[memo] = out.read_bytes()
    on, off = (traces[m].split(MAGIC)[1:] for m in ("0", "1"))
    for a, b in zip(on, off, strict=True):
        assert decoded(MAGIC + a) == decoded(MAGIC + b)
