"""What-if analysis: sweeps, the minimum buffer, safety.

- :func:`sweep` runs the cartesian product of varied params and settings (in parallel, on a
  local process pool or any ``concurrent.futures.Executor``, a Dask cluster's included) and
  returns a :class:`SweepTable`;
- :func:`min_buffer` finds the smallest attach size with which the program completes
  without overflow (its own attach searched, verified at the answer and the byte below), and
  where larger sizes overflow again; :func:`min_buffer_per_rank` for each rank in turn;
- :func:`check_safe` answers MPI 3.5's question: does it complete with every send synchronous?
  (``buffered=True``: with bsends buffered and every other send synchronous);
- :func:`compare_profiles` runs a program under several implementations' profiles;
- :func:`check_races` explores the matching orders of wildcard receives (message races).

Nothing here imports matplotlib (workers stay light); ``mpisim.plot.sweepmap`` draws tables.
"""

from .minbuffer import MinBuffer, MinBufferTable, min_buffer, min_buffer_per_rank
from .profiles import ProfileComparison, compare_profiles
from .races import Races, check_races
from .safety import Safety, check_safe
from .sweep import sweep
from .table import SweepTable
from .values import parse_values

__all__ = ["MinBuffer", "MinBufferTable", "ProfileComparison", "Races", "Safety", "SweepTable",
           "check_races", "check_safe", "compare_profiles", "min_buffer", "min_buffer_per_rank",
           "parse_values", "sweep"]
