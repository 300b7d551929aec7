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
    from ..runs.simulation import Simulation

    Simulation(**scenario.run_kwargs())


def profiles_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markdown", action="store_true", help="as the documentation's table")
    p.add_argument("--json", action="store_true", help="print JSON: per profile, its "
                   "description and each setting's value and evidence")
    p.add_argument("names", nargs="*", metavar="NAME|FILE.yaml",
                   help="only these profiles (a profile file shows its evidence)")


def profiles_command(args: argparse.Namespace) -> int:
    from ..profiles.evidence import table
    from ..profiles.library import get_profile

    try:
        chosen = [get_profile(n) for n in args.names] or None
    except ValueError as e:
        raise UsageError(str(e).splitlines()[0]) from None
    if args.json:
        print(json.dumps(_profiles_dict(chosen), default=str))
    else:
        print(table(markdown=args.markdown, profiles=chosen))
    return EXIT_OK


def _profiles_dict(chosen: list[Any] | None) -> dict[str, Any]:
    """``profiles --json``: ``{name: {"description", "settings": {key: {"value",
    "evidence"}}}}``, the table's content."""
    from ..profiles.evidence import SETTINGS as KEYS
    from ..profiles.evidence import evidence_of
    from ..profiles.library import PROFILES as BUILT_IN
    from ..profiles.library import shipped_profiles

    profiles = [*BUILT_IN.values(), *shipped_profiles()] if chosen is None else chosen
    out = {}
    for p in profiles:
        evidence = evidence_of(p)
        out[p.name] = {"description": p.description, "settings": {
            key: {"value": getattr(p, key), "evidence": evidence[key]} for key in KEYS}}
    return out


def settings_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markdown", action="store_true", help="as the documentation's table")
    p.add_argument("--json", action="store_true", help="print JSON: per setting, its key, "
                   "kind, choices, default and meaning")


def settings_command(args: argparse.Namespace) -> int:
    from ..runs.settings import every_key, lookup, markdown_table, text_table

    if args.json:
        print(json.dumps([{"key": s.key, "kind": s.kind, "choices": list(s.choices),
                           "default": s.default, "doc": s.doc}
                          for s in map(lookup, every_key()) if s is not None]))
    else:
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
