"""A replay gives each blocked call the time the recorded run gave it, when the profile
times its library as the library does.

The stored recording (tests/data/replay_c/slow_receiver.c, recorded with MPICH 5.0.2): rank 0
makes 100 eager 8-byte MPI_Send calls to rank 1, which sleeps 0.3 s and then receives one
message every 20 ms. MPICH keeps 64 of a pair's messages in shared-memory cells and frees one
per poll of the receiver (``eager_release: poll``, mpisim.p2p.progress): the 65th send waits
for the receiver to wake, and each later one for its next receive. Replayed under the
recording's profile (mpich-5.0), every blocked send's duration is within 10 % of the
recorded one (MPI 4.1 §3.4: a standard send completes once its message is buffered, which
here is when a cell is free).
"""

from __future__ import annotations

import re

from helpers.paths import DATA

import mpisim as ms

TRACE = DATA / "replay" / "slow-receiver.trace"


def _recorded_send_durations(rank: int) -> list[float]:
    """Each MPI_Send of ``rank`` in the recording: its duration (``d=`` ns)."""
    out, current, pending = [], None, False
    for line in TRACE.read_text().splitlines():
        if line.startswith("#rank "):
            current = int(line.split()[1])
        elif current == rank and line.startswith("Send "):
            pending = True
        elif current == rank and pending and line.startswith("= "):
            out.append(int(re.search(r"\bd=(\d+)", line).group(1)) / 1e9)
            pending = False
    return out


def test_each_blocked_send_lasts_as_long_as_it_did_in_the_recorded_run():
    recorded = _recorded_send_durations(0)
    result = ms.replay(TRACE)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    calls = result.trace.calls_of(0)
    sends = calls[calls["call"] == "MPI_Send"]
    replayed = list(sends["end"] - sends["start"])
    assert len(recorded) == len(replayed) == 100
    blocked = [i for i, d in enumerate(recorded) if d > 0.005]
    assert len(blocked) == 36 and blocked[0] == 64     # 64 cells, then one per receive
    for i in blocked:
        assert abs(replayed[i] - recorded[i]) <= 0.10 * recorded[i], (i, recorded[i],
                                                                       replayed[i])
    assert [i for i, d in enumerate(replayed) if d > 0.005] == blocked


def test_the_first_model_of_the_cells_would_not_agree():
    """Under ``eager_release: progress`` (every cell freed at the receiver's next call) the
    sender runs 64 messages further at each receive: far fewer sends wait."""
    result = ms.replay(TRACE, network={"eager_release": "progress"})
    calls = result.trace.calls_of(0)
    sends = calls[calls["call"] == "MPI_Send"]
    assert 0 < sum(1 for d in sends["end"] - sends["start"] if d > 0.005) < 36 // 4
