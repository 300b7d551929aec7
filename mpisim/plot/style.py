"""Shared look of every mpisim figure: units, colours, figures made without pyplot.

Plots keep the trace's own numbers (seconds, bytes) in their artists, so what is drawn can
be compared with the trace exactly; only the axes show scaled units. The unit is chosen
from the data range (``s``/``ms``/``µs``/``ns`` for time, ``B``/``KiB``/``MiB``/``GiB``
for sizes) and the tick locator works in that unit, so ticks land on round displayed values
(``16 KiB``, not ``16384 B`` shown as ``16 KiB``).

Figures are ``matplotlib.figure.Figure`` objects with no pyplot state: safe on headless
machines, in threads and in worker processes, and never left open in a global registry.

Every figure mpisim makes for itself (no ``ax`` given) ends with :func:`readable`: no text in
it smaller than ``MIN_FONT`` points, so that a figure 10 inches wide stays legible where it
is shown smaller than it was drawn (the documentation draws them at 90 dpi and shows them
in a text column of about 740 px; a notebook shrinks them to its cell's width).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..values.units import SIZE_SCALES, TIME_SCALES

__all__ = [
    "CALL_COLORS",
    "MODE_COLORS",
    "STATE_COLORS",
    "axes_figure",
    "call_color",
    "format_bytes",
    "new_figure",
    "readable",
    "set_size_axis",
    "set_time_axis",
    "size_unit",
    "time_unit",
]

_TIME_UNITS = TIME_SCALES
_SIZE_UNITS = SIZE_SCALES

# Calls of one family share a hue, so a lane reads at a glance: sends blue, receives green,
# completion (wait/test) orange, the attached buffer purple, synchronisation and computing grey.
CALL_COLORS: dict[str, str] = {
    "MPI_Send": "#1f77b4", "MPI_Bsend": "#17becf", "MPI_Ssend": "#08306b",
    "MPI_Rsend": "#6baed6", "MPI_Isend": "#4a90c2", "MPI_Ibsend": "#7fd3df",
    "MPI_Issend": "#2b5c8a", "MPI_Irsend": "#9ecae1",
    "MPI_Recv": "#2ca02c", "MPI_Irecv": "#98df8a", "MPI_Probe": "#8c9d2a",
    "MPI_Iprobe": "#bcbd22",
    "MPI_Wait": "#ff7f0e", "MPI_Waitall": "#e6550d", "MPI_Waitany": "#fdae6b",
    "MPI_Waitsome": "#fd8d3c", "MPI_Test": "#fdd0a2", "MPI_Testall": "#f5b78a",
    "MPI_Request_free": "#d6a77a",
    "MPI_Buffer_attach": "#9467bd", "MPI_Buffer_detach": "#c5b0d5",
    "MPI_Barrier": "#7f7f7f", "MPI_Finalize": "#525252", "compute": "#c7c7c7",
}
_SPARE_COLORS = ("#8c564b", "#e377c2", "#d62728", "#393b79", "#637939", "#843c39")

# Message arrows are dark and saturated so they stand out over the lighter call bars.
MODE_COLORS: dict[str, str] = {"standard": "#111111", "buffered": "#8e24aa",
                               "synchronous": "#1565c0", "ready": "#ef6c00"}

STATE_COLORS: dict[str, str] = {"live": "#9467bd", "completed": "#c5b0d5",
                                "wrap gap": "#d62728", "free": "#f2f2f2"}


def call_color(call: str) -> str:
    """The colour of a call kind; unknown kinds get a stable spare colour."""
    if call in CALL_COLORS:
        return CALL_COLORS[call]
    return _SPARE_COLORS[sum(map(ord, call)) % len(_SPARE_COLORS)]


def format_bytes(nbytes: int) -> str:
    """A short size for titles: ``512 B``, ``1.5 KiB``, ``64 MiB``."""
    for name, scale in _SIZE_UNITS:
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.3g} {name}"
    return f"{int(nbytes)} B"


def time_unit(span: float) -> tuple[str, float]:
    """The unit to show times up to ``span`` seconds in: (name, seconds per unit)."""
    span = abs(float(span)) if np.isfinite(span) else 0.0
    for name, scale in _TIME_UNITS:
        if span >= scale:
            return name, scale
    return _TIME_UNITS[-1]


def size_unit(nbytes: float) -> tuple[str, int]:
    """The unit to show sizes up to ``nbytes`` in: (name, bytes per unit); B below 2 KiB."""
    nbytes = abs(float(nbytes)) if np.isfinite(nbytes) else 0.0
    for name, scale in _SIZE_UNITS:
        if nbytes >= 2 * scale:
            return name, scale
    return "B", 1


class _ScaledLocator(MaxNLocator):
    """Round ticks in the displayed unit, placed in data units."""

    def __init__(self, scale: float, integer: bool = False) -> None:
        super().__init__(nbins="auto", steps=[1, 2, 2.5, 5, 10], integer=integer)
        self.scale = scale

    def tick_values(self, vmin: float, vmax: float) -> np.ndarray:  # type: ignore[override]  # (an array, as MaxNLocator's)
        ticks: np.ndarray = np.asarray(super().tick_values(vmin / self.scale, vmax / self.scale))
        return ticks * self.scale


def _formatter(scale: float) -> FuncFormatter:
    return FuncFormatter(lambda x, _pos: f"{x / scale:.6g}")


def set_time_axis(axis: Any, span: float, label: str = "time") -> str:
    """Label ``axis`` (an Axis) in the time unit fitting ``span``; returns the unit."""
    name, scale = time_unit(span)
    axis.set_major_locator(_ScaledLocator(scale))
    axis.set_major_formatter(_formatter(scale))
    axis.set_label_text(f"{label} ({name})")
    return name


def set_size_axis(axis: Any, nbytes: float, label: str = "bytes") -> str:
    """Label ``axis`` in the size unit fitting ``nbytes``; returns the unit."""
    name, scale = size_unit(nbytes)
    axis.set_major_locator(_ScaledLocator(scale, integer=scale == 1))
    axis.set_major_formatter(_formatter(scale))
    axis.set_label_text(f"{label} ({name})")
    return name


def new_figure(nrows: int = 1, *, width: float = 9.0, row_height: float = 2.4,
               min_height: float = 3.0, sharex: bool = True,
               sharey: bool = False) -> tuple[Figure, list[Axes]]:
    """A constrained-layout Figure with ``nrows`` stacked axes (no pyplot involved)."""
    height = max(min_height, row_height * nrows)
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, 1, sharex=sharex, sharey=sharey, squeeze=False)
    return fig, list(axes[:, 0])


MIN_FONT = 10.0
"""The smallest text, in points, of a figure mpisim makes (matplotlib's "small" is 8.3 and
"x-small" 6.9): at 90 dpi shown 740 px wide, 10 points are 10 px, the least a tick label or
a legend entry can be read at."""


def readable(fig: Figure) -> Figure:
    """``fig`` with every text (titles, labels, tick labels, legends, notes) raised to at
    least ``MIN_FONT`` points; larger ones are kept. Returns ``fig``."""
    for ax in fig.axes:
        for name in ("x", "y"):
            labels = getattr(ax, f"get_{name}ticklabels")()
            size = min((t.get_fontsize() for t in labels), default=MIN_FONT)
            if size < MIN_FONT:
                ax.tick_params(axis=name, labelsize=MIN_FONT)
    for text in fig.findobj(Text):
        if float(text.get_fontsize()) < MIN_FONT:  # (points: a name is resolved when set)
            text.set_fontsize(MIN_FONT)
    return fig


def axes_figure(ax: Axes) -> Figure:
    """The top-level Figure an axes belongs to (also through subfigures)."""
    fig = ax.figure
    while not isinstance(fig, Figure) and getattr(fig, "figure", None) is not fig:
        fig = fig.figure
    return fig
