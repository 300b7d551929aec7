"""Fuzzing the Python API: any value for any keyword of ``mpisim.run`` runs, or raises a
ValueError or TypeError with a one-line message (a SettingError names the key); never an
OverflowError, a MemoryError or a bare conversion error."""

from __future__ import annotations

import time

from fuzz.strategies import FUZZ, VALUES
from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms
from mpisim.values.readers import SettingError

KEYWORDS = ["ranks", "seed", "until", "max_events", "buffer", "name", "network", "mpi",
            "network.latency", "network.bandwidth", "network.eager_limit",
            "network.system_buffer", "network.jitter", "network.eager_cells",
            "mpi.bsend_overhead", "mpi.allocator", "mpi.alignment", "mpi.profile"]


def exchange(mpi):
    peer = (mpi.rank + 1) % mpi.size
    yield mpi.isend(count=8, dest=peer, tag=0)
    yield mpi.recv(count=8, source=(mpi.rank - 1) % mpi.size, tag=0)


@FUZZ
@given(keyword=st.sampled_from(KEYWORDS), value=VALUES)
def test_any_keyword_value_runs_or_is_refused_in_one_line(keyword, value):
    kwargs = {"ranks": 2, "max_events": 10_000}
    group, _, name = keyword.partition(".")
    kwargs[group] = {name: value} if name else value
    start = time.perf_counter()
    try:
        result = ms.run(exchange, **kwargs)
    except (ValueError, TypeError) as e:
        text = str(e)
        assert text and "\n" not in text.strip()
        if isinstance(e, SettingError):
            assert e.key.split(".")[0] == group, (e.key, keyword)
    else:
        assert result.outcome in set(ms.Outcome)
    assert time.perf_counter() - start < 20


def test_a_run_too_large_for_memory_is_refused_before_it_is_built():
    """ranks=10**9 needs about 6.7 TiB: refused at once with the estimate and what to
    change, not a MemoryError after minutes."""
    start = time.perf_counter()
    try:
        ms.run(exchange, ranks=10**9)
    except SettingError as e:
        assert e.key == "ranks" and "TiB" in e.reason and "7.2 KiB per rank" in e.reason
        assert "trace=False" in e.reason
    else:
        raise AssertionError("ran")
    assert time.perf_counter() - start < 1
