"""The attached buffer of one rank at one moment, byte by byte: the circular model (3.6.1).

The standard's model keeps a circular queue of pending message entries in the attached
buffer: entries are stored in successive locations, free space lies between the queue's
tail and its head, and a bsend that finds no room after the tail starts again at offset 0,
leaving the end of the buffer unused until the head passes it (the *wrap gap*). Entries are
reclaimed only from the head, at the next bsend, up to the first entry whose send has not
completed, so a completed entry behind a live one still takes space.

:func:`layout_at` rebuilds that picture from ``trace.entries`` (the entries of the attach
in force, allocated at or before the time and not yet freed then) and ``trace.buffer`` (the
capacity and counters of that moment; at a time with several events, the state after all
of them). :func:`plot_layout` draws it: entries by offset, live or completed, head and
tail, the wrap gap, and at an overflow the entry that did not fit, placed where it was
wanted. Head, tail and gap are drawn only when the entries form a circular queue (they do
not with the first-fit allocator).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ..values.units import format_time, parse_time
from .style import STATE_COLORS, axes_figure, format_bytes, readable, set_size_axis

__all__ = ["BufferLayout", "draw_layout", "layout_at", "plot_layout"]


@dataclass(frozen=True)
class BufferLayout:
    """One rank's attached buffer at ``time`` (:func:`layout_at` makes it; offsets and
    sizes are bytes).

    Parameters
    ----------
    rank
        The rank.
    time
        The simulated time, in seconds.
    capacity
        The buffer's size.
    attach
        Which attach of the rank it is (0: its first).
    entries
        Rows of ``trace.entries`` held at that time (in allocation order, oldest first).
    states
        ``"live"`` (its send not finished) or ``"completed"`` per entry.
    head
        Offset of the circular queue's head, or None (queue empty, or the entries are not
        a circular queue).
    tail
        Offset of the queue's tail, or None.
    wrap_gap
        ``(offset, size)`` of the unused end left by a wrap, or None.
    used
        Bytes held by entries.
    live
        Bytes held by entries whose send has not finished.
    largest_free
        The largest contiguous free block.
    event
        The last buffer event at that time (attach, bsend, complete, overflow, detach), or
        None.
    requested
        The bytes that event asked for (for an overflow: the entry that did not fit).
    """

    rank: int
    time: float
    capacity: int
    attach: int
    entries: np.ndarray
    states: list[str]
    head: int | None
    tail: int | None
    wrap_gap: tuple[int, int] | None
    used: int
    live: int
    largest_free: int
    event: str | None
    requested: int

    def _repr_png_(self) -> bytes:
        """Jupyter: the layout drawn (the figure is the answer)."""
        import io

        fig = Figure(figsize=(10, 2.6), layout="constrained")
        ax = fig.add_subplot()
        _draw(ax, self)
        ax.set_title(f"rank {self.rank}'s buffer at t = {format_time(self.time)}\n"
                     + _summary(self), fontsize="medium")
        readable(fig)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80, facecolor="white")
        return buf.getvalue()


def _arrays(result: Any, buffer: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The state rows and entries of the process buffers, or of the communicator or session
    buffers called ``buffer`` (``"comm lib"``, as in ``ranks[r].buffers``)."""
    trace = result.trace
    if buffer is None:
        return trace.buffer, trace.entries
    return (trace.named_buffers[trace.named_buffers["name"] == buffer],
            trace.named_entries[trace.named_entries["name"] == buffer])


def layout_at(result: Any, rank: int, time: float, buffer: str | None = None) -> BufferLayout:
    """The buffer of ``rank`` at ``time`` (seconds), after every event of that instant
    (``buffer``: a communicator's or session's, by name; default the process's).

    Parameters
    ----------
    result
        The Result of a run with its trace.
    rank
        The rank whose buffer is laid out.
    time
        The simulated time, in seconds.
    buffer
        The name of a communicator's or session's buffer (MPI 4.1), as the trace's
        ``named_buffers`` has it. Default: None, the process buffer.

    Returns
    -------
    BufferLayout
        The entries held, their offsets and states, head, tail and wrap gap.
    """
    states_rows, ent = _arrays(result, buffer)
    rows = states_rows[(states_rows["rank"] == rank) & (states_rows["time"] <= time)]
    if len(rows) == 0 or rows[-1]["event"] == "detach":
        last = rows[-1] if len(rows) else None
        return BufferLayout(rank, time, 0, -1, ent[:0], [], None, None, None, 0, 0,
                            0, None if last is None else str(last["event"]), 0)
    last = rows[-1]
    attach = int(np.count_nonzero(rows["event"] == "attach")) - 1
    held = ent[(ent["rank"] == rank) & (ent["attach"] == attach) & (ent["alloc"] <= time)
               & ~(ent["freed"] <= time)]
    held = held[np.argsort(held["alloc"], kind="stable")]
    states = ["completed" if d <= time else "live" for d in held["done"]]
    head, tail, gap = _queue(held, int(last["capacity"]))
    return BufferLayout(rank, time, int(last["capacity"]), attach, held, states, head, tail,
                        gap, int(last["used"]), int(last["live"]), int(last["largest_free"]),
                        str(last["event"]), int(last["requested"]))


