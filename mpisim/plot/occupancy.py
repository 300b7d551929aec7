"""Occupancy of each rank's attached buffer over simulated time.

Two curves per rank, both from ``trace.buffer``: *used* (bytes not available to the next
bsend: every entry still held, including completed entries not yet reclaimed, plus the gap
wasted at the end by a wrap) and *live* (bytes of entries whose send has not completed).
The distance between them is what the standard's model (3.6.1) loses by reclaiming only
from the head of its queue, at the next bsend. The capacity is a dashed line (0 while no
buffer is attached) and every overflow (MPI_ERR_BUFFER) is a cross at the used bytes of
that moment.

Each curve holds the trace rows of its rank exactly (time in seconds, bytes), plus one last
point at the end of the run repeating the final state, so the step reaches the right edge.
Panels put the ranks that failed (the error's rank, blocked or unfinished ranks, those that
overflowed: ``Result.failing_ranks``) first. With more than ``MAX_PANELS`` ranks holding a
buffer the default is an aggregate panel (at every change of any rank: the largest and the
mean used bytes over the ranks, the largest live bytes, every overflow) followed by the
failing ranks, then the ranks with the highest peak used; the title says so.

A run that ended at t = 0 has no time axis to draw on: each panel then shows the rank's
buffer layout at t = 0 (what :func:`~mpisim.plot.layout.plot_layout` draws), which is what
explains an overflow at the first bsend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .layout import draw_layout, layout_at
from .style import axes_figure, format_bytes, new_figure, readable, set_size_axis, set_time_axis

__all__ = ["MAX_PANELS", "aggregate", "plot_occupancy"]

MAX_PANELS = 6
"""At most this many panels by default: beyond it, an aggregate and the highest peaks."""


USED = "used (held + wrap gap)"
LIVE = "live (send not completed)"


def plot_occupancy(result: Any, ranks: Sequence[int] | None = None,
                   ax: Axes | None = None) -> Figure:
    """Used and live bytes of the attached buffer over time, one panel per rank.

    ``ranks``: which ranks to draw (default: every rank that attached a buffer; beyond
    ``MAX_PANELS`` of them, an aggregate panel and the ranks with the highest peak used).
    With ``ax`` everything shares that one axes, a colour per rank (by default with many
    ranks: the aggregate only).

    Parameters
    ----------
    result
        The Result of a run with its trace (``trace=True``, the default).
    ranks
        The ranks to draw, in this order. Default: None, every rank that attached a buffer
        (beyond 6: the failing ranks, the highest peaks and an aggregate panel).
    ax
        A matplotlib Axes to draw into (one of your own figure's). Default: None, a new
        Figure.

    Returns
    -------
    Figure
        A matplotlib Figure (``fig.savefig("x.png")``; a notebook shows it), or ``ax``'s
        figure when ``ax`` is given.
    """
    buffer = result.trace.buffer
    chosen, aggregate, note = _select(result, ranks)
    end = _end_time(result, buffer)
    if end <= 0 and len(buffer) and ax is None:
        return _layouts_at_zero(result, chosen or sorted(set(buffer["rank"].tolist())))
    overlay = ax is not None
    if overlay and aggregate:
        chosen = []
    npanels = max(1, len(chosen) + bool(aggregate))
    if ax is None:
        fig, axes = new_figure(npanels, sharey=True, row_height=2.4 if npanels <= 3 else 1.6)
    else:
        fig, axes = axes_figure(ax), [ax] * npanels
    if not chosen and not aggregate:
        _empty(axes[0], "no rank attached a buffer in this run")
    if aggregate:
        _draw_aggregate(axes[0], buffer, aggregate, end)
    drawn = buffer[np.isin(buffer["rank"], [*chosen, *aggregate])]
    top = max(1, int(drawn["capacity"].max(initial=0)), int(drawn["used"].max(initial=0)))
    named = result.trace.named_buffers
    if len(named):
        top = max(top, int(named["capacity"].max(initial=0)), int(named["used"].max(initial=0)))
    for i, (rank, target) in enumerate(zip(chosen, axes[bool(aggregate):], strict=False)):
        _draw_rank(target, rank, buffer[buffer["rank"] == rank], end,
                   f"C{i % 10}" if overlay else None)
        if not overlay and len(named):
            _draw_named(target, named[named["rank"] == rank], end)
    _set_axes(axes, end, top)
    title = f"{result.scenario}: attached-buffer occupancy" + (f"\n{note}" if note else "")
    warning = unreceived_note(result)
    if warning:
        title += f"\n{warning}"
    _label(fig, axes, ax, title)
    return fig if ax is not None else readable(fig)


def _set_axes(axes: list[Axes], end: float, top: int) -> None:
    """The time and size axes of every panel (once per axes when they are shared)."""
    for target in dict.fromkeys(axes):
        set_time_axis(target.xaxis, end)
        set_size_axis(target.yaxis, top)
        target.set_xlim(0, end * 1.02 if end > 0 else 1e-9)  # room for a marker at the end
        target.set_ylim(0, top * 1.08)
        target.grid(True, alpha=0.3)


def _label(fig: Figure, axes: list[Axes], ax: Axes | None, title: str) -> None:
    """The title and legend: on the user's ``ax`` beside it, else on the figure below."""
    handles, labels = _legend_entries(axes)
    if ax is not None:
        ax.set_title(title, fontsize="medium")
        if handles:
            ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                      fontsize="small", frameon=False)
    else:
        for target in axes[:-1]:
            target.xaxis.label.set_visible(False)
        fig.suptitle(title)
        if handles:
            fig.legend(handles, labels, loc="outside lower center", ncols=4, fontsize="small",
                       frameon=False)


