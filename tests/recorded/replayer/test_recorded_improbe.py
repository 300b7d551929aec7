"""A probe that found nothing in the recording finds nothing in the replay (MPI 4.1 §3.8.2):
the recorded outcome decides, not the replay's timing. ``improbe-missed.trace``: rank 0's
MPI_Improbe found nothing (MPICH had not yet progressed the message), then two MPI_Mprobe
and MPI_Mrecv pairs took rank 1's two messages of 80 and 40 bytes. In the replay the first
message has arrived by the improbe's time; taking it there dropped it, and the second
matched probe then waited for a message that never comes."""

from __future__ import annotations

from helpers import paths

import mpisim as ms
from mpisim.recorded import replay_scenario

TRACE = paths.DATA / "replay" / "improbe-missed.trace"


def test_3_8_2_an_improbe_that_found_nothing_takes_nothing_and_later_matches_follow():
    sc = replay_scenario(TRACE)
    result = sc.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.messages["received"] == 2
    assert sc.compare(result) == "agrees with the recording: both completed"


def test_the_improbe_is_still_a_poll_of_its_own_in_the_replay():
    """It costs a poll's time where the recording had it (the replay does not skip it): a
    probe that takes nothing, then the matched probes."""
    result = replay_scenario(TRACE).run()
    calls = [str(c) for r, c in zip(result.trace.calls["rank"].tolist(),
                                    result.trace.calls["call"].tolist(), strict=True)
             if r == 0 and c != "compute"]
    assert calls[:4] == ["MPI_Iprobe", "MPI_Mprobe", "MPI_Mrecv", "MPI_Mprobe"]
