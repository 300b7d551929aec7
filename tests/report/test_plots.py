"""Plots: the data drawn equals the trace (artists' arrays, not pixels), units, selections.

Synthetic traces come from helpers.traces.TraceBuilder; real runs check the same on what the
engine records, for 2 and 64 ranks.
"""

from __future__ import annotations

import contextlib
import io
import math
import subprocess
import sys

import numpy as np
import pytest
from helpers.paths import SCENARIOS, TESTS
from helpers.traces import TraceBuilder, exchange_result
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.quiver import Quiver

import mpisim as ms
from mpisim.plot import layout_at, plot_layout, plot_occupancy, plot_timeline
from mpisim.plot.layout import _default_time
from mpisim.plot.occupancy import MAX_PANELS
from mpisim.plot.style import size_unit, time_unit
from mpisim.plot.timeline import MAX_LANES
from mpisim.scenario import load


def by_gid(fig: Figure, gid: str) -> list:
    return [a for a in fig.findobj(lambda a: a.get_gid() == gid)]


def one(fig: Figure, gid: str):
    found = by_gid(fig, gid)
    assert len(found) == 1, (gid, found)
    return found[0]


def render(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40)  # draws every artist; small is enough
    return buf.getvalue()


def wrapped_result():
    """3.6.1 on a 1000 B buffer: three 300 B entries; the first two complete; the next bsend
    reclaims them from the head, finds only 100 B after the tail and wraps to offset 0
    (the last 100 B are the wasted wrap gap); a 400 B bsend then overflows."""
    b = TraceBuilder(2)
    b.buffer(0, 0.0, "attach", 1000, 0, 0, 0, 1000)
    for i in range(3):
        b.buffer(0, 1e-6 * (i + 1), "bsend", 1000, 300 * (i + 1), 300 * (i + 1), i + 1,
                 700 - 300 * i, 300)
    b.buffer(0, 4e-6, "complete", 1000, 900, 600, 3, 100)
    b.buffer(0, 4e-6, "complete", 1000, 900, 300, 3, 100)
    b.buffer(0, 5e-6, "reclaim", 1000, 300, 300, 1, 600)
    b.buffer(0, 5e-6, "bsend", 1000, 700, 600, 2, 300, 300)
    b.buffer(0, 6e-6, "overflow", 1000, 700, 600, 2, 300, 400)
    b.buffer(0, 8e-6, "complete", 1000, 700, 300, 2, 300)
    b.buffer(0, 10e-6, "complete", 1000, 700, 0, 2, 300)
    b.buffer(0, 12e-6, "detach", 0, 0, 0, 0, 0)
    b.entry(0, 0, 0, 300, 1e-6, 4e-6, 5e-6).entry(0, 1, 300, 300, 2e-6, 4e-6, 5e-6)
    b.entry(0, 2, 600, 300, 3e-6, 8e-6, 12e-6).entry(0, 3, 0, 300, 5e-6, 10e-6, 12e-6)
    for i in range(4):
        b.message(i, 0, 1, 1e-6 * (i + 1) if i < 3 else 5e-6, 1e-6 * (8 + i),
                  mode="buffered", nbytes=204)
        b.call(1, "MPI_Recv", 1e-6 * (7 + i), 1e-6 * (8 + i))
    b.call(0, "MPI_Buffer_attach", 0.0, 1e-6).call(0, "MPI_Bsend", 1e-6, 6e-6)
    b.call(0, "MPI_Buffer_detach", 6e-6, 12e-6)
    return b.result(ms.Outcome.ERROR, sim_time=12e-6)


# -- units ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("span", "unit"), [(2.0, "s"), (0.5, "ms"), (1e-3, "ms"),
                                            (3.2e-5, "µs"), (9e-7, "ns"), (0.0, "ns")])
def test_time_unit_follows_the_data_range(span, unit) -> None:
    assert time_unit(span)[0] == unit


