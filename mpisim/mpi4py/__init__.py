"""Run unmodified mpi4py scripts in the simulator.

``mpisim mpi4py -n 4 script.py [args...]``, ``python -m mpisim.mpi4py ...`` or
:func:`run_mpi4py` run the script once per rank inside one simulation. ``from mpi4py import
MPI`` in the script resolves to the stand-in (never the real mpi4py, which need not be
installed); each rank runs in its own greenlet and every blocking call suspends it in
simulated time (:mod:`.bridge`). The rooms, from the top: ``run`` (the script as a rank
program, its scenario, the ``mpi4py`` modules it imports, its ``time`` and ``atexit``),
``util`` (``mpi4py.util``), ``MPI`` (the namespace's objects, one module per mpi4py class),
``msgbuffer`` (buffer specs, as mpi4py's ``msgbuffer.pxi``), ``datatypes`` (``MPI.Datatype``
and what names one), then ``bridge`` (each rank's greenlet and context) and ``exceptions``
(``MPI.Exception``); the import contract in pyproject.toml holds that order. Its command
line is :mod:`mpisim.cli.mpi4py`.
"""

from .run.scenario import ScriptScenario, script_scenario
from .run.script import Script, ScriptError, run_mpi4py

__all__ = ["Script", "ScriptError", "ScriptScenario", "run_mpi4py", "script_scenario"]
