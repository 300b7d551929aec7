"""Figures at the edges: a run that ends at t = 0, calls that take no time, sweeps over
values that grow by a factor, and text read at the size the documentation shows it.

What is checked is what is drawn (artists, axes, texts), not pixels.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.programs import exchange
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.figure import Figure
from matplotlib.text import Text

import mpisim as ms
from mpisim.plot import plot_layout, plot_occupancy, plot_timeline, plot_waitfor
from mpisim.plot.style import MIN_FONT
from mpisim.plot.sweepmap import BANDWIDTH_KEYS, SIZE_KEYS, TIME_KEYS, plot_sweep
from mpisim.runs.settings import every_key, lookup
from mpisim.whatif import SweepTable

NET = {"eager_limit": "4 KiB"}


def overflow_at_once(mpi):
    """3.6.1: rank 1's bsend does not fit its 500-byte buffer: MPI_ERR_BUFFER at t = 0."""
    yield mpi.buffer_attach(500 if mpi.rank == 1 else 5000)
    yield mpi.bsend(count=1000, dest=1 - mpi.rank)


def legend_labels(fig: Figure) -> set[str]:
    return {t.get_text() for t in fig.axes[0].get_legend().get_texts()}


# -- a run that ends at t = 0 ------------------------------------------------------------------
def test_a_timeline_of_a_run_ending_at_time_zero_says_so_instead_of_an_empty_axis():
    result = ms.run(overflow_at_once, ranks=2)
    assert result.sim_time == 0
    ax = plot_timeline(result).axes[0]
    assert "the run ended at t = 0" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0"]
    assert "ns" not in ax.get_xlabel()  # not a 0-1 ns axis of nothing
    lo, hi = ax.get_xlim()
    assert lo < 0 < hi and hi - lo > 1e-3  # the instant in the middle, not squeezed left


def test_a_timeline_names_only_the_calls_that_show_as_bars():
    """A call that took no simulated time has no bar: not in the legend. 3.6: the bsends of
    Example 3.10 that fit their buffer return at once; the receives wait for the data."""
    result = ms.run(lambda mpi: exchange(mpi, send="bsend"), ranks=2, buffer="64 KiB")
    calls = result.trace.calls
    zero = calls[calls["call"] == "MPI_Bsend"]
    assert len(zero) and (zero["end"] == zero["start"]).all()
    labels = legend_labels(plot_timeline(result))
    assert "MPI_Recv" in labels and "MPI_Bsend" not in labels
    at_zero = ms.run(overflow_at_once, ranks=2)
    labels = legend_labels(plot_timeline(at_zero))
    assert not labels & {"MPI_Bsend", "MPI_Buffer_attach", "MPI_Finalize"}
    assert "unfinished when the run ended" in labels  # the outline still shows


def test_a_sweep_whose_runs_all_end_at_time_zero_says_so():
    table = ms.sweep(overflow_at_once, {"seed": [0, 1]}, ranks=2, jobs=1)
    ax = plot_sweep(table).axes[0]
    assert "every run ended at t = 0" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0"]


# -- sweeps to scale ---------------------------------------------------------------------------
def table_of(vary, outcome="completed"):
    columns = list(vary.values())
    points = [(v,) for v in columns[0]] if len(vary) == 1 else \
        [(a, b) for a in columns[0] for b in columns[1]]
    rows = [(outcome, 1e-6 * (n + 1), "", 0, 0) for n in range(len(points))]
    return SweepTable.build(dict(vary), points, rows, scenario="synthetic")


def dots_x(fig: Figure) -> list[float]:
    return sorted(float(x) for c in fig.axes[0].collections if isinstance(c, PathCollection)
                  for x, _ in c.get_offsets())


def test_a_geometric_range_sits_at_its_values_on_a_log_axis_labelled_in_units():
    """1 KiB .. 64 KiB by x2 (with 32 KiB left out): 16 KiB to 64 KiB is two steps."""
    sizes = [1024, 2048, 4096, 8192, 16384, 65536]
    fig = plot_sweep(table_of({"buffer": sizes}))
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
    assert dots_x(fig) == sizes
    assert [t.get_text() for t in ax.get_xticklabels()] == \
        ["1 KiB", "2 KiB", "4 KiB", "8 KiB", "16 KiB", "64 KiB"]
    assert list(ax.get_xticks()) == sizes
    assert ax.xaxis.get_minor_locator().tick_values(1, 10) == []  # no unlabelled ticks


