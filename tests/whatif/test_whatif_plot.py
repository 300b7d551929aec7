"""plot_sweep(): what is drawn equals the table (artists' data, not pixels)."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers.programs import exchange
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.figure import Figure

from mpisim.plot.sweepmap import OUTCOME_COLORS, OUTCOME_ORDER, plot_sweep, worst_over
from mpisim.whatif import SweepTable, sweep


def table_of(vary, outcome_of):
    """A SweepTable built directly: outcome_of(point) -> (outcome, error_class)."""
    points = list(itertools.product(*vary.values()))
    rows = []
    for n, p in enumerate(points):
        outcome, error_class = outcome_of(dict(zip(vary, p, strict=True)))
        rows.append((outcome, 1e-6 * (n + 1), error_class, 100 * n, 50 * n))
    return SweepTable.build(dict(vary), points, rows, scenario="synthetic")


def by_buffer(point):
    if point["buffer"] < 4096:
        return "error", "MPI_ERR_BUFFER"
    return ("deadlock", "") if point.get("count", 0) > 2 else ("completed", "")


def test_one_key_draws_each_run_at_its_value_coloured_by_outcome():
    table = table_of({"buffer": [1024, 2048, 4096, 8192]}, by_buffer)
    fig = plot_sweep(table)
    main, twin = fig.axes
    dots = [c for c in main.collections if isinstance(c, PathCollection)]
    drawn = {}
    for c in dots:
        color = tuple(np.round(c.get_facecolor()[0][:3], 3))
        for x, y in c.get_offsets():
            drawn[int(x)] = (color, y)
    assert sorted(drawn) == [1024, 2048, 4096, 8192]  # at its value (a log axis: x2 steps)
    assert main.get_xscale() == "log"
    for row in table:
        category = "overflow" if row["error_class"] == "MPI_ERR_BUFFER" else row["outcome"]
        rgb = tuple(np.round(np.array(_rgb(OUTCOME_COLORS[category])), 3))
        assert drawn[row["buffer"]] == (rgb, row["sim_time"])
    assert list(twin.lines[0].get_ydata()) == table.array["peak_used"].tolist()
    assert [t.get_text() for t in main.get_xticklabels()] == ["1 KiB", "2 KiB", "4 KiB",
                                                              "8 KiB"]
    assert main.get_xlabel() == "buffer (log scale)"


def test_one_key_without_any_buffer_use_has_no_second_axis():
    table = sweep(exchange, {"count": [250, 2000]}, ranks=2, jobs=1,
                  network={"eager_limit": "4 KiB"})
    fig = plot_sweep(table)
    assert len(fig.axes) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["completed", "deadlock"]


def test_two_keys_map_every_cell_to_its_outcome():
    vary = {"buffer": [1024, 4096, 16384], "count": [1, 2, 3, 4]}
    table = table_of(vary, by_buffer)
    fig = plot_sweep(table)
    ax = fig.axes[0]
    mesh = next(c for c in ax.collections if isinstance(c, QuadMesh))
    grid = np.asarray(mesh.get_array()).reshape(len(vary["count"]), len(vary["buffer"]))
    for row in table:
        x, y = vary["buffer"].index(row["buffer"]), vary["count"].index(row["count"])
        category = "overflow" if row["error_class"] else row["outcome"]
        assert OUTCOME_ORDER[int(grid[y, x])] == category
    assert len(ax.texts) == len(table)  # few cells: each is annotated
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2", "3", "4"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["completed", "deadlock", "overflow (MPI_ERR_BUFFER)"]


def test_many_cells_are_not_annotated():
    table = table_of({"buffer": list(range(0, 20 * 1024, 1024)), "count": [1, 2, 3, 4]},
                     by_buffer)
    assert len(plot_sweep(table).axes[0].texts) == 0


def test_three_keys_draw_one_panel_per_value_of_the_third():
    vary = {"buffer": [1024, 8192], "count": [1, 3],
            "mpi.allocator": ["circular", "first-fit", "unbounded"]}
    fig = plot_sweep(table_of(vary, by_buffer))
    titled = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titled == [f"mpi.allocator = {a}" for a in vary["mpi.allocator"]]


def test_more_than_three_keys_fold_the_rest_into_the_worst_case():
    """Each cell of a four-key map is the worst run over the fourth key's values."""
    four = table_of({"a": [1, 2], "b": [1], "c": [1], "d": [1, 2, 3]},
                    lambda p: ("deadlock", "") if (p["a"], p["d"]) == (2, 3) else
                    ("error", "MPI_ERR_BUFFER") if p["d"] == 2 else ("completed", ""))
    folded = worst_over(four, ["a", "b", "c"])
    assert folded.keys == ["a", "b", "c"]
    assert folded.array["outcome"].tolist() == ["error", "deadlock"]
    assert folded.array["sim_time"].tolist() == [3e-6, 6e-6]
    fig = plot_sweep(four)
    assert fig.get_suptitle() == "synthetic: sweep of 6 runs\n(worst case over d)"


def test_refusals_are_clear():
    three = table_of({"a": [1], "b": [1], "c": [1]}, lambda p: ("completed", ""))
    with pytest.raises(ValueError, match="leave ax=None"):
        plot_sweep(three, ax=Figure().subplots())


def test_draws_into_a_given_axes_and_saves(tmp_path):
    table = table_of({"buffer": [1024, 4096], "count": [1, 3]}, by_buffer)
    fig = Figure()
    ax = fig.subplots()
    assert plot_sweep(table, ax=ax) is fig
    fig.savefig(tmp_path / "map.png")
    assert (tmp_path / "map.png").stat().st_size > 0


def test_a_sweep_of_nothing_says_so():
    table = sweep(exchange, {}, ranks=2, jobs=1)
    assert len(table) == 1
    assert plot_sweep(table).axes[0].texts[0].get_text() == "nothing varied"


def test_plotting_needs_no_pyplot():
    """Headless: figures are made with the object-oriented API, never pyplot's state."""
    script = textwrap.dedent("""
        import sys
        from mpisim.plot.sweepmap import plot_sweep
        from mpisim.whatif import SweepTable
        table = SweepTable.build({"buffer": [1, 2]}, [(1,), (2,)],
                                 [("completed", 1e-6, "", 0, 0), ("deadlock", 1e-6, "", 0, 0)])
        plot_sweep(table)
        print("matplotlib.pyplot" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "False"


def _rgb(color: str) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    return to_rgb(color)
