"""The replay compares each receive's status with the recorded one: a wildcard receive that
matched another source or another tag than in the recording is reported as a divergence."""

from __future__ import annotations

import mpisim as ms
from mpisim.recorded import replay


def _log(rank: int, size: int, body: str) -> str:
    return (f"#mpisim-trace 1\n#rank {rank} {size}\n#library test\n"
            f"Init g=0 thread=0\n= 0 d=0\nT 1 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n"
            f"{body}Finalize g=0\n= 0 d=0\n")


def test_an_any_tag_receive_that_matched_another_tag_is_noted(tmp_path):
    """The recording says the first ANY_TAG receive matched tag 2; in the replay it matches
    tag 1 (sent first, 3.5 non-overtaking): the divergence names both tags."""
    path = tmp_path / "tags.trace"
    path.write_text(
        _log(0, 2, "Send g=0 dest=1 tag=1 comm=0 n=10 T=1\n= 0 d=100\n"
                   "Send g=0 dest=1 tag=2 comm=0 n=10 T=1\n= 0 d=100\n")
        + _log(1, 2, "Recv g=0 src=0 tag=A comm=0 n=10 T=1\n= 0 d=100 st=0:2:80\n"
                     "Recv g=0 src=0 tag=A comm=0 n=10 T=1\n= 0 d=100 st=0:1:80\n"))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED
    notes = [w for w in result.warnings if w.startswith("replay diverged")]
    assert any("matched source 0 tag 1" in n and "recording matched source 0 tag 2" in n
               for n in notes), notes


def test_a_replay_that_matches_as_recorded_notes_nothing(tmp_path):
    path = tmp_path / "same.trace"
    path.write_text(
        _log(0, 2, "Send g=0 dest=1 tag=1 comm=0 n=10 T=1\n= 0 d=100\n")
        + _log(1, 2, "Recv g=0 src=0 tag=A comm=0 n=10 T=1\n= 0 d=100 st=0:1:80\n"))
    result = replay(path)
    assert result.outcome is ms.Outcome.COMPLETED
    assert not [w for w in result.warnings if w.startswith("replay diverged")]