@given(st.integers(0, 2**50))
def test_size_unit_shows_at_least_two_units(nbytes) -> None:
    name, scale = size_unit(nbytes)
    assert name in ("B", "KiB", "MiB", "GiB", "TiB")
    assert nbytes / scale >= 2 or name == "B"
    assert nbytes / scale < 2048 or name == "GiB"


# -- occupancy ------------------------------------------------------------------------------
def test_occupancy_lines_equal_the_trace_rows() -> None:
    """Used, live and capacity steps hold rank 0's buffer rows, then the end of the run."""
    result = wrapped_result()
    fig = plot_occupancy(result)
    rows = result.trace.buffer_of(0)
    for field in ("used", "live", "capacity"):
        line = one(fig, f"{field}:0")
        x, y = line.get_xdata(), line.get_ydata()
        assert line.get_drawstyle() == "steps-post"
        np.testing.assert_array_equal(x[:-1], rows["time"])
        np.testing.assert_array_equal(y[:-1], rows[field])
        assert (x[-1], y[-1]) == (result.sim_time, rows[field][-1])
    over = one(fig, "overflow:0")
    np.testing.assert_array_equal(over.get_xdata(), [6e-6])
    np.testing.assert_array_equal(over.get_ydata(), [700])
    assert by_gid(fig, "used:1") == []  # rank 1 never attached: not drawn by default


def test_occupancy_axes_name_their_units() -> None:
    fig = plot_occupancy(wrapped_result())
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time (µs)"
    assert ax.get_ylabel() == "bytes (B)"
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {
        "used (held + wrap gap)", "live (send not completed)", "capacity",
        "overflow (MPI_ERR_BUFFER)"}
    assert "1 overflow" in ax.get_title(loc="left")
    assert render(fig).startswith(b"\x89PNG")


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e-3, allow_nan=False), st.integers(0, 2**20),
                          st.integers(0, 2**20)), min_size=1, max_size=30))
def test_occupancy_draws_any_rows_exactly(rows) -> None:
    """(A run that ends at t = 0 shows layouts instead: see below.)"""
    assume(max(t for t, _, _ in rows) > 0)
    b = TraceBuilder(1)
    for t, used, live in sorted(rows):
        b.buffer(0, t, "bsend", 2**21, used, min(live, used), 1, 0)
    result = b.result()
    line = one(plot_occupancy(result), "used:0")
    n = len(result.trace.buffer)
    np.testing.assert_array_equal(line.get_ydata()[:n], result.trace.buffer["used"])
    np.testing.assert_array_equal(line.get_xdata()[:n], result.trace.buffer["time"])


def many_ranks_result(n=64):
    b = TraceBuilder(n)
    for r in range(n):
        peak = 1000 + 37 * ((r * 29) % n)  # distinct peaks in a scrambled order
        b.buffer(r, 0.0, "attach", 8192, 0, 0, 0, 8192)
        b.buffer(r, 1e-3 * (1 + r % 5), "bsend", 8192, peak, peak, 1, 8192 - peak, peak)
        b.buffer(r, 2e-2, "detach", 0, 0, 0, 0, 0)
        b.message(r, r, (r + 1) % n, 1e-3, 1.5e-2)
        b.call(r, "MPI_Bsend", 1e-3, 1e-3).call(r, "MPI_Recv", 1e-3, 1.5e-2)
    return b.result()


def test_occupancy_with_many_ranks_aggregates_then_shows_the_highest_peaks() -> None:
    result = many_ranks_result()
    fig = plot_occupancy(result)
    peaks = {s.rank: s.buffer.peak_used for s in result.ranks}
    want = sorted(sorted(peaks, key=lambda r: -peaks[r])[:MAX_PANELS - 1])
    drawn = [a.get_gid() for a in fig.findobj(lambda a: str(a.get_gid()).startswith("used:"))]
    assert sorted(drawn) == sorted(["used:max", "used:mean", *(f"used:{r}" for r in want)])
    assert len(fig.axes) == MAX_PANELS
    assert one(fig, "used:max").axes is fig.axes[0]
    assert (f"all 64 ranks with a buffer, then the {MAX_PANELS - 1} with the highest peak "
            "used") in fig.get_suptitle()
    assert fig.axes[-1].get_xlabel() == "time (ms)"
    assert fig.axes[0].get_ylabel() == "bytes (KiB)"
    render(fig)


