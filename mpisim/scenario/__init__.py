"""Scenario files: YAML (or Python) descriptions of an MPI program and its machine.

``load(path)`` reads and validates a scenario and returns a :class:`Scenario`;
``ScenarioError`` names the file, line and key of every problem. The modules, from the file
inwards: ``yamlload`` (YAML with lines and deliberate scalar rules), ``values`` (typed
values with units), ``schema`` (the top-level keys), ``selectors`` (``ranks:``), ``expr``
(expressions through an ``ast`` allow-list), ``ops`` (the calls), ``interpret`` (running them),
``pyscenario`` (Python scenarios), ``scenario`` (the Scenario object), ``load``; and
``protocol``: :class:`ScenarioLike`, what the command line and the what-if tools need of a
scenario (a Scenario, an mpi4py script's, a recording's).
"""

from .load import load
from .problems import ScenarioError, ScenarioRuntimeError
from .protocol import ScenarioLike
from .scenario import Scenario

__all__ = ["Scenario", "ScenarioError", "ScenarioLike", "ScenarioRuntimeError", "load"]