def test_evenly_spaced_values_sit_on_a_linear_axis():
    counts = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]
    fig = plot_sweep(table_of({"count": counts}))
    assert fig.axes[0].get_xscale() == "linear" and dots_x(fig) == counts


def test_values_written_with_units_are_placed_by_their_value_and_relabelled():
    fig = plot_sweep(table_of({"network.latency": ["10us", "100ns", "1us"]}))
    ax = fig.axes[0]
    assert dots_x(fig) == pytest.approx([1e-7, 1e-6, 1e-5])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["100 ns", "1 µs", "10 µs"]
    fig = plot_sweep(table_of({"network.bandwidth": ["1 GB/s", "10 GB/s", "100 GB/s"]}))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == \
        ["1 GB/s", "10 GB/s", "100 GB/s"]


def test_names_stay_in_the_order_swept_at_even_steps():
    fig = plot_sweep(table_of({"mpi.allocator": ["unbounded", "circular", "first-fit"]}))
    ax = fig.axes[0]
    assert dots_x(fig) == [0, 1, 2]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["unbounded", "circular",
                                                            "first-fit"]


def test_a_maps_cells_reach_halfway_to_their_neighbours_in_the_axis_scale():
    fig = plot_sweep(table_of({"buffer": [1024, 4096, 16384], "count": [1, 2, 4, 5]}))
    ax = fig.axes[0]
    mesh = next(c for c in ax.collections if isinstance(c, QuadMesh))
    corners = mesh.get_coordinates()  # (rows + 1, columns + 1, 2)
    assert ax.get_xscale() == "log"
    np.testing.assert_allclose(corners[0, :, 0], [512, 2048, 8192, 32768])  # geometric
    assert ax.get_yscale() == "linear"
    np.testing.assert_allclose(corners[:, 0, 1], [0.5, 1.5, 3, 4.5, 5.5])  # arithmetic
    texts = sorted(t.get_position() for t in ax.texts)
    assert texts[0] == (1024, 1)  # each cell's note at its values


@pytest.mark.parametrize("kind, keys", [("size", SIZE_KEYS), ("time", TIME_KEYS),
                                        ("bandwidth", BANDWIDTH_KEYS)])
def test_the_plots_know_the_unit_of_every_setting(kind, keys):
    declared = {k for k in every_key() if lookup(k).kind == kind}
    assert declared <= keys
    assert keys - declared <= {"buffer"}  # (the run's buffer, a size: not a network key)


# -- readable at the size the documentation shows -----------------------------------------------
def figures() -> dict[str, Figure]:
    deadlock = ms.run(exchange, ranks=2, network=NET, params={"count": 2000})
    overflow = ms.run(overflow_at_once, ranks=2)
    buffered = ms.run(lambda mpi: exchange(mpi, send="bsend"), ranks=2, buffer="64 KiB")
    return {
        "timeline": plot_timeline(deadlock),
        "timeline at 0": plot_timeline(overflow),
        "occupancy": plot_occupancy(buffered),
        "occupancy at 0": plot_occupancy(overflow),
        "layout": plot_layout(overflow, 1),
        "waitfor": plot_waitfor(deadlock),
        "sweep": plot_sweep(table_of({"buffer": [1024, 4096, 16384]})),
        "map": plot_sweep(table_of({"buffer": [1024, 4096], "count": [1, 2]})),
    }


def test_no_text_of_a_figure_is_smaller_than_the_least_readable_size():
    """Drawn 10 inches wide at 90 dpi and shown about 740 px wide, a 10-point text is 10 px."""
    for name, fig in figures().items():
        fig.canvas.draw()  # (tick labels as drawn)
        small = [(t.get_text(), t.get_fontsize()) for t in fig.findobj(Text)
                 if t.get_text() and t.get_fontsize() < MIN_FONT]
        for ax in fig.axes:
            small += [(t.get_text(), t.get_fontsize()) for t in
                      [*ax.get_xticklabels(), *ax.get_yticklabels()]
                      if t.get_text() and t.get_fontsize() < MIN_FONT]
        assert not small, (name, small)


def test_a_figure_drawn_into_the_users_axes_keeps_the_users_sizes():
    fig = Figure()
    ax = fig.subplots()
    ax.tick_params(labelsize=6)
    plot_timeline(ms.run(exchange, ranks=2, network=NET), ax=ax)
    fig.canvas.draw()
    assert {t.get_fontsize() for t in ax.get_xticklabels()} == {6}
