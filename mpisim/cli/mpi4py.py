"""``mpisim mpi4py``: the options, and an mpi4py script seen as a scenario.

:class:`ScriptScenario` gives a script what the CLI and the what-if tools need of a scenario
(``name``, ``ranks``, ``run_kwargs()``, ``with_overrides()``, ``check_expect()``), so
``run``, ``check`` and ``min-buffer`` treat it as they treat a scenario file. Its settings
(network, MPI library, ``buffer``, ``seed``, ``until``, ``max_events``) are those of a
scenario: read from an optional settings YAML (a scenario's keys without ``programs`` and
``params``) and ``--set KEY=VALUE`` / ``--profile``, validated by the scenario rules, so a bad
value is one line naming the key. The program is the script; ``-n`` gives the ranks.

``min-buffer`` searches the size the script's own ``MPI.Attach_buffer`` calls ask for (each
such call of a searched rank gets the probed size), or, for a script that never attaches,
the ``buffer`` every rank attaches before the script starts.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..mpi4py.script import Script, ScriptError
from ..runs.settings import assignment
from .options import add_run_options

__all__ = ["ScriptScenario", "add_arguments", "load_script"]



class ScriptScenario:
    """An mpi4py script with its settings, used where a Scenario is (see the module)."""

    def __init__(self, script: Script, settings: Any, ranks: int) -> None:
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

    def with_overrides(self, overrides: dict[str, Any]) -> ScriptScenario:
        """Settings overridden (``network.eager_limit``, ``buffer``, ``ranks``...)."""
        overrides = dict(overrides)
        ranks = overrides.pop("ranks", self.ranks)
        if isinstance(ranks, str):
            ranks = int(ranks)
        settings = self.settings.with_overrides(overrides) if overrides else self.settings
        return ScriptScenario(self.script, settings, ranks)

    def check_expect(self, result: Any) -> str | None:
        return None

    def __getattr__(self, name: str) -> Any:
        """Anything else a scenario offers (where each setting came from...) is the
        settings' own."""
        if name.startswith("__") or name == "settings":
            raise AttributeError(name)
        return getattr(self.settings, name)

    def run(self, **overrides: Any) -> Any:
        from ..runs.simulation import run

        return run(**(self.run_kwargs() | overrides))


def script_scenario(path: str, argv: list[str], ranks: int, settings: str | None = None,
                    overrides: dict[str, Any] | None = None, output: str = "stdout"
                    ) -> ScriptScenario:
    """Load a script and its settings; ValueError (one line per problem) if anything is
    wrong."""
    from ..scenario import ScenarioError
    from ..scenario.load import settings_scenario

    if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
        raise ValueError(f"-n: expected a positive number of ranks, got {ranks!r}")
    script = Script(path, argv, output)
    scenario = settings_scenario(settings, {"name": script.__name__, "ranks": 1},
                                 (), "an mpi4py script")  # ranks: the settings' own (-n rules)
    try:
        scenario = scenario.with_overrides(dict(overrides or {}))
    except ScenarioError as e:
        raise ValueError("\n".join(e.problems)) from None
    return ScriptScenario(script, scenario, ranks)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``mpisim mpi4py`` (those of ``run``, ``check`` and ``min-buffer``)."""
    p.add_argument("-n", "-np", dest="np", type=int, default=1, metavar="N",
                   help="number of ranks (as mpiexec -n)")
    p.add_argument("--profile", metavar="NAME|FILE.yaml",
                   help="the MPI library modelled: standard, mpich-4.0, openmpi-4.1, "
                        "mpich-5.0, openmpi-5.0 (mpich, openmpi: the 4.x ones) or a profile "
                        "file from mpisim calibrate (same as --set mpi.profile=...)")
    add_run_options(p, program="script", as_written="run as written",
                    min_buffer="the smallest size for the script's own Attach_buffer with "
                               "which it completes without overflow",
                    vary="a sweep (as `mpisim sweep`) over settings or ranks: "
                         "network.eager_limit=1KiB..64KiB:x2, ranks=2,4,8 (repeatable)")
    p.add_argument("script", metavar="SCRIPT", help="an mpi4py script (python file)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")


def load_script(args: argparse.Namespace) -> ScriptScenario:
    """The ScriptScenario the options describe; ValueError naming the problem."""
    overrides: dict[str, Any] = {}
    overrides.update(assignment(text) for text in args.sets)
    if args.profile:
        overrides["mpi.profile"] = args.profile
    if not os.path.isfile(args.script):
        raise ValueError(f"{args.script}: no such script")
    try:
        output = ("discard" if args.check or args.min_buffer or args.vary else
                  "stderr" if args.json else "stdout")
        return script_scenario(args.script, list(args.args), args.np, args.settings,
                               overrides, output)
    except ScriptError as e:
        raise ValueError(str(e)) from None
