"""The commands that run nothing: ``mpisim validate`` (a scenario loaded and checked),
``mpisim profiles`` and ``mpisim settings`` (the tables of profiles and of settings)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import EXIT_OK, Command, UsageError, load, settings_error
from .options import add_scenario_options

__all__ = ["PROFILES", "SETTINGS", "VALIDATE"]


def validate_command(args: argparse.Namespace) -> int:
    scenario = load(args)
    settings_error(lambda: _resolve_settings(scenario))
    if args.json:
        print(json.dumps({"scenario": scenario.name, "outcome": "valid", "ranks": scenario.ranks,
                          "exit_code": EXIT_OK}))
    elif args.quiet:
        print(f"{scenario.name}: valid")
    else:
        print(f"ok: {scenario.name} ({scenario.ranks} ranks)")
    return EXIT_OK


def _resolve_settings(scenario: Any) -> None:
    """Build (not run) the simulation so that every setting is checked."""
    import mpisim as ms

    ms.Simulation(**scenario.run_kwargs())


def profiles_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markdown", action="store_true", help="as the documentation's table")
    p.add_argument("names", nargs="*", metavar="NAME|FILE.yaml",
                   help="only these profiles (a profile file shows its evidence)")


def profiles_command(args: argparse.Namespace) -> int:
    from ..profiles.evidence import table
    from ..profiles.library import get_profile

    try:
        chosen = [get_profile(n) for n in args.names] or None
    except ValueError as e:
        raise UsageError(str(e).splitlines()[0]) from None
    print(table(markdown=args.markdown, profiles=chosen))
    return EXIT_OK


def settings_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markdown", action="store_true", help="as the documentation's table")


def settings_command(args: argparse.Namespace) -> int:
    from ..runs.settings import markdown_table, text_table

    print(markdown_table() if args.markdown else text_table(), end="")
    return EXIT_OK


VALIDATE = Command(
    "validate", options=add_scenario_options, handler=validate_command,
    help="load and check a scenario without running it")
PROFILES = Command(
    "profiles", options=profiles_options, handler=profiles_command,
    help="every setting of each profile, its value and where it comes from",
    description="every setting of each implementation profile, its value and the text or "
                "measurement it comes from")
SETTINGS = Command(
    "settings", options=settings_options, handler=settings_command,
    help="every setting (--set, --vary, scenario keys, mpisim.run): its value, default and "
         "meaning",
    description="every setting a scenario, --set, --vary and mpisim.run accept, from its one "
                "declaration")
