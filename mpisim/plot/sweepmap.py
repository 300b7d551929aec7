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

Axes are to scale: numeric values (numbers, or sizes and times written with units, such as
``"4 KiB"``) sit at their value, on a logarithmic axis when they grow by a factor (a
geometric range such as ``1KiB..64KiB:x2``, spanning 8x or more) and a linear one otherwise;
a map's cells reach halfway to their neighbours. Every swept value has its tick (thinned
beyond ``MAX_TICKS``), labelled in its unit: bytes for sizes (``buffer``,
``network.eager_limit``...), seconds for times (``network.latency``...), bytes per second
for bandwidths. Values that are not numbers (profiles, policies) sit at equally spaced
positions in the order the sweep ran them. Figures are made without pyplot (headless-safe)
and returned, their text at least ``MIN_FONT`` points (:func:`~.style.readable`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from ..values.units import UnitError, format_time, parse_bandwidth, parse_size, parse_time
from .style import axes_figure, format_bytes, new_figure, readable, set_size_axis, set_time_axis

__all__ = ["OUTCOME_COLORS", "OUTCOME_ORDER", "outcome_category", "plot_sweep", "worst_over"]

OUTCOME_ORDER = ("completed", "deadlock", "overflow", "error", "timeout")
OUTCOME_COLORS: dict[str, str] = {"completed": "#2ca02c", "deadlock": "#d62728",
                                  "overflow": "#ff7f0e", "error": "#fdbf6f",
                                  "timeout": "#8c8c8c"}
_SHORT = {"completed": "ok", "deadlock": "deadlock", "overflow": "overflow", "error": "error",
          "timeout": "timeout"}
SIZE_KEYS = {"buffer", "network.eager_limit", "network.system_buffer", "network.eager_box",
             "network.local_send_limit", "mpi.bsend_overhead", "mpi.alignment"}
TIME_KEYS = {"network.latency", "network.overhead", "network.jitter", "until",
             "network.intra.latency", "mpi.io_latency"}
BANDWIDTH_KEYS = {"network.bandwidth", "network.intra.bandwidth", "mpi.copy_bandwidth",
                  "mpi.io_bandwidth"}
"""The settings of each unit (mpisim.runs.settings declares them; a test keeps them equal)."""
LOG_RATIO = 8
"""Positive values spanning this factor or more, closer to evenly spaced as logarithms than
as numbers, get a logarithmic axis."""
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
    elif len(keys) == 1:
        fig = _line_chart(table, keys[0], ax, title)
    elif len(keys) == 2:
        fig, target = (axes_figure(ax), ax) if ax is not None else _single_map_figure(table)
        _outcome_map(target, table, keys[0], keys[1], np.ones(len(array), dtype=bool))
        target.set_title(title)
        _legend(fig, target, _present(array), outside=ax is None)
    else:
        fig = _facets(table, keys, title)
    return fig if ax is not None else readable(fig)


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
    scale = _scale(table, key)
    fig, axes = (axes_figure(ax), [ax]) if ax is not None else new_figure(1, min_height=4.0)
    main = axes[0]
    x = scale.centers[_positions(array[key], scale.values)]
    order = np.argsort(x, kind="stable")
    x, rows = x[order], array[order]
    categories = np.array([outcome_category(o, e) for o, e in
                           zip(rows["outcome"], rows["error_class"], strict=True)])
    numeric = scale.numeric
    if numeric:
        main.plot(x, rows["sim_time"], color="#555555", lw=1, zorder=1)
    for cat in OUTCOME_ORDER:
        sel = categories == cat
        if sel.any():
            main.scatter(x[sel], rows["sim_time"][sel], color=OUTCOME_COLORS[cat], s=36,
                         zorder=3, edgecolors="black", linewidths=0.4, label=cat)
    longest = float(np.nanmax(rows["sim_time"])) if len(rows) else 0.0
    if longest > 0:
        set_time_axis(main.yaxis, longest, "simulated time")
        main.set_ylim(bottom=0)
    else:  # every run ended at t = 0: one instant, said as such (not an empty axis)
        main.set_ylim(-1.0, 1.0)
        main.set_yticks([0.0], ["0"])
        main.set_ylabel("simulated time: every run ended at t = 0")
    used = bool(rows["peak_used"].max() > 0)
    if used:  # no second axis when no run used an attached buffer
        twin = main.twinx()
        twin.plot(x, rows["peak_used"], color="#9467bd", ls="--", lw=1,
                  marker="." if numeric else "D", ms=5, zorder=2)
        set_size_axis(twin.yaxis, int(rows["peak_used"].max()), "peak used buffer")
        twin.set_ylim(bottom=0)
        twin.yaxis.label.set_color("#9467bd")
    _value_axis(main.xaxis, key, scale)
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
    sx, sy = _scale(table, xkey), _scale(table, ykey)
    xs, ys = sx.values, sy.values
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
    ax.pcolormesh(sx.edges, sy.edges, np.ma.masked_invalid(grid), cmap=cmap, norm=norm,
                  edgecolors="white", linewidth=0.8 if grid.size <= 400 else 0)
    if grid.size <= annotate:
        with_bytes = grid.size <= annotate // 2
        for (i, j), cat in cats.items():
            text = _SHORT[cat] + (f"\n{format_bytes(peak[i, j])}" if peak[i, j] and with_bytes
                                  else "")
            ax.text(sx.centers[j], sy.centers[i], text, ha="center", va="center",
                    fontsize="x-small",
                    color="white" if cat in ("deadlock", "completed") else "black")
    _value_axis(ax.xaxis, xkey, sx)
    _value_axis(ax.yaxis, ykey, sy)
    ax.set_xlim(sx.edges[0], sx.edges[-1])
    ax.set_ylim(sy.edges[0], sy.edges[-1])


def _facets(table: Any, keys: list[str], title: str) -> Figure:
    xkey, ykey, fkey = keys
    scale = _scale(table, fkey)
    facets = scale.values
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
    for n, label in enumerate(scale.labels):
        ax = axes[n // ncols][n % ncols]
        _outcome_map(ax, table, xkey, ykey, _positions(column, facets) == n,
                     annotate=ANNOTATE_FACET_CELLS)
        ax.set_title(f"{fkey} = {label}", fontsize="medium")
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
        if _is_size(key):
            return _size_label(value)
        if key in TIME_KEYS:
            return format_time(float(value))
        if key in BANDWIDTH_KEYS:
            return _bandwidth_label(float(value))
        if isinstance(value, float | np.floating) and float(value).is_integer():
            return str(int(value))
        return f"{value:g}" if isinstance(value, float | np.floating) else str(value)
    return str(value)


def _bandwidth_label(value: float) -> str:
    """Bytes per second in decimal units, as written in settings: ``10 GB/s``."""
    for name, unit in (("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if abs(value) >= unit:
            return f"{value / unit:g} {name}"
    return f"{value:g} B/s"


def _size_label(value: Any) -> str:
    """A size exactly: ``64 KiB``, ``1.5 KiB``, else whole bytes (``1700 B``)."""
    if not float(value).is_integer():
        return f"{value:g} B"
    n = int(value)
    for name, unit in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= unit and (n * 1000) % unit == 0:
            return f"{n / unit:g} {name}"
    return f"{n} B"


@dataclass
class _Scale:
    """Where a key's values sit on its axis: ``values`` in drawing order (ascending when
    numeric), ``centers`` their positions, ``edges`` the boundaries of their map cells,
    ``labels`` their tick labels (with units), ``log`` whether the axis is logarithmic."""

    values: list[Any]
    centers: np.ndarray
    edges: np.ndarray
    labels: list[str]
    log: bool
    numeric: bool


def _scale(table: Any, key: str) -> _Scale:
    """The key's axis: to scale when its values are numbers (see the module docstring)."""
    values = _order(table, key)
    numbers = _numbers(key, values)
    if numbers is None or len(np.unique(numbers)) != len(values) or len(values) < 2:
        n = len(values)
        named = getattr(table, "cell_text", None)  # a profile: mpich (MPICH 4.0)
        labels = [named(key, v) if named and key == "mpi.profile" else _label(key, v)
                  for v in values]
        return _Scale(values, np.arange(n, dtype=float), np.arange(n + 1) - 0.5, labels,
                      False, False)
    order = np.argsort(numbers, kind="stable")
    numbers = numbers[order]
    values = [values[i] for i in order]
    log = bool(numbers[0] > 0 and numbers[-1] >= LOG_RATIO * numbers[0]
               and _spread(np.log(numbers)) <= _spread(numbers))
    at = np.log(numbers) if log else numbers
    middle = (at[1:] + at[:-1]) / 2
    bounds = np.concatenate([[2 * at[0] - middle[0]], middle, [2 * at[-1] - middle[-1]]])
    return _Scale(values, numbers, np.exp(bounds) if log else bounds,
                  [_label(key, v) for v in numbers], log, True)


def _spread(points: np.ndarray) -> float:
    """How unevenly ``points`` (ascending) are spaced: the spread of their gaps, relative."""
    gaps = np.diff(points)
    return float(np.std(gaps) / np.mean(gaps)) if len(gaps) and np.mean(gaps) > 0 else 0.0


def _numbers(key: str, values: Sequence[Any]) -> np.ndarray | None:
    """The values as numbers (sizes, times and bandwidths written with units parsed), or
    None when one is not a number (a profile name, ``AUTOMATIC``, a boolean)."""
    parse = parse_size if _is_size(key) else parse_time if key in TIME_KEYS else \
        parse_bandwidth if key in BANDWIDTH_KEYS else float
    out = []
    for v in values:
        if isinstance(v, bool | np.bool_):
            return None
        if isinstance(v, int | float | np.integer | np.floating):
            out.append(float(v))
            continue
        try:
            out.append(float(parse(v)))
        except (TypeError, ValueError, UnitError, OverflowError):
            return None
    numbers = np.array(out, dtype=float)
    return numbers if np.isfinite(numbers).all() else None


def _is_size(key: str) -> bool:
    return key in SIZE_KEYS or key.endswith(("_size", "bytes"))


def _value_axis(axis: Any, key: str, scale: _Scale) -> None:
    """Ticks at the swept values (thinned when many), labelled in the key's unit; a
    logarithmic axis for a geometric range."""
    if scale.log:
        (axis.axes.set_xscale if axis.axis_name == "x" else axis.axes.set_yscale)("log")
    n = len(scale.values)
    step = max(1, -(-n // MAX_TICKS))
    ticks = list(range(0, n, step))
    axis.set_ticks([scale.centers[i] for i in ticks])
    axis.set_ticklabels([scale.labels[i] for i in ticks])
    axis.set_minor_locator(NullLocator())
    axis.set_label_text(f"{key} (log scale)" if scale.log else key)
    longest = max(len(scale.labels[i]) for i in ticks) if ticks else 0
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