def _state_at(rows: np.ndarray, t: float, field: str) -> int:
    before = rows[rows["time"] <= t]
    return int(before[field][-1]) if len(before) else 0


def test_occupancy_aggregate_is_the_max_and_mean_over_ranks() -> None:
    """At every change of any rank: the largest and the mean used bytes over all ranks."""
    result = many_ranks_result(MAX_PANELS + 3)
    fig = plot_occupancy(result)
    buffer = result.trace.buffer
    times = sorted(set(buffer["time"].tolist()))
    per_rank = [buffer[buffer["rank"] == r] for r in range(len(result.ranks))]
    used = [[_state_at(rows, t, "used") for rows in per_rank] for t in times]
    live = [[_state_at(rows, t, "live") for rows in per_rank] for t in times]
    top, mean, live_top = one(fig, "used:max"), one(fig, "used:mean"), one(fig, "live:max")
    np.testing.assert_array_equal(top.get_xdata()[:-1], times)
    np.testing.assert_array_equal(top.get_ydata()[:-1], [max(u) for u in used])
    np.testing.assert_allclose(mean.get_ydata()[:-1], [sum(u) / len(u) for u in used])
    np.testing.assert_array_equal(live_top.get_ydata()[:-1], [max(v) for v in live])


def test_occupancy_aggregate_alone_into_a_given_axes() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    plot_occupancy(many_ranks_result(), ax=ax)
    assert {ln.get_gid() for ln in ax.get_lines()} == {"used:max", "used:mean", "live:max",
                                                       "capacity:max"}


def test_occupancy_of_chosen_ranks_into_one_axes() -> None:
    result = many_ranks_result(4)
    fig = Figure()
    ax = fig.add_subplot()
    assert plot_occupancy(result, ranks=[3, 1], ax=ax) is fig
    assert {a.get_gid() for a in ax.get_lines()} >= {"used:3", "used:1", "live:3", "live:1"}
    assert by_gid(fig, "used:0") == []


def test_occupancy_refuses_unknown_ranks() -> None:
    with pytest.raises(ValueError, match=r"ranks: rank 5 is not in 0\.\.1"):
        plot_occupancy(wrapped_result(), ranks=[5])


def test_occupancy_without_any_buffer_still_renders() -> None:
    fig = plot_occupancy(TraceBuilder(2).call(0, "compute", 0, 1e-6).result())
    assert "no rank attached a buffer" in fig.axes[0].texts[0].get_text()
    render(fig)


# -- timeline -------------------------------------------------------------------------------
def _bar_spans(coll: PolyCollection) -> list[tuple[float, float, float]]:
    """(start, end, lane) of each bar of a collection."""
    out = []
    for path in coll.get_paths():
        v = path.vertices
        out.append((v[:, 0].min(), v[:, 0].max(), (v[:, 1].min() + v[:, 1].max()) / 2))
    return sorted(out)


def test_timeline_bars_equal_the_call_intervals() -> None:
    """A call that never returned reaches the end of the run and is hatched."""
    result = exchange_result()
    fig = plot_timeline(result)
    calls = result.trace.calls
    for name in set(calls["call"].tolist()):
        rows = calls[calls["call"] == name]
        want = sorted((s, result.sim_time if math.isnan(e) else e, float(r))
                      for r, _c, s, e in rows.tolist())
        np.testing.assert_allclose(_bar_spans(one(fig, f"calls:{name}")), want)
    blocked = one(fig, "blocked")
    np.testing.assert_allclose(_bar_spans(blocked), [(5e-6, 6e-6, 1.0)])
    assert blocked.get_hatch() == "////"


