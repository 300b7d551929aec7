"""What-if analysis: sweeps, the minimum buffer, safety.

- :func:`sweep` runs the cartesian product of varied params and settings (in parallel, on a
  local process pool or any ``concurrent.futures.Executor``, a Dask cluster's included) and
  returns a :class:`SweepTable`;
- :func:`min_buffer` finds the smallest attached buffer with no overflow, and where larger
  sizes overflow again (the circular allocator is not monotonic);
- :func:`check_safe` answers MPI 3.5's question: does it complete with every send synchronous?

Nothing here imports matplotlib (workers stay light); ``mpisim.plot.sweepmap`` draws tables.
"""

from .minbuffer import MinBuffer, MinBufferTable, min_buffer, min_buffer_per_rank
from .safety import Safety, check_safe
from .sweep import sweep
from .table import SweepTable
from .values import parse_values

__all__ = ["MinBuffer", "MinBufferTable", "Safety", "SweepTable", "check_safe", "min_buffer",
           "min_buffer_per_rank", "parse_values", "sweep"]
