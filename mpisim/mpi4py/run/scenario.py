"""An mpi4py script seen as a scenario: what ``mpisim mpi4py`` runs, checks and searches.

:class:`ScriptScenario` offers what the command line and the what-if tools need of a
scenario (:class:`~mpisim.scenario.ScenarioLike`: ``name``, ``ranks``, ``run_kwargs()``,
``with_overrides()``, ``check_expect()``...), so ``run``, ``check``, ``min-buffer`` and
``sweep`` treat a script as they treat a scenario file; it is the twin of a recording's
:class:`~mpisim.recorded.ReplayScenario`. Its settings (network, MPI library,
``buffer``, ``seed``, ``until``, ``max_events``) are those of a scenario: read from an
optional settings YAML (a scenario's keys without ``programs`` and ``params``) and
``--set KEY=VALUE`` / ``--profile``, validated by the scenario rules, so a bad value is one
line naming the key. The program is the script; ``-n`` gives the ranks.

``min-buffer`` searches the size the script's own ``MPI.Attach_buffer`` calls ask for (each
such call of a searched rank gets the probed size), or, for a script that never attaches,
the ``buffer`` every rank attaches before the script starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .script import Script

if TYPE_CHECKING:
    from ...runs.result import Result
    from ...scenario import Scenario

__all__ = ["ScriptScenario", "script_scenario"]


class ScriptScenario:
    """An mpi4py script with its settings, used where a Scenario is (see the module)."""

    def __init__(self, script: Script, settings: Scenario, ranks: int) -> None:
        self.script = script
        self.settings = settings          # a Scenario holding the settings (no ops)
        self.ranks = ranks
        self.name = settings.name if settings.name != "<settings>" else script.__name__
        self.expect: dict[str, Any] = {}
        self.params: dict[str, Any] = {}
        self.path = script.path

    def __repr__(self) -> str:
        return f"<mpi4py script {self.script.__name__!r} ({self.ranks} ranks)>"

    def run_kwargs(self) -> dict[str, Any]:
        kwargs = self.settings.run_kwargs()
        kwargs.update(program=self.script, ranks=self.ranks, params={}, name=self.name)
        return kwargs

    def override_keys(self) -> list[str]:
        """The settings' keys (``network.*``, ``mpi.*``, ``buffer``...) and ``ranks``."""
        return self.settings.override_keys()

    def with_overrides(self, overrides: dict[str, Any]) -> ScriptScenario:
        """Settings overridden (``network.eager_limit``, ``buffer``, ``ranks``...)."""
        overrides = dict(overrides)
        ranks = overrides.pop("ranks", self.ranks)
        if isinstance(ranks, str):
            ranks = int(ranks)
        settings = self.settings.with_overrides(overrides) if overrides else self.settings
        return ScriptScenario(self.script, settings, ranks)

    def setting_sources(self) -> dict[str, str]:
        """Where each ``mpi.*`` and ``network.*`` setting comes from: the settings file or
        ``--set``."""
        return self.settings.setting_sources()

    def annotate(self, result: Result) -> Result:
        """``result.settings`` with each setting's source (as a scenario file's run)."""
        return self.settings.annotate(result)

    def check_expect(self, result: Result) -> str | None:
        """None: a script states no ``expect:``."""
        return None

    def run(self, **overrides: Any) -> Result:
        from ...runs.simulation import run

        return self.annotate(run(**(self.run_kwargs() | overrides)))


def script_scenario(path: str, argv: list[str], ranks: int, settings: str | None = None,
                    overrides: dict[str, Any] | None = None, output: str = "stdout",
                    module: str | None = None) -> ScriptScenario:
    """Load a script and its settings (``module``: run under ``python -m module``, see
    :class:`~.script.Script`); ValueError (one line per problem) if anything is wrong."""
    from ...scenario import ScenarioError
    from ...scenario.load import settings_scenario

    if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
        raise ValueError(f"-n: expected a positive number of ranks, got {ranks!r}")
    script = Script(path, argv, output, module)
    scenario = settings_scenario(settings, {"name": script.__name__, "ranks": 1},
                                 (), "an mpi4py script")  # ranks: the settings' own (-n rules)
    try:
        scenario = scenario.with_overrides(dict(overrides or {}))
    except ScenarioError as e:  # (without a settings file: named by the option, --set)
        raise ValueError("\n".join(p.replace("<settings>: override ", "--set ", 1)
                                   for p in e.problems)) from None
    return ScriptScenario(script, scenario, ranks)
