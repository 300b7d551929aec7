"""Figures of a run: buffer occupancy, the space-time diagram, the buffer layout.

Each function takes a :class:`mpisim.Result`, draws with matplotlib's object-oriented API
into ``ax`` (or a new Figure, never through pyplot, so it works headless) and returns the
Figure. Importing this package imports matplotlib; ``import mpisim`` never does.
"""

from .layout import BufferLayout, layout_at, plot_layout
from .occupancy import plot_occupancy
from .timeline import plot_timeline

__all__ = ["BufferLayout", "layout_at", "plot_layout", "plot_occupancy", "plot_timeline"]
