"""Recording a real MPI run (a PMPI shim) and replaying it in mpisim.

:func:`replay` runs a recording as each rank's program; :func:`replay_scenario` gives it to
the what-if tools (check, min-buffer, sweep, profiles) as a scenario; :func:`read_trace`
reads the log (its format: :mod:`.read.trace`).

The package is cut by stage, one folder each, and the import contract in ``pyproject.toml``
holds the order (nothing imports a folder above it, and the three on top not one another):

- :mod:`.record` makes a recording (``mpisim record``, the shim's generated C, synthetic
  recordings); :mod:`.replayer` runs one (a rank program per process, the verdict);
  :mod:`.toyaml` writes one as a scenario file (``--to-yaml``).
- :mod:`.calls` (a recorded call in the handle's terms, read from the handle's call table)
  and :mod:`.library` (the MPI library a recording names, and its profile) are what the
  replayer and the YAML writer share.
- :mod:`.read` reads a recording (lines, columns, the records), below all of them.
"""

from __future__ import annotations

from .read.records import Trace, TraceError
from .read.trace import is_trace, read_trace
from .replayer.program import ReplayProgram
from .replayer.scenario import ReplayScenario, replay, replay_scenario

__all__ = ["ReplayProgram", "ReplayScenario", "Trace", "TraceError", "is_trace", "read_trace",
           "replay", "replay_scenario"]