def test_timeline_arrows_go_from_post_to_delivery() -> None:
    result = exchange_result()
    fig = plot_timeline(result)
    q = one(fig, "messages:buffered")
    assert isinstance(q, Quiver)
    msgs = result.trace.messages[result.trace.messages["mode"] == "buffered"]
    np.testing.assert_allclose(q.X, msgs["post"])
    np.testing.assert_allclose(q.Y, msgs["src"])
    np.testing.assert_allclose(q.X + q.U, msgs["recv_done"])
    np.testing.assert_allclose(q.Y + q.V, msgs["dst"])
    lost = one(fig, "undelivered")  # the standard send never received
    assert (list(lost.get_xdata()), list(lost.get_ydata())) == ([5e-6], [0.0])
    ax = fig.axes[0]
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # rank 0 on top
    assert "blocked" in ax.get_title()
    labels = {t.get_text() for t in ax.get_legend().get_texts()}
    assert {"MPI_Recv", "buffered send", "never delivered",
            "unfinished when the run ended"} <= labels
    assert "MPI_Bsend" not in labels  # its bsends took no time: no bar to name
    assert one(fig, "calls:MPI_Bsend") is not None  # (still drawn, as the trace has them)
    assert render(fig).startswith(b"\x89PNG")


def test_timeline_caps_messages_and_says_so() -> None:
    b = TraceBuilder(2)
    for i in range(50):
        b.message(i, i % 2, 1 - i % 2, 1e-6 * (50 - i), 1e-6 * (51 - i))
    fig = plot_timeline(b.result(), max_messages=10)
    q = one(fig, "messages:standard")
    np.testing.assert_allclose(np.sort(q.X), 1e-6 * np.arange(1, 11))  # the first 10 posted
    assert "first 10 of 50 messages" in fig.axes[0].get_title()


def test_timeline_of_selected_ranks_uses_compact_lanes() -> None:
    result = many_ranks_result(8)
    fig = plot_timeline(result, ranks=[2, 3, 5])
    q = one(fig, "messages:standard")
    np.testing.assert_allclose(q.X, [1e-3])  # only 2 -> 3 has both ends in view
    np.testing.assert_allclose([q.Y[0], q.Y[0] + q.V[0]], [0, 1])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [
        "rank 2", "rank 3", "rank 5"]


def test_timeline_with_64_ranks_stays_readable() -> None:
    fig = plot_timeline(many_ranks_result(64))
    ax = fig.axes[0]
    assert len(ax.get_yticklabels()) <= 16
    assert ax.get_xlabel() == "time (ms)"
    assert fig.get_size_inches()[1] <= 14
    render(fig)


def test_timeline_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="ranks: 9 is not a rank"):
        plot_timeline(exchange_result(), ranks=[9])
    with pytest.raises(ValueError, match="max_messages"):
        plot_timeline(exchange_result(), max_messages=-1)


def test_timeline_lanes_default_to_the_busiest_when_there_are_too_many() -> None:
    n = MAX_LANES + 6
    b = TraceBuilder(n)
    for i in range(MAX_LANES // 2):
        b.message(i, 2 * i + 6, 2 * i + 7, 0.0, 1e-6)
    fig = plot_timeline(b.result())
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0] == "rank 6"
    assert f"{MAX_LANES} of {n} ranks" in fig.axes[0].get_title()


# -- layout ---------------------------------------------------------------------------------
def test_layout_after_a_wrap() -> None:
    """3.6.1: the queue wrapped to offset 0; the 100 B left at the end are the wrap gap;
    head is the oldest held entry, tail the end of the newest; used counts the gap."""
    lay = layout_at(wrapped_result(), 0, 6e-6)
    assert lay.entries["msg"].tolist() == [2, 3]
    assert lay.states == ["live", "live"]
    assert (lay.head, lay.tail, lay.wrap_gap) == (600, 300, (900, 100))
    assert lay.used == int(lay.entries["size"].sum()) + lay.wrap_gap[1]
    assert (lay.event, lay.requested) == ("overflow", 400)


