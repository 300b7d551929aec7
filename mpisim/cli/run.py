"""``mpisim run``: one run of a scenario (or one per profile, ``--profiles``), its report,
its files and plots, and under ``--strict`` its agreement with the scenario's ``expect:``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .common import (
    EXIT_DISAGREES,
    EXIT_OK,
    EXIT_UNRECEIVED,
    Command,
    UsageError,
    load,
    out,
    progress,
    settings_error,
    strict_findings,
)
from .options import (
    add_findings_option,
    add_output_options,
    add_scenario_options,
    add_workers_options,
    workers,
)

__all__ = ["RUN", "write_outputs"]


def run_options(p: argparse.ArgumentParser) -> None:
    add_scenario_options(p)
    add_findings_option(p)
    add_output_options(p, "scenario", examples=True)
    p.add_argument("--profiles", metavar="P,P,...",
                   help="run under each profile side by side, e.g. standard,mpich-5.0,"
                        "openmpi-5.0 (mpich and openmpi are MPICH 4.0 and Open MPI 4.1; "
                        "mpisim profiles lists them all; each profile brings its allocator "
                        "and sizing unless --set names them)")
    p.add_argument("--strict", action="store_true",
                   help="for CI: exit 0 when the run agrees with the scenario's expect:, "
                        "6 when it does not, 7 when messages were never received, 8 when "
                        "it has correctness findings")
    add_workers_options(p, "with --profiles: ")


def run_command(args: argparse.Namespace) -> int:
    from ..runs.simulation import Simulation

    scenario = load(args)
    if args.profiles:
        if args.trace_dir:
            raise UsageError("--trace-dir writes the trace of one run: not with --profiles")
        return _run_profiles(args, scenario)
    sim = settings_error(lambda: Simulation(**scenario.run_kwargs(), trace_dir=args.trace_dir))
    result = scenario.annotate(sim.run(progress=progress()))
    disagreement = scenario.check_expect(result)
    written = write_outputs(result, args, scenario.name)
    _print_run(args, scenario, result, disagreement, written)
    return _exit_code(args, scenario, result, disagreement)


def _print_run(args: argparse.Namespace, scenario: Any, result: Any,
               disagreement: str | None, written: list[Path]) -> None:
    stream = out(args)
    if args.json:
        print(result.to_json(), file=out(args))
    elif args.quiet:
        print(f"{result.scenario}: {result.outcome.value}", file=out(args))
    else:
        print(result.report(findings=args.findings), file=out(args))
        if scenario.expect and args.sets:  # expect: describes the scenario as written
            print(f"expected without --set: {_describe_expect(scenario.expect)}"
                  + ("" if disagreement is None else " (this run differs)"), file=stream)
        elif scenario.expect:
            print(f"expected: {_describe_expect(scenario.expect)} — "
                  + ("agrees" if disagreement is None else f"DISAGREES: {disagreement}"),
                  file=stream)
        for path in written:
            print(f"wrote {path}", file=out(args))


def _exit_code(args: argparse.Namespace, scenario: Any, result: Any,
               disagreement: str | None) -> int:
    """The outcome's code, or under --strict the agreement with expect: (see main)."""
    checked = scenario.expect and not args.sets
    if disagreement is not None and not args.sets and (args.json or args.quiet or args.strict):
        print(f"mpisim: {scenario.name}: the run disagrees with expect: {disagreement}",
              file=sys.stderr)
    if args.strict and checked and disagreement is not None:
        return EXIT_DISAGREES
    found = strict_findings(scenario.name, result.findings) if args.strict else None
    if found is not None:
        return found
    if args.strict and result.unreceived:
        print(f"mpisim: {scenario.name}: {len(result.unreceived)} message(s) never received "
              "(--strict)", file=sys.stderr)
        return EXIT_UNRECEIVED
    if args.strict and checked:
        return EXIT_OK
    return result.exit_code


def _run_profiles(args: argparse.Namespace, scenario: Any) -> int:
    """``run --profiles``: the scenario under each profile, side by side."""
    from ..scenario import ScenarioError
    from ..whatif.profiles import compare_profiles

    names = [p.strip() for p in args.profiles.split(",") if p.strip()]
    try:
        with workers(args) as on:
            found = settings_error(lambda: compare_profiles(
                scenario, names, chosen_by="--profiles", **on))
    except ScenarioError as e:
        raise UsageError("--profiles: " + "; ".join(
            getattr(e, "problems", None) or [str(e)])) from None
    written: list[Path] = []
    if args.out or args.plot or args.trace:
        base = Path(args.out or Path("out") / scenario.name)
        for name, result in found.results:
            one = argparse.Namespace(**{**vars(args), "out": str(base / name)})
            written += write_outputs(result, one, scenario.name)
    if args.json:
        print(json.dumps(found.to_dict()), file=out(args))
    else:
        print(found.table() if args.quiet else found.report(), file=out(args))
        for path in written:
            print(f"wrote {path}", file=out(args))
    return found.exit_code


def _describe_expect(expect: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in expect.items())


def write_outputs(result: Any, args: argparse.Namespace, name: str) -> list[Path]:
    """The files of --out, --plot and --trace (into ``out/<name>`` without --out)."""
    out = args.out or (str(Path("out") / name) if (args.plot or args.trace) else None)
    if out is None:
        return []
    from ..report import export

    ranks, window = _plot_options(args, len(result.ranks))
    try:
        return export.write_run(result, Path(out), plot=args.plot, trace=args.trace,
                                ranks=ranks, window=window)
    except OSError as e:
        raise UsageError(f"cannot write to {out}: {e.strerror or e}") from None


def _plot_options(args: argparse.Namespace, size: int
                  ) -> tuple[list[int] | None, tuple[float, float] | None]:
    """--ranks and --window, checked (a bad value is a usage error before any file)."""
    return _ranks(args.ranks, size), _window(args.window)


def _ranks(text: str | None, size: int) -> list[int] | None:
    from ..whatif import parse_values

    if text is None:
        return None
    try:
        ranks = parse_values(text)
    except ValueError as e:
        raise UsageError(f"--ranks {text}: {e}") from None
    bad = [r for r in ranks if isinstance(r, bool) or not isinstance(r, int)
           or not 0 <= r < size]
    if bad:
        raise UsageError(f"--ranks {text}: {bad[0]!r} is not a rank in 0..{size - 1}")
    return ranks


def _window(text: str | None) -> tuple[float, float] | None:
    from ..values.units import UnitError, parse_time

    if text is None:
        return None
    start, sep, stop = text.partition("..")
    try:
        window = (parse_time(start), parse_time(stop)) if sep else None
    except UnitError as e:
        raise UsageError(f"--window {text}: {e}") from None
    if window is None or not 0 <= window[0] < window[1]:
        raise UsageError(f"--window {text}: expected START..END with "
                         "0 <= START < END, e.g. 10us..20us")
    return window


RUN = Command("run", options=run_options, handler=run_command,
              help="run a scenario and explain the outcome")
