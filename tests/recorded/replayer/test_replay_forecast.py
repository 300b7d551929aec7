"""A long replay's wall-time forecast goes by the recording's own length: the calls replayed
against the calls recorded, not the event bound (16 events a call, where a replay makes 1 to
5), so that its first line says about how long the replay will take, and its progress lines
how far through the recording it is. (No assertion on wall time: the events the forecast
expects are compared with the events the replay made.)"""

from __future__ import annotations

import pickle
import re

import mpisim as ms
from mpisim.recorded import replay_scenario
from mpisim.recorded.record import synthetic as syn
from mpisim.runs import estimate, simulation


def _announced(monkeypatch) -> None:
    """Every replay announced at its first look (made after 500 events), and a progress
    line at each look after it."""
    monkeypatch.setattr(estimate, "LONG_KNOWN", 0.0)
    monkeypatch.setattr(estimate, "MIN_WATCH", 0.0)
    monkeypatch.setattr(estimate, "EVERY", 0.0)
    monkeypatch.setattr(simulation, "PROGRESS_EVERY", 500)


def test_the_first_line_says_the_events_the_replay_will_make_within_a_factor_3(
        tmp_path, monkeypatch, capsys):
    path = tmp_path / "halo.trace"
    calls = syn.write(path, "halo3d", 4, 40)  # 2,248 calls: about 7,000 events
    _announced(monkeypatch)
    sim = ms.Simulation(**replay_scenario(path).run_kwargs(), trace=False)
    assert sim.run().outcome is ms.Outcome.COMPLETED
    first, *progress = capsys.readouterr().err.splitlines()
    assert first.startswith(f"mpisim: this replay of {calls:,} recorded calls may take about ")
    assert "could take up to" not in first and "bound" not in first
    expected = int(re.search(r"about ([\d,]+) events in all", first)[1].replace(",", ""))
    assert sim.events / 3 <= expected <= 3 * sim.events, (expected, sim.events)
    shares = [int(m[1]) for line in progress
              if (m := re.match(r"mpisim: (\d+)% of the recorded calls replayed", line))]
    assert len(shares) == len(progress) >= 5
    assert shares == sorted(shares) and shares[-1] <= 100


def test_the_bound_is_kept_as_the_bound_and_a_nearer_one_is_what_is_forecast(
        tmp_path, monkeypatch, capsys):
    """A max_events given that ends the replay before its recording does: the forecast is
    that bound's, and the run stops there."""
    path = tmp_path / "halo.trace"
    syn.write(path, "halo3d", 4, 40)
    _announced(monkeypatch)
    monkeypatch.setattr(estimate, "LONG_RUN", 0.0)
    result = ms.replay(path, trace=False, max_events=3000)
    assert result.outcome is ms.Outcome.TIMEOUT and "3000 events" in result.timeout_reason
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("mpisim: this run could take up to") and \
        "(up to 3,000 events" in first


def test_the_replays_hint_goes_to_a_sweeps_worker_with_its_program():
    """A what-if worker gets the run's keywords pickled: the calls counted are those of the
    program it runs."""
    from helpers import paths

    kwargs = replay_scenario(paths.DATA / "replay" / "nested-persistent.trace").run_kwargs()
    copied = pickle.loads(pickle.dumps(kwargs))
    assert copied["work"].done.args[0] is copied["program"]
    assert copied["work"].total == kwargs["work"].total > 0
    result = ms.run(**copied)
    assert result.outcome is ms.Outcome.COMPLETED
    assert copied["work"].done() == copied["work"].total