def _queue(held: np.ndarray, capacity: int) -> tuple[int | None, int | None,
                                                     tuple[int, int] | None]:
    """Head, tail and wrap gap if ``held`` is a circular queue (contiguous, one wrap to 0)."""
    if len(held) == 0:
        return None, None, None
    offsets, ends = held["offset"], held["offset"] + held["size"]
    gap = None
    for i in range(1, len(held)):
        if offsets[i] == ends[i - 1]:
            continue
        if offsets[i] == 0 and gap is None:
            gap = (int(ends[i - 1]), capacity - int(ends[i - 1]))
            continue
        return None, None, None
    if gap is not None and gap[1] == 0:
        gap = None
    return int(offsets[0]), int(ends[-1]), gap


def plot_layout(result: Any, rank: int, time: float | str | None = None,
                ax: Axes | None = None, buffer: str | None = None) -> Figure:
    """The buffer of ``rank`` at ``time`` (default: its first overflow, else its peak used).

    Parameters
    ----------
    result
        The Result of a run with its trace (``trace=True``, the default).
    rank
        The rank whose buffer is drawn.
    time
        The simulated time, in seconds or with a unit (``"12us"``). Default: None, the
        rank's first overflow, else the moment of its peak used bytes.
    ax
        A matplotlib Axes to draw into (one of your own figure's). Default: None, a new
        Figure.
    buffer
        The name of a communicator's or session's buffer (MPI 4.1). Default: None, the
        process buffer.

    Returns
    -------
    Figure
        A matplotlib Figure (``fig.savefig("x.png")``; a notebook shows it), or ``ax``'s
        figure when ``ax`` is given.
    """
    size = len(result.ranks)
    if isinstance(rank, bool) or not isinstance(rank, int | np.integer) or not 0 <= rank < size:
        raise ValueError(f"rank: {rank!r} is not a rank in 0..{size - 1}")
    rank = int(rank)
    time, why = _default_time(result, rank, buffer) if time is None else (_check_time(time), "")
    lay = layout_at(result, rank, time, buffer)
    own = ax is None  # (a figure of mpisim's own: made readable at the end)
    if ax is None:
        fig = Figure(figsize=(10, 2.8), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = axes_figure(ax)
    _draw(ax, lay)
    which = "attached buffer" if buffer is None else f"buffer of {buffer}"
    title = f"{result.scenario}: rank {rank}'s {which} at t = {format_time(time)}{why}"
    ax.set_title(title + "\n" + _summary(lay), fontsize="medium")
    return readable(fig) if own else fig


def _check_time(time: Any) -> float:
    try:
        return parse_time(time)
    except ValueError as e:
        raise ValueError(f"time: {e}") from None


def _default_time(result: Any, rank: int, buffer: str | None = None) -> tuple[float, str]:
    states = _arrays(result, buffer)[0]
    rows = states[states["rank"] == rank]
    if len(rows) == 0:
        return 0.0, ""
    over = rows[rows["event"] == "overflow"]
    if len(over):
        return float(over["time"][0]), " (its first overflow)"
    return float(rows["time"][int(np.argmax(rows["used"]))]), " (its peak used)"


def _summary(lay: BufferLayout) -> str:
    if lay.capacity == 0:
        return "no buffer attached"
    text = (f"used {format_bytes(lay.used)} of {format_bytes(lay.capacity)}, live "
            f"{format_bytes(lay.live)}, {len(lay.entries)} "
            f"{'entry' if len(lay.entries) == 1 else 'entries'}, largest free block "
            f"{format_bytes(lay.largest_free)}")
    if lay.event == "overflow":
        text += f"; overflow: an entry of {format_bytes(lay.requested)} did not fit"
    return text


def draw_layout(ax: Axes, lay: BufferLayout) -> None:
    """Draw a layout into ``ax`` (for figures made elsewhere)."""
    _draw(ax, lay)


def _draw(ax: Axes, lay: BufferLayout) -> None:
    ax.set_yticks([])
    ax.set_ylim(-0.9, 1.6)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    if lay.capacity == 0:
        ax.text(0.5, 0.5, f"rank {lay.rank} has no buffer attached at this time",
                ha="center", va="center", transform=ax.transAxes, color="0.4")
        ax.set_xticks([])
        return
    handles: list[Any] = [Patch(facecolor=STATE_COLORS["free"], edgecolor="black", lw=0.8,
                                label="free")]
    ax.add_patch(Rectangle((0, 0), lay.capacity, 1, facecolor=STATE_COLORS["free"],
                           edgecolor="black", lw=0.8, zorder=1, gid="capacity"))
    for state, label in (("live", "live entry (send not completed)"),
                         ("completed", "completed, not reclaimed")):
        sel = lay.entries[[s == state for s in lay.states]] if len(lay.entries) else lay.entries
        if len(sel):
            ax.add_collection(PolyCollection(_boxes(sel["offset"], sel["size"]),
                                             facecolors=STATE_COLORS[state],
                                             edgecolors="black", linewidths=0.6, zorder=2,
                                             gid=f"entries:{state}"))
            handles.append(Patch(facecolor=STATE_COLORS[state], edgecolor="black",
                                 label=label))
    if lay.wrap_gap is not None:
        ax.add_patch(Rectangle((lay.wrap_gap[0], 0), lay.wrap_gap[1], 1, facecolor="none",
                               edgecolor=STATE_COLORS["wrap gap"], hatch="xx", lw=0.8,
                               zorder=2, gid="wrap gap"))
        handles.append(Patch(facecolor="none", edgecolor=STATE_COLORS["wrap gap"], hatch="xx",
                             label="wasted wrap gap"))
    handles += _draw_overflow(ax, lay)
    _label_entries(ax, lay)
    _mark_queue(ax, lay)
    ax.set_xlim(0, max(lay.capacity, _ghost_end(lay)) * 1.02)
    set_size_axis(ax.xaxis, lay.capacity, label="offset")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.32), ncols=4,
              fontsize="small", frameon=False)