def test_layout_shows_completed_entries_not_yet_reclaimed() -> None:
    """3.6.1: completed entries stay until the next bsend reclaims them from the head."""
    lay = layout_at(wrapped_result(), 0, 4.5e-6)
    assert lay.states == ["completed", "completed", "live"]
    assert (lay.head, lay.tail, lay.wrap_gap) == (0, 900, None)


def test_layout_default_time_is_the_first_overflow() -> None:
    fig = plot_layout(wrapped_result(), 0)
    title = fig.axes[0].get_title()
    assert "t = 6 µs (its first overflow)" in title
    assert "did not fit" in title
    live = one(fig, "entries:live")
    assert sorted((p.vertices[:, 0].min(), p.vertices[:, 0].max())
                  for p in live.get_paths()) == [(0, 300), (600, 900)]
    gap = one(fig, "wrap gap")
    assert (gap.get_x(), gap.get_width()) == (900, 100)
    ghost = one(fig, "requested")
    assert (ghost.get_x(), ghost.get_width()) == (300, 400)
    assert fig.axes[0].get_xlabel() == "offset (B)"
    render(fig)


def test_layout_default_time_without_overflow_is_the_peak_used() -> None:
    result = exchange_result()
    fig = plot_layout(result, 1)
    assert "t = 1 µs (its peak used)" in fig.axes[0].get_title()
    assert len(one(fig, "entries:live").get_paths()) == 1


def test_layout_time_accepts_unit_strings_and_refuses_nonsense() -> None:
    lay_fig = plot_layout(wrapped_result(), 0, time="4.5us")
    assert one(lay_fig, "entries:completed") is not None
    with pytest.raises(ValueError, match="time: "):
        plot_layout(wrapped_result(), 0, time="soon")
    with pytest.raises(ValueError, match="rank: 7 is not a rank"):
        plot_layout(wrapped_result(), 7)


def test_layout_of_a_rank_without_buffer() -> None:
    fig = plot_layout(wrapped_result(), 1)
    assert "no buffer attached" in fig.axes[0].texts[0].get_text()
    render(fig)


def test_layout_does_not_mix_attaches() -> None:
    """Entries of an earlier attach (same offsets) are not shown after a re-attach."""
    b = TraceBuilder(1)
    b.buffer(0, 0.0, "attach", 500, 0, 0, 0, 500).buffer(0, 1.0, "bsend", 500, 200, 200, 1, 300)
    b.entry(0, 0, 0, 200, 1.0, 2.0, 3.0, attach=0)
    b.buffer(0, 3.0, "detach", 0, 0, 0, 0, 0).buffer(0, 4.0, "attach", 500, 0, 0, 0, 500)
    b.buffer(0, 5.0, "bsend", 500, 100, 100, 1, 400).entry(0, 1, 0, 100, 5.0, attach=1)
    assert layout_at(b.result(), 0, 5.0).entries["msg"].tolist() == [1]
    assert layout_at(b.result(), 0, 3.5).capacity == 0


