"""Figures: buffer occupancy, the space-time diagram, the buffer layout, sweep maps.

Each function takes a :class:`mpisim.Result` (``plot_sweep``: a sweep table;
``plot_waitfor``: a deadlock, or a Result that ended in one), draws with matplotlib's
object-oriented API into ``ax`` (or a new Figure, never through pyplot, so it works headless
and in worker processes) and returns the Figure. Importing this package
imports matplotlib; ``import mpisim`` never does.
"""

from .layout import BufferLayout, layout_at, plot_layout
from .occupancy import plot_occupancy
from .sweepmap import plot_sweep
from .timeline import plot_timeline
from .waitfor import plot_waitfor

__all__ = ["BufferLayout", "layout_at", "plot_layout", "plot_occupancy", "plot_sweep",
           "plot_timeline", "plot_waitfor"]
