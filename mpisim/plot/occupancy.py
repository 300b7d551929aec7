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
    ``MAX_PANELS`` with the highest peak used). With ``ax`` all ranks share that one axes.
    """
    buffer = result.trace.buffer
    chosen, note = _select(result, ranks)
    end = _end_time(result, buffer)
    if ax is None:
        fig, axes = new_figure(max(1, len(chosen)), sharey=True)
    else:
        fig, axes = axes_figure(ax), [ax] * max(1, len(chosen))
    title = f"{result.scenario}: attached-buffer occupancy"
    if not chosen:
        _empty(axes[0], "no rank attached a buffer in this run")
    top = 1
    for i, (rank, target) in enumerate(zip(chosen, axes, strict=False)):
        rows = buffer[buffer["rank"] == rank]
        color = f"C{i % 10}" if ax is not None else None
        _draw_rank(target, rank, rows, end, color, label_rank=ax is not None)
        if len(rows):
            top = max(top, int(rows["capacity"].max()), int(rows["used"].max()))
    for target in dict.fromkeys(axes):
        set_time_axis(target.xaxis, end)
        set_size_axis(target.yaxis, top)
        target.set_xlim(0, end if end > 0 else 1e-9)
        target.set_ylim(0, top * 1.08)
        target.grid(True, alpha=0.3)
        if target.get_legend_handles_labels()[0]:
            target.legend(loc="upper right", fontsize="small", ncols=2)
    for target in axes[:-1] if ax is None else ():
        target.xaxis.label.set_visible(False)
    if ax is None:
        fig.suptitle(title + (f"\n{note}" if note else ""))
    else:
        ax.set_title(title + (f"\n{note}" if note else ""), fontsize="medium")
    return fig


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
    if len(t) and end > t[-1]:
        return np.append(t, end), np.append(v, v[-1])
    return t.copy(), v.copy()


def _draw_rank(ax: Axes, rank: int, rows: np.ndarray, end: float, color: str | None,
               label_rank: bool) -> None:
    prefix = f"rank {rank} " if label_rank else ""
    if len(rows) == 0:
        if not label_rank:
            _empty(ax, f"rank {rank} never attached a buffer")
        return
    t, used = _extended(rows, "used", end)
    ax.step(t, used, where="post", color=color or "#1f77b4", lw=1.6, label=prefix + "used",
            gid=f"used:{rank}")
    t, live = _extended(rows, "live", end)
    ax.step(t, live, where="post", color=color or "#ff7f0e", lw=1.2,
            ls="--" if label_rank else "-", label=prefix + "live", gid=f"live:{rank}")
    t, cap = _extended(rows, "capacity", end)
    ax.step(t, cap, where="post", color=color or "black", lw=1.0, ls=":" if label_rank else "--",
            alpha=0.8, label=prefix + "capacity", gid=f"capacity:{rank}")
    over = rows[rows["event"] == "overflow"]
    if len(over):
        ax.plot(over["time"], over["used"], ls="none", marker="X", ms=9, color="#d62728",
                mec="white", mew=0.8, zorder=5, label=f"{prefix}overflow ({len(over)})",
                gid=f"overflow:{rank}")
    if not label_rank:
        peak = int(rows["used"].max())
        ax.set_title(f"rank {rank}: peak used {format_bytes(peak)}, peak live "
                     f"{format_bytes(int(rows['live'].max()))}", fontsize="medium", loc="left")


def _empty(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
