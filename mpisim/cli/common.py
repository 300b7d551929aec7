"""What the commands share: exit codes, usage errors, the declaration of a command, and the
steps every command that runs a scenario takes (load it, read ``KEY=VALUE``, report a bad
setting as a usage error, show progress)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from ..runs.settings import assignment

__all__ = ["EXIT_DEADLOCK", "EXIT_DISAGREES", "EXIT_ERROR", "EXIT_FINDINGS", "EXIT_OK",
           "EXIT_TIMEOUT", "EXIT_UNRECEIVED", "EXIT_USAGE", "Command", "Parser", "UsageError",
           "add_check_options", "invalid_json", "key_value", "load", "out", "progress",
           "settings_error", "strict_findings"]

EXIT_OK, EXIT_USAGE, EXIT_DEADLOCK, EXIT_ERROR, EXIT_TIMEOUT = 0, 2, 3, 4, 5
EXIT_DISAGREES, EXIT_UNRECEIVED, EXIT_FINDINGS = 6, 7, 8


class UsageError(Exception):
    """Invalid input: printed as one line, exit 2."""


def invalid_json(message: str) -> str:
    """A usage error as ``--json`` prints it on stdout (besides its line on stderr), so that a
    caller reading JSON gets an object whatever happened: ``{"outcome": "invalid",
    "exit_code": 2, "problems": [one line per problem]}``."""
    problems = [p.removeprefix("mpisim: ") for p in message.splitlines() if p.strip()]
    return json.dumps({"outcome": "invalid", "exit_code": EXIT_USAGE, "problems": problems})


class Parser(argparse.ArgumentParser):
    """argparse's parser, keeping the message of the last usage error (for ``--json``)."""

    last_error = ""

    def error(self, message: str) -> Any:
        Parser.last_error = f"{self.prog}: error: {message}"  # (as argparse prints it)
        return super().error(message)


class Command(NamedTuple):
    """One subcommand, declared once: what ``mpisim --help`` lists, its options, its run."""

    name: str
    help: str
    options: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int]
    description: str | None = None  # its own --help's (default: ``help``)

    def add_to(self, sub: Any) -> argparse.ArgumentParser:
        """Its parser, added to the subparsers ``sub``."""
        p = sub.add_parser(self.name, help=self.help, description=self.description or self.help)
        self.options(p)
        p.set_defaults(handler=self.handler)
        return p


def out(args: argparse.Namespace) -> Any:
    """Where the command prints its report or JSON: stdout, unless the command chose another
    stream (``mpisim mpi4py``: stderr or ``--report FILE``, so the script's own output stays
    its own)."""
    return getattr(args, "report_to", None) or sys.stdout


# -- the steps of a command that runs a scenario ------------------------------------------------
def load(args: argparse.Namespace) -> Any:
    """The scenario the command runs (a file, a recording, or ``mpisim mpi4py``'s script),
    with ``--set`` applied; a problem is a UsageError."""
    from ..scenario import ScenarioError
    from ..scenario import load as load_file

    if getattr(args, "loaded", None) is not None:  # mpisim mpi4py / replay: loaded already
        return args.loaded
    from ..recorded import is_trace

    if is_trace(args.scenario):  # a recording (mpisim record) in place of a scenario
        from ..recorded import replay_scenario

        try:
            return replay_scenario(args.scenario, overrides=dict(
                key_value(s, "--set") for s in args.sets))
        except ValueError as e:
            raise UsageError("\nmpisim: ".join(str(e).splitlines())) from None
    from .shipped import shipped

    try:
        scenario = load_file(shipped(args.scenario, "scenario"))  # a file, else an example
        overrides = dict(key_value(s, "--set") for s in args.sets)
        return scenario.with_overrides(overrides) if overrides else scenario
    except ScenarioError as e:
        raise UsageError("\nmpisim: ".join(getattr(e, "problems", None) or [str(e)])) from None
    except OSError as e:
        raise UsageError(f"{args.scenario}: {e.strerror or e}") from None


def add_check_options(p: argparse.ArgumentParser, when: str = "") -> None:
    """``--races`` and ``--max-orders`` (the message-race exploration of ``check``)."""
    p.add_argument("--races", action="store_true",
                   help=("--check --races: " if when else "") +
                        "explore the matching orders of wildcard receives (message races) "
                        "and the orders of threads: exit 0 race-free, 8 racy")
    p.add_argument("--max-orders", type=int, default=None, metavar="N",
                   help=f"{when}with --races: run at most N orders (default 32)")


def strict_findings(name: str, findings: list[Any]) -> int | None:
    """``--strict``: EXIT_FINDINGS (and a line on stderr) when a run has findings."""
    if not findings:
        return None
    kinds = sorted({f.kind for f in findings})
    print(f"mpisim: {name}: {len(findings)} correctness finding(s) ({', '.join(kinds)}; "
          "--strict)", file=sys.stderr)
    return EXIT_FINDINGS


def key_value(text: str, option: str) -> tuple[str, str]:
    """``KEY=VALUE`` of ``option`` (--set, --vary); a UsageError if it is not one."""
    try:
        return assignment(text, option)
    except ValueError as e:
        raise UsageError(str(e)) from None


def settings_error(fn: Callable[[], Any]) -> Any:
    """Run ``fn``; a bad setting found only by the engine becomes a usage error."""
    try:
        return fn()
    except ValueError as e:
        raise UsageError(str(e).splitlines()[0]) from None


def progress() -> Callable[[int, float], None] | None:
    """A progress bar on stderr when it is a terminal (events, simulated time)."""
    if not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    from ..values.units import format_time

    bar = tqdm(unit=" events", file=sys.stderr, leave=False, dynamic_ncols=True)

    def update(events: int, now: float) -> None:
        bar.update(events - bar.n)
        bar.set_postfix_str(f"t = {format_time(now)}")
    return update