def _legend_entries(axes: list[Axes]) -> tuple[list[Any], list[str]]:
    """One legend entry per label over all panels (the panels share their styles)."""
    seen: dict[str, Any] = {}
    for target in dict.fromkeys(axes):
        for handle, label in zip(*target.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    return list(seen.values()), list(seen)


def _select(result: Any, ranks: Sequence[int] | None) -> tuple[list[int], list[int], str]:
    """The ranks to draw, the ranks to aggregate (none: no aggregate panel), a title note."""
    size = len(result.ranks)
    buffer = result.trace.buffer
    if ranks is not None:
        chosen = [_check_rank(r, size) for r in ranks]
        return list(dict.fromkeys(chosen)), [], ""
    present = np.unique(buffer["rank"]).tolist()
    failing = [r for r in _failing(result) if r in present]
    if len(present) <= MAX_PANELS:
        return failing + [r for r in present if r not in failing], [], ""
    peaks = np.zeros(max(size, max(present) + 1), dtype=np.int64)
    np.maximum.at(peaks, buffer["rank"], buffer["used"])
    shown = failing[:MAX_PANELS - 1]
    rest = sorted((r for r in present if r not in shown), key=lambda r: (-int(peaks[r]), r))
    top = shown + sorted(rest[:MAX_PANELS - 1 - len(shown)])
    highest = f"the {len(top) - len(shown)} with the highest peak used"
    which = f"the {len(shown)} failing, then {highest}" if shown else highest
    return top, present, f"all {len(present)} ranks with a buffer, then {which}"


def unreceived_note(result: Any) -> str:
    """A title line warning of messages never received (the report lists them)."""
    unreceived = getattr(result, "unreceived", None) or []
    if not unreceived:
        return ""
    shown = ", ".join(f"{u['src']}->{u['dst']} tag {u['tag']}" for u in unreceived[:3])
    more = f" +{len(unreceived) - 3}" if len(unreceived) > 3 else ""
    return f"warning: {len(unreceived)} message(s) never received ({shown}{more}): erroneous"


def _failing(result: Any) -> list[int]:
    method = getattr(result, "failing_ranks", None)
    return list(method()) if method is not None else []


def _layouts_at_zero(result: Any, ranks: list[int]) -> Figure:
    """The run ended at t = 0: each rank's buffer layout then, instead of empty axes."""
    shown = ranks[:MAX_PANELS]
    fig = Figure(figsize=(10, 1.2 + 2.2 * len(shown)), layout="constrained")
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    for rank, target in zip(shown, axes, strict=True):
        draw_layout(target, layout_at(result, rank, 0.0))
        target.set_title(f"rank {rank}", fontsize="small", loc="left")
    more = f" (first {len(shown)} of {len(ranks)} ranks)" if len(ranks) > len(shown) else ""
    fig.suptitle(f"{result.scenario}: the run ended at t = 0; the attached buffers then{more}")
    return readable(fig)


def aggregate(buffer: np.ndarray, ranks: Sequence[int]) -> dict[str, np.ndarray]:
    """The ranks' state at every time any of them changed (after all changes at that time):
    ``time``, ``max_used``, ``mean_used``, ``max_live``, ``max_capacity``."""
    rows = buffer[np.isin(buffer["rank"], ranks)]
    grid = np.unique(rows["time"])
    out = {"time": grid, "max_used": np.zeros(len(grid), np.int64),
           "mean_used": np.zeros(len(grid)), "max_live": np.zeros(len(grid), np.int64),
           "max_capacity": np.zeros(len(grid), np.int64)}
    order = np.argsort(rows["rank"], kind="stable")  # by rank, each rank in time order
    rows = rows[order]
    starts = np.flatnonzero(np.r_[True, rows["rank"][1:] != rows["rank"][:-1]])
    for mine in np.split(rows, starts[1:]):
        last = np.searchsorted(mine["time"], grid, side="right") - 1
        held = last >= 0
        for field, key in (("used", "max_used"), ("live", "max_live"),
                           ("capacity", "max_capacity")):
            value = np.where(held, mine[field][np.maximum(last, 0)], 0)
            np.maximum(out[key], value, out=out[key])
            if field == "used":
                out["mean_used"] += value
    out["mean_used"] /= max(1, len(ranks))
    return out


def _draw_aggregate(ax: Axes, buffer: np.ndarray, ranks: list[int], end: float) -> None:
    agg = aggregate(buffer, ranks)
    t = np.append(agg["time"], max(end, agg["time"][-1]))

    def held(key: str) -> np.ndarray:
        return np.append(agg[key], agg[key][-1])

    ax.fill_between(t, held("max_used"), step="post", color="#1f77b4", alpha=0.12, lw=0)
    ax.step(t, held("max_used"), where="post", color="#1f77b4", lw=2.2,
            label=USED, gid="used:max")
    ax.step(t, held("mean_used"), where="post", color="#1f77b4", lw=1.2, ls="--",
            label="used, mean over ranks", gid="used:mean")
    ax.step(t, held("max_live"), where="post", color="#ff7f0e", lw=1.2,
            label=LIVE, gid="live:max")
    ax.step(t, held("max_capacity"), where="post", color="black", lw=1.0, ls="--",
            label="capacity", gid="capacity:max")
    rows = buffer[np.isin(buffer["rank"], ranks)]
    over = rows[rows["event"] == "overflow"]
    if len(over):
        ax.plot(over["time"], over["used"], ls="none", marker="X", ms=9, color="#d62728",
                mec="white", mew=0.8, zorder=5, label="overflow (MPI_ERR_BUFFER)",
                gid="overflow:all")
    text = f"all {len(ranks)} ranks with a buffer: the largest at each instant, and the mean used"
    if len(over):
        text += f": {len(over)} overflow{'s' if len(over) > 1 else ''} in " \
                f"{len(np.unique(over['rank']))} rank(s)"
    ax.set_title(text, fontsize="medium", loc="left")


def _check_rank(rank: Any, size: int) -> int:
    if isinstance(rank, bool) or not isinstance(rank, int | np.integer):
        raise ValueError(f"ranks: expected rank numbers, got {rank!r}")
    if not 0 <= rank < size:
        raise ValueError(f"ranks: rank {rank} is not in 0..{size - 1}")
    return int(rank)


def _end_time(result: Any, rows: np.ndarray) -> float:
    end = float(result.sim_time) if result.sim_time is not None else 0.0
    if not np.isfinite(end):
        end = 0.0
    if len(rows):
        end = max(end, float(rows["time"].max()))
    return end


def _extended(rows: np.ndarray, field: str, end: float) -> tuple[np.ndarray, np.ndarray]:
    """The rows' (time, value) plus the final state held until ``end``."""
    t, v = rows["time"], rows[field]
    return np.append(t, max(end, t[-1])), np.append(v, v[-1])


def _draw_rank(ax: Axes, rank: int, rows: np.ndarray, end: float,
               color: str | None) -> None:
    """The steps of one rank; ``color`` set: several ranks share ``ax`` (labels name them)."""
    prefix = f"rank {rank} " if color else ""
    if len(rows) == 0:
        if not color:
            _empty(ax, f"rank {rank} never attached a buffer")
        return
    t, used = _extended(rows, "used", end)
    if not color:
        ax.fill_between(t, used, step="post", color="#1f77b4", alpha=0.18, lw=0)
    ax.step(t, used, where="post", color=color or "#1f77b4", lw=2.2,
            label=prefix + USED, gid=f"used:{rank}")
    t, live = _extended(rows, "live", end)
    ax.step(t, live, where="post", color=color or "#ff7f0e", lw=1.2, ls="--" if color else "-",
            label=prefix + LIVE, gid=f"live:{rank}")
    t, cap = _extended(rows, "capacity", end)
    ax.step(t, cap, where="post", color=color or "black", lw=1.0, ls=":" if color else "--",
            label=prefix + "capacity", gid=f"capacity:{rank}")
    over = rows[rows["event"] == "overflow"]
    if len(over):
        ax.plot(over["time"], over["used"], ls="none", marker="X", ms=9, color="#d62728",
                mec="white", mew=0.8, zorder=5, label="overflow (MPI_ERR_BUFFER)",
                gid=f"overflow:{rank}")
    if not color:
        text = (f"rank {rank}: peak used {format_bytes(int(rows['used'].max()))}, peak live "
                f"{format_bytes(int(rows['live'].max()))}")
        if len(over):
            text += f", {len(over)} overflow{'s' if len(over) > 1 else ''}"
        ax.set_title(text, fontsize="medium", loc="left")


_NAMED_COLOURS = ("#2ca02c", "#9467bd", "#8c564b", "#e377c2")


def _draw_named(ax: Axes, rows: np.ndarray, end: float) -> None:
    """A rank's communicator and session buffers (MPI 4.1): their used bytes, one colour
    each, with their overflows."""
    for k, name in enumerate(dict.fromkeys(rows["name"].tolist())):
        mine = rows[rows["name"] == name]
        t, used = _extended(mine, "used", end)
        colour = _NAMED_COLOURS[k % len(_NAMED_COLOURS)]
        ax.step(t, used, where="post", color=colour, lw=1.8, label=f"{name}: used",
                gid=f"named:{name}")
        over = mine[mine["event"] == "overflow"]
        if len(over):
            ax.plot(over["time"], over["used"], ls="none", marker="X", ms=9, color="#d62728",
                    mec="white", mew=0.8, zorder=5, label="overflow (MPI_ERR_BUFFER)")


def _empty(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
