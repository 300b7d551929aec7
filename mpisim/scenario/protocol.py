"""What a scenario is to the tools that run it: one interface, three kinds of scenario.

A scenario file's :class:`~mpisim.scenario.scenario.Scenario`, an mpi4py script's
:class:`~mpisim.mpi4py.run.scenario.ScriptScenario` and a recording's
:class:`~mpisim.recorded.ReplayScenario` all offer it, so the command line (``run``,
``check``, ``sweep``, ``min-buffer``, ``validate``) and the what-if tools
(:class:`~mpisim.whatif.target.Target`) take any of them. It lives with the scenario files,
below the front ends and the what-if layer, so that each can name it without importing
upwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..runs.result import Result

__all__ = ["ScenarioLike"]


class ScenarioLike(Protocol):
    """A program with its settings, ready to run, to override and to check."""

    @property
    def name(self) -> str:
        """The run's name (reports, ``out/<name>``)."""
        ...

    @property
    def ranks(self) -> int:
        """How many ranks run the program."""
        ...

    @property
    def params(self) -> dict[str, Any]:
        """The program's parameters and their values (empty when it has none)."""
        ...

    @property
    def expect(self) -> dict[str, Any]:
        """The outcome the scenario says it has (``expect:``; empty when it says none)."""
        ...

    def run_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``mpisim.run`` for one run."""
        ...

    def with_overrides(self, overrides: dict[str, Any]) -> ScenarioLike:
        """A new scenario with ``overrides`` applied (``{"network.eager_limit": "64KiB",
        "buffer": 16384, "count": 4096}``), validated by the scenario rules: ScenarioError
        naming every problem."""
        ...

    def override_keys(self) -> list[str]:
        """Every key :meth:`with_overrides` accepts."""
        ...

    def annotate(self, result: Result) -> Result:
        """``result`` with what the scenario knows of it (where each setting came from...)."""
        ...

    def check_expect(self, result: Result) -> str | None:
        """None when ``result`` agrees with :attr:`expect`, else how it differs."""
        ...

    def run(self, **overrides: Any) -> Result:
        """Run it: ``mpisim.run(**self.run_kwargs() | overrides)``, annotated."""
        ...
