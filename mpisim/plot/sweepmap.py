"""The outcome of a sweep at a glance: a line chart for one varied key, a map for two.

- **One key**: simulated time against the key's values (a marker per run, coloured by its
  outcome) and the peak used buffer bytes on a second axis, so where a run stops completing
  and what it costs in buffer space read off one chart.
- **Two keys**: a 2-D outcome map, the first key across, the second up; a cell per run,
  coloured by outcome: completed green, deadlock red, overflow (MPI_ERR_BUFFER) orange,
  any other error light orange, timeout grey. Few cells are annotated with the outcome and
  the peak used bytes.
- **Three keys**: one map per value of the third key (facets).
- **More keys**: the first three as above, each cell the worst run over the values of the
  others (deadlock, overflow, other error, timeout, then completed; the longest time and
  the largest peak), and the title says which keys were folded.

Values sit at equally spaced positions in the order the sweep ran them (geometric ranges
such as ``1KiB..64KiB:x2`` read naturally) and are labelled in their unit: bytes for sizes
(``buffer``, ``network.eager_limit``...), seconds for times (``network.latency``...).
Figures are made without pyplot (headless-safe) and returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..values.units import format_time
from .style import axes_figure, format_bytes, new_figure, set_size_axis, set_time_axis

__all__ = ["OUTCOME_COLORS", "OUTCOME_ORDER", "outcome_category", "plot_sweep", "worst_over"]

OUTCOME_ORDER = ("completed", "deadlock", "overflow", "error", "timeout")
OUTCOME_COLORS: dict[str, str] = {"completed": "#2ca02c", "deadlock": "#d62728",
                                  "overflow": "#ff7f0e", "error": "#fdbf6f",
                                  "timeout": "#8c8c8c"}
_SHORT = {"completed": "ok", "deadlock": "deadlock", "overflow": "overflow", "error": "error",
          "timeout": "timeout"}
SIZE_KEYS = {"buffer", "network.eager_limit", "network.system_buffer", "mpi.bsend_overhead"}
TIME_KEYS = {"network.latency", "network.overhead", "network.jitter", "until",
             "network.intra.latency"}
ANNOTATE_CELLS = 64
ANNOTATE_FACET_CELLS = 16
MAX_FACETS = 12
MAX_TICKS = 16


def outcome_category(outcome: str, error_class: str) -> str:
    """The colour class of a run: an error of class MPI_ERR_BUFFER is an overflow."""
    if outcome == "error" and error_class == "MPI_ERR_BUFFER":
        return "overflow"
    return outcome


def plot_sweep(table: Any, ax: Axes | None = None) -> Figure:
    """Draw a SweepTable: a line chart (one key), an outcome map (two), facets (three).

    Parameters
    ----------
    table
        The SweepTable :func:`mpisim.sweep` returned (one to three keys varied).
    ax
        A matplotlib Axes to draw into (one of your own figure's). Default: None, a new
        Figure.

    Returns
    -------
    Figure
        A matplotlib Figure (``fig.savefig("x.png")``; a notebook shows it), or ``ax``'s
        figure when ``ax`` is given.
    """
    keys = list(table.keys)
    runs = len(table.array)
    folded = keys[3:]
    if folded:
        table = worst_over(table, keys[:3])
        keys = keys[:3]
    array = table.array
    if len(keys) == 3 and ax is not None:
        raise ValueError("three varied keys draw one map per value of the third; leave ax=None")
    title = f"{table.scenario}: sweep of {runs} runs" if table.scenario else \
        f"sweep of {runs} runs"
    if folded:
        title += f"\n(worst case over {', '.join(folded)})"
    if not keys or len(array) == 0:
        fig, axes = (axes_figure(ax), [ax]) if ax is not None else new_figure(1)
        axes[0].text(0.5, 0.5, "nothing varied" if not keys else "no runs", ha="center",
                     va="center", transform=axes[0].transAxes)
        axes[0].set_axis_off()
        axes[0].set_title(title)
        return fig
    if len(keys) == 1:
        return _line_chart(table, keys[0], ax, title)
    if len(keys) == 2:
        fig, target = (axes_figure(ax), ax) if ax is not None else _single_map_figure(table)
        _outcome_map(target, table, keys[0], keys[1], np.ones(len(array), dtype=bool))
        target.set_title(title)
        _legend(fig, target, _present(array), outside=ax is None)
        return fig
    return _facets(table, keys, title)


def worst_over(table: Any, keep: list[str]) -> Any:
    """The table with one row per combination of ``keep``: the worst run of each (see the
    module docstring), with the longest sim_time and the largest peaks of the group."""
    array = table.array
    severity = {c: i for i, c in enumerate(("completed", "timeout", "error", "overflow",
                                            "deadlock"))}
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, row in enumerate(array[keep].tolist()):
        groups.setdefault(row if isinstance(row, tuple) else (row,), []).append(i)
    picks = []
    for members in groups.values():
        rows = array[members]
        cats = [outcome_category(o, e) for o, e in zip(rows["outcome"], rows["error_class"],
                                                       strict=True)]
        j = max(range(len(members)), key=lambda j: severity[cats[j]])
        row = rows[j].copy()
        for name in ("sim_time", "peak_used", "peak_live"):
            row[name] = np.nanmax(rows[name])
        picks.append(row)
    names = keep + [n for n in array.dtype.names if n not in table.keys]
    whole = np.array(picks, dtype=array.dtype)
    out = np.empty(len(whole), dtype=[(n, array.dtype[n]) for n in names])
    for n in names:
        out[n] = whole[n]
    vary = getattr(table, "vary", {})
    return SimpleNamespace(array=out, keys=list(keep), scenario=table.scenario,
                           vary={k: v for k, v in vary.items() if k in keep})


# -- one key ---------------------------------------------------------------------------------
def _line_chart(table: Any, key: str, ax: Axes | None, title: str) -> Figure:
    array = table.array
    values = _order(table, key)
    fig, axes = (axes_figure(ax), [ax]) if ax is not None else new_figure(1, min_height=4.0)
    main = axes[0]
    x = _positions(array[key], values)
    order = np.argsort(x, kind="stable")
    x, rows = x[order], array[order]
    categories = np.array([outcome_category(o, e) for o, e in
                           zip(rows["outcome"], rows["error_class"], strict=True)])
    numeric = array.dtype[key].kind in "iuf"
    if numeric:
        main.plot(x, rows["sim_time"], color="#555555", lw=1, zorder=1)
    for cat in OUTCOME_ORDER:
        sel = categories == cat
        if sel.any():
            main.scatter(x[sel], rows["sim_time"][sel], color=OUTCOME_COLORS[cat], s=36,
                         zorder=3, edgecolors="black", linewidths=0.4, label=cat)
    set_time_axis(main.yaxis, float(np.nanmax(rows["sim_time"])) if len(rows) else 0.0,
                  "simulated time")
    main.set_ylim(bottom=0)
    used = bool(rows["peak_used"].max() > 0)
    if used:  # no second axis when no run used an attached buffer
        twin = main.twinx()
        twin.plot(x, rows["peak_used"], color="#9467bd", ls="--", lw=1,
                  marker="." if numeric else "D", ms=5, zorder=2)
        set_size_axis(twin.yaxis, int(rows["peak_used"].max()), "peak used buffer")
        twin.set_ylim(bottom=0)
        twin.yaxis.label.set_color("#9467bd")
    _value_axis(main.xaxis, key, values)
    main.grid(True, alpha=0.3)
    main.set_title(title)
    handles = [_marker(c) for c in OUTCOME_ORDER if (categories == c).any()]
    if used:
        handles.append(Line2D([], [], color="#9467bd", ls="--", label="peak used buffer"))
    if ax is None:  # below the chart, never over its markers
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles),
                   fontsize="small", frameon=False)
    else:
        main.legend(handles=handles, loc="best", fontsize="small", framealpha=0.8)
    return fig


# -- two keys --------------------------------------------------------------------------------
def _single_map_figure(table: Any) -> tuple[Figure, Axes]:
    nx, ny = (len(_order(table, k)) for k in table.keys[:2])
    width = min(16.0, max(6.5, 3.8 + 0.85 * nx))
    height = min(11.0, max(3.5, 1.6 + 0.55 * ny))
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots()


def _outcome_map(ax: Axes, table: Any, xkey: str, ykey: str, rows: np.ndarray,
                 annotate: int = ANNOTATE_CELLS) -> None:
    array = table.array[rows]
    xs, ys = _order(table, xkey), _order(table, ykey)
    grid = np.full((len(ys), len(xs)), np.nan)
    peak = np.zeros((len(ys), len(xs)), dtype=np.int64)
    cats: dict[tuple[int, int], str] = {}
    xi, yi = _positions(array[xkey], xs), _positions(array[ykey], ys)
    for i, j, row in zip(yi, xi, array, strict=True):
        cat = outcome_category(str(row["outcome"]), str(row["error_class"]))
        grid[i, j] = OUTCOME_ORDER.index(cat)
        peak[i, j] = int(row["peak_used"])
        cats[(i, j)] = cat
    cmap = ListedColormap([OUTCOME_COLORS[c] for c in OUTCOME_ORDER]).with_extremes(
        bad="white")
    norm = BoundaryNorm(np.arange(len(OUTCOME_ORDER) + 1) - 0.5, cmap.N)
    ax.pcolormesh(np.arange(len(xs) + 1) - 0.5, np.arange(len(ys) + 1) - 0.5,
                  np.ma.masked_invalid(grid), cmap=cmap, norm=norm, edgecolors="white",
                  linewidth=0.8 if grid.size <= 400 else 0)
    if grid.size <= annotate:
        with_bytes = grid.size <= annotate // 2
        for (i, j), cat in cats.items():
            text = _SHORT[cat] + (f"\n{format_bytes(peak[i, j])}" if peak[i, j] and with_bytes
                                  else "")
            ax.text(j, i, text, ha="center", va="center", fontsize="x-small",
                    color="white" if cat in ("deadlock", "completed") else "black")
    _value_axis(ax.xaxis, xkey, xs)
    _value_axis(ax.yaxis, ykey, ys)
    ax.set_xlim(-0.5, len(xs) - 0.5)
    ax.set_ylim(-0.5, len(ys) - 0.5)


def _facets(table: Any, keys: list[str], title: str) -> Figure:
    xkey, ykey, fkey = keys
    facets = _order(table, fkey)
    if len(facets) > MAX_FACETS:
        raise ValueError(f"plot_sweep: {len(facets)} values of {fkey} would be "
                         f"{len(facets)} panels (at most {MAX_FACETS}); select rows first")
    ncols = min(4, len(facets))
    nrows = -(-len(facets) // ncols)
    nx, ny = len(_order(table, xkey)), len(_order(table, ykey))
    fig = Figure(figsize=(min(20.0, 2.5 + ncols * max(3.5, 1.2 + 0.7 * nx)),
                          min(16.0, nrows * max(3.0, 1.4 + 0.45 * ny) + 0.8)),
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    column = table.array[fkey]
    for n, value in enumerate(facets):
        ax = axes[n // ncols][n % ncols]
        _outcome_map(ax, table, xkey, ykey, _positions(column, facets) == n,
                     annotate=ANNOTATE_FACET_CELLS)
        ax.set_title(f"{fkey} = {_label(fkey, value)}", fontsize="medium")
    for n in range(len(facets), nrows * ncols):
        axes[n // ncols][n % ncols].set_axis_off()
    fig.suptitle(title)
    _legend(fig, None, _present(table.array), outside=True)
    return fig


# -- shared ----------------------------------------------------------------------------------
def _order(table: Any, key: str) -> list[Any]:
    """The key's values in the order swept (as stored in the table's column)."""
    column = table.array[key]
    given = getattr(table, "vary", {}).get(key)
    if given is not None:
        kind = column.dtype.kind
        stored = [("none" if v is None else str(v)) if kind == "U" else v for v in given]
        ordered = list(dict.fromkeys(stored))
        present = set(column.tolist())
        if all(v in present for v in ordered) and len(ordered) == len(present):
            return ordered
    return list(dict.fromkeys(column.tolist()))


def _positions(column: np.ndarray, values: Sequence[Any]) -> np.ndarray:
    index = {v: i for i, v in enumerate(values)}
    return np.array([index[v] for v in column.tolist()], dtype=np.intp)


def _label(key: str, value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return str(bool(value)).lower()
    if isinstance(value, int | float | np.integer | np.floating):
        if key in SIZE_KEYS or key.endswith(("_size", "bytes")):
            return _size_label(value)
        if key in TIME_KEYS:
            return format_time(float(value))
        return f"{value:g}" if isinstance(value, float | np.floating) else str(value)
    return str(value)


def _size_label(value: Any) -> str:
    """A size exactly: ``64 KiB``, ``1.5 KiB``, else whole bytes (``1700 B``)."""
    if not float(value).is_integer():
        return f"{value:g} B"
    n = int(value)
    for name, unit in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= unit and (n * 1000) % unit == 0:
            return f"{n / unit:g} {name}"
    return f"{n} B"


def _value_axis(axis: Any, key: str, values: Sequence[Any]) -> None:
    """Ticks at the swept values (thinned when many), labelled in the key's unit."""
    n = len(values)
    step = max(1, -(-n // MAX_TICKS))
    ticks = list(range(0, n, step))
    axis.set_ticks(ticks)
    axis.set_ticklabels([_label(key, values[i]) for i in ticks])
    axis.set_label_text(key)
    longest = max(len(_label(key, values[i])) for i in ticks) if ticks else 0
    inches = axis.axes.get_position().width * axes_figure(axis.axes).get_size_inches()[0]
    if axis.axis_name == "x" and len(ticks) * (longest + 2) > 8 * inches:  # ~8 chars/inch
        for label in axis.get_ticklabels():
            label.set_rotation(45)
            label.set_horizontalalignment("right")


def _present(array: np.ndarray) -> list[str]:
    cats = {outcome_category(o, e) for o, e in
            zip(array["outcome"], array["error_class"], strict=True)}
    return [c for c in OUTCOME_ORDER if c in cats]


def _marker(category: str) -> Line2D:
    return Line2D([], [], marker="o", ls="", color=OUTCOME_COLORS[category],
                  markeredgecolor="black", markeredgewidth=0.4, label=_legend_label(category))


def _legend(fig: Figure, ax: Axes | None, categories: list[str], outside: bool) -> None:
    handles = [_patch(c) for c in categories]
    if outside:
        fig.legend(handles=handles, loc="outside right upper", fontsize="small",
                   frameon=False, title="outcome")
    elif ax is not None:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  fontsize="small", frameon=False, title="outcome")


def _patch(category: str) -> Any:
    from matplotlib.patches import Patch

    return Patch(facecolor=OUTCOME_COLORS[category], edgecolor="black", linewidth=0.4,
                 label=_legend_label(category))


def _legend_label(category: str) -> str:
    return "overflow (MPI_ERR_BUFFER)" if category == "overflow" else category
