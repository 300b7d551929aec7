"""Recording a real MPI run (a PMPI shim, :mod:`.record`) and replaying it in mpisim.

:func:`replay` runs a recording as each rank's program; :func:`replay_scenario` gives it to
the what-if tools (check, min-buffer, sweep, profiles) as a scenario; :func:`read_trace`
reads the log (its format: :mod:`.trace`).
"""

from __future__ import annotations

from .program import ReplayProgram
from .scenario import ReplayScenario, replay, replay_scenario
from .trace import Trace, TraceError, is_trace, read_trace

__all__ = ["ReplayProgram", "ReplayScenario", "Trace", "TraceError", "is_trace", "read_trace",
           "replay", "replay_scenario"]