# -- headless -------------------------------------------------------------------------------
def test_plots_never_touch_pyplot() -> None:
    """Figures are made without pyplot's global state (safe headless and in workers)."""
    code = ("import sys, mpisim.plot as p; from helpers.traces import exchange_result as e; "
            "r = e(); [f(r) for f in (p.plot_occupancy, p.plot_timeline)]; p.plot_layout(r, 0); "
            "print('matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=TESTS)
    assert out.stdout.strip() == "False"


# -- real runs ------------------------------------------------------------------------------
def ring_bsend(mpi, count=256, rounds=3):
    """Each rank bsends ``rounds`` messages to the next rank, then receives them."""
    yield mpi.buffer_attach(rounds * (mpi.pack_size(count, ms.BYTE) + mpi.BSEND_OVERHEAD))
    for _ in range(rounds):
        yield mpi.bsend(count=count, dest=(mpi.rank + 1) % mpi.size, tag=0)
    yield mpi.compute("2us")
    for _ in range(rounds):
        yield mpi.recv(count=count, source=(mpi.rank - 1) % mpi.size, tag=0)
    yield mpi.buffer_detach()


def overflowing(mpi):
    """The second bsend does not fit: MPI_ERR_BUFFER (3.6.1), caught by the program."""
    yield mpi.buffer_attach(mpi.pack_size(100, ms.BYTE) + mpi.BSEND_OVERHEAD)
    if mpi.rank == 0:
        yield mpi.bsend(count=100, dest=1, tag=0)
        with contextlib.suppress(ms.MPIError):
            yield mpi.bsend(count=100, dest=1, tag=1)
        yield mpi.recv(count=1, source=1, tag=9)
    else:
        yield mpi.recv(count=100, source=0, tag=0)
        yield mpi.send(count=1, dest=0, tag=9)
    yield mpi.buffer_detach()


@pytest.mark.parametrize("nranks", [2, 64])
def test_real_ring_figures_equal_the_trace(nranks) -> None:
    result = ms.run(ring_bsend, ranks=nranks)
    assert result.outcome == ms.Outcome.COMPLETED
    occ = plot_occupancy(result)
    shown = [int(a.get_gid().split(":")[1]) for a in occ.findobj(
        lambda a: str(a.get_gid()).startswith("used:") and a.get_gid()[5:].isdigit())]
    assert len(shown) == (nranks if nranks <= MAX_PANELS else MAX_PANELS - 1)
    for r in shown:
        rows = result.trace.buffer_of(r)
        np.testing.assert_array_equal(one(occ, f"used:{r}").get_ydata()[:len(rows)],
                                      rows["used"])
    tl = plot_timeline(result)
    drawn = sum(len(q.X) for q in tl.findobj(Quiver))
    assert drawn == int(np.isfinite(result.trace.messages["recv_done"]).sum()) == 3 * nranks
    render(occ), render(tl), render(plot_layout(result, 0))


def test_real_overflow_layout_accounts_for_used_bytes() -> None:
    result = ms.run(overflowing, ranks=2)
    rows = result.trace.buffer_of(0)
    assert "overflow" in rows["event"].tolist()
    lay = layout_at(result, 0, float(rows[rows["event"] == "overflow"]["time"][0]))
    gap = lay.wrap_gap[1] if lay.wrap_gap else 0
    assert lay.used == int(lay.entries["size"].sum()) + gap
    assert lay.requested > lay.largest_free
    fig = plot_layout(result, 0)
    assert "first overflow" in fig.axes[0].get_title()
    render(fig)


def test_real_layout_keeps_completed_entries_until_the_next_bsend() -> None:
    """3.6.1: a completed entry's space returns when the next bsend reclaims it, not when
    its send completes: between the two it is drawn as completed and counted as used."""

    def paced(mpi):
        if mpi.rank == 0:
            yield mpi.buffer_attach(1000)
            for i in range(3):
                yield mpi.bsend(count=200, dest=1, tag=i)
                yield mpi.compute("3us")
            yield mpi.buffer_detach()
        else:
            for i in range(3):
                yield mpi.recv(count=200, source=0, tag=i)

    result = ms.run(paced, ranks=2)
    rows = result.trace.buffer_of(0)
    completes = rows[rows["event"] == "complete"]["time"]
    bsends = rows[rows["event"] == "bsend"]["time"]
    t = (completes[0] + bsends[1]) / 2  # after the first send completed, before the next bsend
    lay = layout_at(result, 0, float(t))
    assert lay.states == ["completed"]
    assert lay.used == int(lay.entries["size"].sum()) > 0
    freed = result.trace.entries["freed"][0]
    assert freed == bsends[1]


def test_real_deadlock_timeline_marks_the_blocked_calls() -> None:
    def head_to_head(mpi):
        yield mpi.ssend(count=8, dest=1 - mpi.rank, tag=0)
        yield mpi.recv(count=8, source=1 - mpi.rank, tag=0)

    result = ms.run(head_to_head, ranks=2)
    assert result.outcome == ms.Outcome.DEADLOCK
    fig = plot_timeline(result)
    assert len(one(fig, "blocked").get_paths()) == 2
    assert one(fig, "blocked-label:0").get_text() == "MPI_Ssend waits for 1"
    assert one(fig, "undelivered") is not None
    render(fig)


def test_real_figures_into_given_axes() -> None:
    result = ms.run(ring_bsend, ranks=2)
    fig = Figure()
    axes = fig.subplots(3, 1)
    assert plot_occupancy(result, ax=axes[0]) is fig
    assert plot_timeline(result, ax=axes[1]) is fig
    assert plot_layout(result, 1, time=0.0, ax=axes[2]) is fig
    render(fig)


@settings(max_examples=25, deadline=None)
@given(sizes=st.lists(st.integers(1, 400), min_size=1, max_size=12),
       capacity=st.integers(300, 2000), delay=st.sampled_from(["0us", "1us", "5us"]),
       pause=st.sampled_from(["0us", "3us"]), eager_limit=st.sampled_from([0, "64 KiB"]))
def test_real_layouts_account_for_every_byte(sizes, capacity, delay, pause,
                                             eager_limit) -> None:
    """3.6.1 at every change of the buffer: entries lie inside it without overlapping, form
    one circular queue, and used = held entries + wrap gap, live = uncompleted entries."""

    def program(mpi):
        if mpi.rank == 0:
            yield mpi.buffer_attach(capacity)
            for i, n in enumerate(sizes):
                with contextlib.suppress(ms.MPIError):
                    yield mpi.bsend(count=n, dest=1, tag=i)
                yield mpi.compute(pause)
            yield mpi.send(count=1, dest=1, tag=999)
            yield mpi.buffer_detach()
        else:
            while True:
                yield mpi.compute(delay)
                status = yield mpi.recv(count=1000, source=0, tag=ms.ANY_TAG)
                if status.tag == 999:
                    break

    result = ms.run(program, ranks=2, network={"eager_limit": eager_limit})
    assert result.outcome == ms.Outcome.COMPLETED
    rows = result.trace.buffer_of(0)
    for t in np.unique(rows["time"]):
        lay = layout_at(result, 0, float(t))
        if lay.capacity == 0:
            continue
        e = lay.entries[np.argsort(lay.entries["offset"])]
        assert (e["offset"] >= 0).all() and (e["offset"] + e["size"] <= lay.capacity).all()
        assert (e["offset"][1:] >= (e["offset"] + e["size"])[:-1]).all()
        assert len(e) == 0 or lay.head is not None
        gap = lay.wrap_gap[1] if lay.wrap_gap else 0
        assert lay.used == int(e["size"].sum()) + gap
        live = [int(s) for s, state in zip(lay.entries["size"], lay.states, strict=True)
                if state == "live"]
        assert lay.live == sum(live)
        assert len(e) == int(rows[rows["time"] == t]["entries"][-1])


# -- every shipped scenario -------------------------------------------------------------------
SHIPPED = sorted(SCENARIOS.glob("*.*"))


def _rank_lines(fig: Figure, field: str) -> dict[int, object]:
    found = fig.findobj(lambda a: str(a.get_gid()).startswith(f"{field}:"))
    return {int(a.get_gid().split(":")[1]): a for a in found
            if a.get_gid().split(":")[1].isdigit()}


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_figures_of_every_shipped_scenario_equal_its_trace(path) -> None:
    result = load(path).run()
    trace = result.trace
    occ = plot_occupancy(result)
    buffered = sorted(set(trace.buffer["rank"].tolist()))
    lines = _rank_lines(occ, "used")
    if result.sim_time == 0 and buffered:  # nothing to draw over time: the layouts at t = 0
        assert "the run ended at t = 0" in occ.get_suptitle() and not lines
        assert by_gid(occ, "capacity")
    assert set(lines) <= set(buffered) and (lines or not buffered or result.sim_time == 0)
    for rank, line in lines.items():
        rows = trace.buffer_of(rank)
        np.testing.assert_array_equal(line.get_xdata()[:-1], rows["time"])
        np.testing.assert_array_equal(line.get_ydata()[:-1], rows["used"])
    tl = plot_timeline(result)
    arrows = sum(len(q.X) for q in tl.findobj(Quiver))
    assert arrows == int(np.isfinite(trace.messages["recv_done"]).sum())
    bars = sum(len(c.get_paths()) for c in tl.findobj(
        lambda a: str(a.get_gid()).startswith("calls:")))
    assert bars == len(trace.calls)
    overflowed = [r.rank for r in result.ranks if r.buffer.overflows]
    for rank in dict.fromkeys([*overflowed[:2], *buffered[:1]]):
        fig = plot_layout(result, rank)
        lay = layout_at(result, rank, _default_time(result, rank)[0])
        if lay.capacity:
            gap = lay.wrap_gap[1] if lay.wrap_gap else 0
            assert lay.used == int(lay.entries["size"].sum()) + gap
            drawn = sum(len(c.get_paths()) for c in fig.findobj(
                lambda a: str(a.get_gid()).startswith("entries:")))
            assert drawn == len(lay.entries)
        render(fig)
    render(occ), render(tl)


def test_timeline_window_shows_that_span_only() -> None:
    result = exchange_result()
    fig = plot_timeline(result, window=("1us", 2e-6))
    assert fig.axes[0].get_xlim() == pytest.approx((1e-6, 2e-6))
    for bad in (("2us", "1us"), ("soon", "1us"), (1,)):
        with pytest.raises(ValueError, match="window"):
            plot_timeline(result, window=bad)


def test_a_run_ending_at_time_zero_shows_the_layouts() -> None:
    """An overflow at the first bsend ends the run at t = 0: the occupancy figure shows each
    rank's buffer then (the failing rank first) instead of an empty time axis."""
    def overflow_at_once(mpi):
        yield mpi.buffer_attach(500 if mpi.rank == 1 else 5000)
        yield mpi.bsend(count=1000, dest=1 - mpi.rank)

    result = ms.run(overflow_at_once, ranks=2)
    assert result.sim_time == 0 and result.failing_ranks() == [1]
    fig = plot_occupancy(result)
    assert "the run ended at t = 0" in fig.get_suptitle()
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["rank 1", "rank 0"]


def test_the_timeline_names_the_failing_ranks_lane() -> None:
    """64 lanes are labelled every 4th; the lane of rank 41, whose overflow ended the run,
    is labelled too, in red."""
    def ring(mpi):
        yield mpi.buffer_attach(500 if mpi.rank == 41 else 2000)
        yield mpi.compute(1e-6)
        yield mpi.bsend(count=1000, dest=(mpi.rank + 1) % mpi.size)
        yield mpi.recv(count=1000, source=(mpi.rank - 1) % mpi.size)

    result = ms.run(ring, ranks=64, network={"eager_limit": 0})
    assert result.failing_ranks() == [41]
    labels = {t.get_text(): t.get_color() for t in plot_timeline(result).axes[0]
              .get_yticklabels()}
    assert labels["rank 41"] == "#d62728" and labels["rank 40"] == "black"
    assert "rank 42" not in labels
