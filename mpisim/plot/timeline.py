"""The space-time diagram of a run: who sent what to whom, and when.

One lane per rank (rank 0 on top), time to the right. Every call interval of
``trace.calls`` is a bar coloured by call kind; a call that never returned (the rank was
still blocked when the run ended: a deadlock or a timeout) is drawn up to the end of the
run, hatched and outlined in red. Every delivered message of ``trace.messages`` is an arrow
from (post, source lane) to (recv_done, destination lane), coloured by send mode; a message
never delivered is a hollow marker at its post time on the sender's lane. One-sided
communication (MPI 4.1 §12) adds its epochs as thin spans under each lane's call bars
(``gid="epochs:<kind>"``: fence, start, post, lock, lock_all) and its operations as dashed
arrows from (made, origin lane) to (applied, target lane) (``gid="rma:<call>"``).

Artists keep the trace's numbers (seconds): one PolyCollection of bars per call kind
(``gid="calls:<name>"``), one Quiver of arrows per mode (``gid="messages:<mode>"``), so the
drawing can be checked against the trace. With more than ``MAX_LANES`` ranks, or more than
``max_messages`` messages, the default draws a selection and the title says which; a
selection always includes the ranks that failed (the error's rank, blocked, unfinished or
overflowing ranks: ``Result.failing_ranks``), then those in the most messages. Lanes stay
in rank order. ``window=(t0, t1)`` shows that span of simulated time only.

The legend names the call kinds that show as bars: a call that took no simulated time (a
bsend that fit, a test) has no length to see, and is left out of it. A run that ended at
t = 0 (an error at its first call) has no time to draw: its time axis says so, and the
lanes show what happened at that instant (markers of unsent messages, the outlines of the
calls left unfinished).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..values.units import UnitError, format_time, parse_time
from .occupancy import unreceived_note
from .style import MODE_COLORS, axes_figure, call_color, readable, set_time_axis

__all__ = ["MAX_LANES", "plot_timeline"]

MAX_LANES = 64
"""At most this many rank lanes by default (those taking part in the most messages)."""

ANNOTATE_LANES = 16
"""Up to this many lanes, each deadlocked call is labelled with whom it waits for."""

_BAR = 0.25  # half the height of a call bar, in lanes: arrows stay visible between bars


def plot_timeline(result: Any, ranks: Sequence[int] | None = None, ax: Axes | None = None,
                  max_messages: int = 2000, window: Sequence[float | str] | None = None
                  ) -> Figure:
    """Rank lanes with call bars and message arrows (the space-time diagram of the run).

    ``ranks``: the lanes, top to bottom (default: every rank, or ``MAX_LANES`` of them: the
    failing ranks, then those taking part in the most messages); only messages
    between drawn ranks are drawn, at most ``max_messages`` of them (the first posted).
    ``window``: (start, end) of the time shown, seconds or unit strings ("10us").

    Parameters
    ----------
    result
        The Result of a run with its trace (``trace=True``, the default).
    ranks
        The lanes, top to bottom. Default: None, every rank (beyond 64: the failing ranks,
        then those in the most messages).
    ax
        A matplotlib Axes to draw into (one of your own figure's). Default: None, a new
        Figure.
    max_messages
        The most message arrows drawn, the first posted first (default 2000).
    window
        ``(start, end)`` of the simulated time shown, in seconds or with units
        (``("10us", "20us")``). Default: None, the whole run.

    Returns
    -------
    Figure
        A matplotlib Figure (``fig.savefig("x.png")``; a notebook shows it), or ``ax``'s
        figure when ``ax`` is given.
    """
    if isinstance(max_messages, bool) or not isinstance(max_messages, int) or max_messages < 0:
        raise ValueError(f"max_messages: expected a non-negative integer, got {max_messages!r}")
    span = None if window is None else _window(window)
    trace = result.trace
    lanes, notes = _lanes(result, ranks)
    end = _end_time(result)
    own = ax  # (a figure of mpisim's own when None: made readable at the end)
    if ax is None:
        fig = Figure(figsize=(10, min(max(3.0, 1.4 + 0.3 * len(lanes)), 12.0)),
                     layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = axes_figure(ax)
    lane_of = {r: i for i, r in enumerate(lanes)}
    handles = _draw_calls(ax, trace.calls, lane_of, end)
    handles += _draw_messages(ax, trace.messages, lane_of, max_messages, notes)
    handles += _draw_epochs(ax, trace.epochs, lane_of, end)
    handles += _draw_rma(ax, trace.rma, lane_of)
    if result.deadlock is not None and len(lanes) <= ANNOTATE_LANES:
        _annotate_blocked(ax, result.deadlock.blocked, trace.calls, lane_of)
    warning = unreceived_note(result)
    _decorate(ax, result, lanes, end, [*notes, warning] if warning else notes, handles)
    if span is not None:
        ax.set_xlim(*span)
        set_time_axis(ax.xaxis, span[1])
    return readable(fig) if own is None else fig


def _window(window: Sequence[float | str]) -> tuple[float, float]:
    try:
        start, stop = (parse_time(t) for t in window)
    except (TypeError, ValueError, UnitError) as e:
        raise ValueError(f"window: expected (start, end) times, got {window!r} ({e})") from None
    if not 0 <= start < stop:
        raise ValueError(f"window: expected 0 <= start < end, got {window!r}")
    return start, stop


def _lanes(result: Any, ranks: Sequence[int] | None) -> tuple[list[int], list[str]]:
    size = len(result.ranks)
    if ranks is not None:
        chosen = []
        for r in ranks:
            if isinstance(r, bool) or not isinstance(r, int | np.integer) or not 0 <= r < size:
                raise ValueError(f"ranks: {r!r} is not a rank in 0..{size - 1}")
            chosen.append(int(r))
        return list(dict.fromkeys(chosen)), []
    method = getattr(result, "failing_ranks", None)
    failing = list(method()) if method is not None else []
    if size <= MAX_LANES:
        return list(range(size)), []
    msgs = result.trace.messages
    counts = np.bincount(np.concatenate([msgs["src"], msgs["dst"]]).astype(np.int64),
                         minlength=size)
    first = failing[:MAX_LANES]
    busiest = sorted((r for r in range(size) if r not in first),
                     key=lambda r: (-counts[r], r))[:MAX_LANES - len(first)]
    which = "the failing ones, then those" if first else "those"
    return sorted(first + busiest), [f"{MAX_LANES} of {size} ranks: {which} in the most "
                                     "messages"]


def _end_time(result: Any) -> float:
    trace = result.trace
    times = [0.0, float(result.sim_time or 0.0)]
    for arr, fields in ((trace.calls, ("start", "end")),
                        (trace.messages, ("post", "recv_done"))):
        times += [float(arr[f][np.isfinite(arr[f])].max(initial=0.0)) for f in fields]
    return max(t for t in times if np.isfinite(t))


def _draw_calls(ax: Axes, calls: np.ndarray, lane_of: dict[int, int],
                end: float) -> list[Any]:
    """One PolyCollection per call kind; blocked calls hatched on top. Returns legend handles."""
    mask = np.isin(calls["rank"], list(lane_of))
    calls = calls[mask]
    handles: list[Any] = []
    for name in sorted(set(calls["call"].tolist())):
        rows = calls[calls["call"] == name]
        color = call_color(name)
        ax.add_collection(PolyCollection(_bars(rows, lane_of, end), facecolors=color,
                                         edgecolors=color, linewidths=0.8, alpha=0.6,
                                         gid=f"calls:{name}"))
        stop = np.where(np.isfinite(rows["end"]), rows["end"], end)
        if (stop > rows["start"]).any():  # (calls that took no time show no bar to name)
            handles.append(Patch(facecolor=color, alpha=0.6, label=name))
    blocked = calls[~np.isfinite(calls["end"])]
    if len(blocked):
        ax.add_collection(PolyCollection(_bars(blocked, lane_of, end), facecolors="none",
                                         edgecolors="#d62728", linewidths=1.5, hatch="////",
                                         gid="blocked"))
        handles.append(Patch(facecolor="white", edgecolor="#d62728", hatch="////",
                             label="unfinished when the run ended"))
    return handles


def _bars(rows: np.ndarray, lane_of: dict[int, int], end: float) -> list[np.ndarray]:
    stop = np.where(np.isfinite(rows["end"]), rows["end"], end)
    y = np.array([lane_of[int(r)] for r in rows["rank"]], dtype=float)
    x0, x1 = rows["start"], stop
    return list(np.stack([np.stack([x0, y - _BAR], 1), np.stack([x1, y - _BAR], 1),
                          np.stack([x1, y + _BAR], 1), np.stack([x0, y + _BAR], 1)], 1))


def _draw_messages(ax: Axes, messages: np.ndarray, lane_of: dict[int, int],
                   max_messages: int, notes: list[str]) -> list[Any]:
    """Quiver arrows per mode for delivered messages; markers for the undelivered."""
    inside = np.isin(messages["src"], list(lane_of)) & np.isin(messages["dst"], list(lane_of))
    msgs = messages[inside]
    if len(msgs) > max_messages:
        order = np.argsort(msgs["post"], kind="stable")
        msgs = msgs[np.sort(order[:max_messages])]
        notes.append(f"first {max_messages} of {int(inside.sum())} messages shown")
    handles: list[Any] = []
    delivered = np.isfinite(msgs["recv_done"])
    for mode in _modes(msgs):
        sel = msgs[delivered & (msgs["mode"] == mode)]
        if not len(sel):
            continue
        color = MODE_COLORS.get(mode, "#8c564b")
        y0 = np.array([lane_of[int(r)] for r in sel["src"]], dtype=float)
        y1 = np.array([lane_of[int(r)] for r in sel["dst"]], dtype=float)
        ax.quiver(sel["post"], y0, sel["recv_done"] - sel["post"], y1 - y0, color=color,
                  angles="xy", scale_units="xy", scale=1, pivot="tail", width=0.0022,
                  headwidth=4.5, headlength=6, headaxislength=5.5, zorder=4,
                  gid=f"messages:{mode}")
        handles.append(Line2D([], [], color=color, lw=1.5, marker=">", ms=5,
                              label=f"{mode} send"))
    lost = msgs[~delivered]
    if len(lost):
        y = np.array([lane_of[int(r)] for r in lost["src"]], dtype=float)
        (line,) = ax.plot(lost["post"], y, ls="none", marker="o", ms=7, mfc="none",
                          mec="#d62728", mew=1.5, zorder=5, label="never delivered",
                          gid="undelivered")
        handles.append(line)
    return handles


EPOCH_COLORS = {"fence": "#6d4c41", "start": "#00897b", "post": "#7cb342", "lock": "#3949ab",
                "lock_all": "#5e35b1"}
"""The colour of each kind of one-sided epoch (trace.epochs' ``kind``)."""
RMA_COLOR = "#00838f"


def _draw_epochs(ax: Axes, epochs: np.ndarray, lane_of: dict[int, int],
                 end: float) -> list[Any]:
    """A thin span under each lane's call bars per epoch, coloured by kind."""
    epochs = epochs[np.isin(epochs["rank"], list(lane_of))]
    handles: list[Any] = []
    for kind in [k for k in EPOCH_COLORS if k in set(epochs["kind"].tolist())]:
        rows = epochs[epochs["kind"] == kind]
        stop = np.where(np.isfinite(rows["end"]), rows["end"], end)
        y = np.array([lane_of[int(r)] for r in rows["rank"]], dtype=float) + _BAR + 0.05
        boxes = list(np.stack([np.stack([rows["start"], y], 1), np.stack([stop, y], 1),
                               np.stack([stop, y + 0.08], 1),
                               np.stack([rows["start"], y + 0.08], 1)], 1))
        color = EPOCH_COLORS[kind]
        ax.add_collection(PolyCollection(boxes, facecolors=color, edgecolors=color,
                                         linewidths=0.5, gid=f"epochs:{kind}"))
        handles.append(Patch(facecolor=color, label=f"{kind} epoch"))
    return handles


def _draw_rma(ax: Axes, ops: np.ndarray, lane_of: dict[int, int]) -> list[Any]:
    """A dashed arrow per one-sided operation applied at its target, per call."""
    inside = np.isin(ops["origin"], list(lane_of)) & np.isin(ops["target"], list(lane_of))
    ops = ops[inside & np.isfinite(ops["applied"])]
    for call in sorted(set(ops["call"].tolist())):
        sel = ops[ops["call"] == call]
        for start, origin, target, applied in zip(sel["start"], sel["origin"], sel["target"],
                                                  sel["applied"], strict=True):
            ax.annotate("", xy=(applied, lane_of[int(target)]),
                        xytext=(start, lane_of[int(origin)]),
                        arrowprops={"arrowstyle": "->", "color": RMA_COLOR, "lw": 1.0,
                                    "linestyle": "--"}, zorder=4, gid=f"rma:{call}")
    if not len(ops):
        return []
    return [Line2D([], [], color=RMA_COLOR, lw=1.0, ls="--", label="RMA operation")]


def _annotate_blocked(ax: Axes, blocked: list[Any], calls: np.ndarray,
                      lane_of: dict[int, int]) -> None:
    """Label the call each deadlocked rank is stuck in, above its bar; a rank whose threads
    are blocked too gets one label, its threads' calls after its own, each named."""
    texts: dict[int, list[str]] = {}
    for b in blocked:
        waits = ", ".join(str(w) for w in b.waits_for[:6])
        waits += ", ..." if len(b.waits_for) > 6 else ""
        text = f"{b.call}" + (f" waits for {waits}" if waits else "")
        thread = getattr(b, "thread", None)
        texts.setdefault(b.rank, []).append(text if thread is None else f"{thread}: {text}")
    for rank, parts in texts.items():
        if rank not in lane_of:
            continue
        mine = calls[(calls["rank"] == rank) & ~np.isfinite(calls["end"])]
        if not len(mine):
            continue
        ax.text(float(mine["start"][0]), lane_of[rank] - _BAR - 0.04, "; ".join(parts),
                ha="left", va="bottom", fontsize="x-small", color="#d62728", clip_on=True,
                zorder=6, gid=f"blocked-label:{rank}")


def _modes(msgs: np.ndarray) -> list[str]:
    known = [m for m in MODE_COLORS if m in set(msgs["mode"].tolist())]
    return known + sorted(set(msgs["mode"].tolist()) - set(known))


def _decorate(ax: Axes, result: Any, lanes: list[int], end: float, notes: list[str],
              handles: list[Any]) -> None:
    n = len(lanes)
    ax.set_ylim(n - 0.5, -0.5)  # rank 0 on top
    step = max(1, int(np.ceil(n / 16)))
    method = getattr(result, "failing_ranks", None)
    failing = set(method()) if method is not None else set()
    failed_lanes = {i for i, r in enumerate(lanes) if r in failing}
    ticks = sorted(set(range(0, n, step)) | failed_lanes)  # a failing rank's lane is named
    spawned = {s.rank: s.spawned["world_rank"] for s in getattr(result, "ranks", ())
               if getattr(s, "spawned", None)}  # (MPI 4.1 §11.8: its rank in its own world)
    ax.set_yticks(ticks, [f"rank {lanes[i]}" + (f" (spawned {spawned[lanes[i]]})"
                                                if lanes[i] in spawned else "")
                          for i in ticks],
                  fontsize="small" if n <= 16 else "x-small")
    for i, label in zip(ticks, ax.get_yticklabels(), strict=True):
        if i in failed_lanes:
            label.set_color("#d62728")
            label.set_fontweight("bold")
    if end > 0:
        ax.set_xlim(-0.01 * end, end * 1.02)
        set_time_axis(ax.xaxis, end)
        ax.grid(True, axis="x", alpha=0.3)
    else:  # nothing took time: one instant, said as such (not an empty 0-1 ns axis)
        ax.set_xlim(-1.0, 1.0)
        ax.set_xticks([0.0], ["0"])
        ax.set_xlabel("time: the run ended at t = 0, every call took no simulated time")
    outcome = getattr(result.outcome, "value", str(result.outcome))
    title = f"{result.scenario}: {outcome} at t = {format_time(result.sim_time)}"
    if result.deadlock is not None:
        ranks = len({b.rank for b in result.deadlock.blocked})  # (a rank's threads: one)
        title += f"; {ranks} rank(s) blocked (hatched)"
    if result.error is not None:
        err = result.error
        title += f"; rank {err.rank} {err.call or ''}: {err.error_class}"
    ax.set_title("\n".join([title, *notes]), fontsize="medium")
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  fontsize="small", frameon=False)
    if not lanes:
        ax.text(0.5, 0.5, "no ranks", ha="center", va="center", transform=ax.transAxes)