def _boxes(offsets: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
    x0, x1 = offsets.astype(float), (offsets + sizes).astype(float)
    zero, one = np.zeros_like(x0), np.ones_like(x0)
    return list(np.stack([np.stack([x0, zero], 1), np.stack([x1, zero], 1),
                          np.stack([x1, one], 1), np.stack([x0, one], 1)], 1))


def _ghost_start(lay: BufferLayout) -> int:
    """Where the overflowing entry was wanted: after the tail (or at 0 for an empty queue)."""
    return lay.tail if lay.tail is not None else 0


def _ghost_end(lay: BufferLayout) -> int:
    return _ghost_start(lay) + lay.requested if lay.event == "overflow" else 0


def _draw_overflow(ax: Axes, lay: BufferLayout) -> list[Any]:
    if lay.event != "overflow" or lay.requested <= 0:
        return []
    ax.add_patch(Rectangle((_ghost_start(lay), 0.08), lay.requested, 0.84, facecolor="none",
                           edgecolor="#d62728", ls="--", lw=1.6, zorder=3, gid="requested"))
    return [Patch(facecolor="none", edgecolor="#d62728", ls="--",
                  label=f"requested entry ({format_bytes(lay.requested)}): overflow")]


def _label_entries(ax: Axes, lay: BufferLayout) -> None:
    if not 0 < len(lay.entries) <= 40:
        return
    for e in lay.entries:
        if e["size"] >= 0.04 * lay.capacity and e["msg"] >= 0:
            ax.text(e["offset"] + e["size"] / 2, 0.5, f"msg {e['msg']}\n"
                    f"{format_bytes(int(e['size']))}", ha="center", va="center",
                    fontsize="x-small", zorder=4, clip_on=True)


def _mark_queue(ax: Axes, lay: BufferLayout) -> None:
    if lay.head is None or lay.tail is None:
        return
    ax.annotate("head", (lay.head, 0), (lay.head, -0.55), ha="center", va="center",
                fontsize="small", arrowprops={"arrowstyle": "->", "lw": 1.2}, zorder=5)
    ax.annotate("tail", (lay.tail, 1), (lay.tail, 1.45), ha="center", va="center",
                fontsize="small", arrowprops={"arrowstyle": "->", "lw": 1.2}, zorder=5)
