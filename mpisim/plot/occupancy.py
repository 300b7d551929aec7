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
With many ranks the default shows the ranks with the highest peak used, and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .style import axes_figure, format_bytes, new_figure, set_size_axis, set_time_axis

__all__ = ["MAX_PANELS", "plot_occupancy"]

MAX_PANELS = 8
"""At most this many ranks are drawn by default (those with the highest peak used)."""


def plot_occupancy(result: Any, ranks: Sequence[int] | None = None,
                   ax: Axes | None = None) -> Figure:
    """Used and live bytes of the attached buffer over time, one panel per rank.

    ``ranks``: which ranks to draw (default: every rank that attached a buffer, or the
    ``MAX_PANELS`` with the highest peak used). With ``ax`` all ranks share that one axes,
    a colour per rank.
    """
    buffer = result.trace.buffer
    chosen, note = _select(result, ranks)
    end = _end_time(result, buffer)
    overlay = ax is not None
    if ax is None:
        fig, axes = new_figure(max(1, len(chosen)), sharey=True,
                               row_height=2.4 if len(chosen) <= 3 else 1.5)
    else:
        fig, axes = axes_figure(ax), [ax] * max(1, len(chosen))
    if not chosen:
        _empty(axes[0], "no rank attached a buffer in this run")
    top = 1
    for i, (rank, target) in enumerate(zip(chosen, axes, strict=False)):
        rows = buffer[buffer["rank"] == rank]
        _draw_rank(target, rank, rows, end, f"C{i % 10}" if overlay else None)
        if len(rows):
            top = max(top, int(rows["capacity"].max()), int(rows["used"].max()))
    for target in dict.fromkeys(axes):
        set_time_axis(target.xaxis, end)
        set_size_axis(target.yaxis, top)
        target.set_xlim(0, end if end > 0 else 1e-9)
        target.set_ylim(0, top * 1.08)
        target.grid(True, alpha=0.3)
    title = f"{result.scenario}: attached-buffer occupancy" + (f"\n{note}" if note else "")
    handles, labels = _legend_entries(axes)
    if overlay:
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
    return fig


def _legend_entries(axes: list[Axes]) -> tuple[list[Any], list[str]]:
    """One legend entry per label over all panels (the panels share their styles)."""
    seen: dict[str, Any] = {}
    for target in dict.fromkeys(axes):
        for handle, label in zip(*target.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    return list(seen.values()), list(seen)


def _select(result: Any, ranks: Sequence[int] | None) -> tuple[list[int], str]:
    """The ranks to draw and a note for the title when not all buffered ranks are shown."""
    size = len(result.ranks)
    buffer = result.trace.buffer
    if ranks is not None:
        chosen = [_check_rank(r, size) for r in ranks]
        return list(dict.fromkeys(chosen)), ""
    present = sorted({int(r) for r in buffer["rank"]})
    if len(present) <= MAX_PANELS:
        return present, ""
    peaks = {r: int(buffer["used"][buffer["rank"] == r].max()) for r in present}
    top = sorted(present, key=lambda r: (-peaks[r], r))[:MAX_PANELS]
    return sorted(top), (f"{MAX_PANELS} of {len(present)} ranks with a buffer: "
                         "those with the highest peak used")


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
            label=prefix + "used (held + wrap gap)", gid=f"used:{rank}")
    t, live = _extended(rows, "live", end)
    ax.step(t, live, where="post", color=color or "#ff7f0e", lw=1.2, ls="--" if color else "-",
            label=prefix + "live (send not completed)", gid=f"live:{rank}")
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


def _empty(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
