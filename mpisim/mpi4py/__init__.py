"""Run unmodified mpi4py scripts in the simulator.

``mpisim mpi4py -n 4 script.py [args...]``, ``python -m mpisim.mpi4py ...`` or
:func:`run_mpi4py` run the script once per rank inside one simulation. ``from mpi4py import
MPI`` in the script resolves to the stand-in (never the real mpi4py, which need not be
installed); each rank runs in its own greenlet and every blocking call suspends it in
simulated time (:mod:`.bridge`). The modules: ``bridge`` (greenlets and the import scope),
``script`` (the script as a rank program), ``scenario`` (a script with its settings, as the
command line and the what-if tools take a scenario), ``module`` (the ``MPI`` namespace),
``comm``, ``pt2pt`` and ``collective`` (``MPI.Comm``), ``buffers`` (attach, detach, flush),
``errhandler`` (``MPI.ERRORS_*``), ``request`` (``Request``, ``Status``), ``datatype``
(datatypes, ops, buffer specs), ``exceptions`` (``MPI.Exception``). Its command line is
:mod:`mpisim.cli.mpi4py`.
"""

from .run.scenario import ScriptScenario, script_scenario
from .run.script import Script, ScriptError, run_mpi4py

__all__ = ["Script", "ScriptError", "ScriptScenario", "run_mpi4py", "script_scenario"]
