"""The what-if commands: ``mpisim check`` (safety), ``mpisim sweep`` and ``mpisim min-buffer``;
and :func:`run_mode`, by which ``mpisim mpi4py`` and ``mpisim replay`` reach them and
``run`` (``--check``, ``--min-buffer``, ``--vary``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .common import (
    EXIT_OK,
    Command,
    UsageError,
    add_check_options,
    key_value,
    load,
    out,
    settings_error,
    strict_findings,
)
from .options import (
    add_collectives_option,
    add_findings_option,
    add_min_buffer_options,
    add_scenario_options,
    add_workers_options,
    workers,
)
from .run import RUN

__all__ = ["CHECK", "MIN_BUFFER", "SWEEP", "mode_of", "run_mode"]


# -- check -------------------------------------------------------------------------------------
def check_options(p: argparse.ArgumentParser) -> None:
    add_scenario_options(p)
    p.add_argument("--buffered", action="store_true",
                   help="keep bsends buffered and make only the other sends synchronous: "
                        "does the program rely on buffering beyond its attached buffer?")
    add_collectives_option(p)
    add_check_options(p)
    p.add_argument("--strict", action="store_true",
                   help="exit 8 when the run as written has correctness findings")
    add_findings_option(p)
    add_workers_options(p)


def _collectives(args: argparse.Namespace) -> str:
    return getattr(args, "collectives", "synchronizing").replace("-", "_")


def check_command(args: argparse.Namespace) -> int:
    from ..whatif import check_safe

    scenario = load(args)
    if args.races:
        return _races(args, scenario)
    if args.max_orders is not None:
        raise UsageError("--max-orders goes with --races")
    with workers(args) as on:
        safety = settings_error(lambda: check_safe(scenario, buffered=args.buffered,
                                                          collectives=_collectives(args), **on))
    if args.json:
        print(json.dumps(safety.to_dict()), file=out(args))
    elif args.quiet:
        print(f"{scenario.name}: "
              f"{'safe' if safety.safe else 'unsafe' if safety.judged else 'cannot judge'}",
              file=out(args))
    else:
        print(safety.report() if hasattr(safety, "report") else _safety_text(safety),
              file=out(args))
        _print_findings(safety.as_written, args.findings, out(args))
    found = strict_findings(scenario.name, safety.as_written.findings) if args.strict else None
    return safety.exit_code or found or EXIT_OK


def _print_findings(result: Any, shown: str, stream: Any) -> None:
    """The as-written run's correctness findings, after the verdict (leaks summarised per
    call site unless ``--findings all``), but for the one that only restates the error that
    ended the run: the verdict's "as written: error: ..." has said it."""
    from ..report.findings import finding_lines

    error = result.error
    findings = [f for f in result.findings if error is None or not (
        f.kind == "error" and f.message.endswith(error.message)
        and [c.rank for c in f.calls] == [error.rank])]
    lines = finding_lines(findings, shown)
    if lines:
        lines[0] = lines[0].replace("correctness findings", "correctness findings of the run "
                                    "as written", 1)
        print("\n".join("  " + ln for ln in lines), file=stream)


def _races(args: argparse.Namespace, scenario: Any) -> int:
    """``check --races``: the message-race exploration (mpisim.whatif.races)."""
    from ..whatif import check_races

    kwargs = {} if args.max_orders is None else {"max_orders": args.max_orders}
    races = settings_error(lambda: check_races(scenario, **kwargs))
    if args.json:
        print(json.dumps(races.to_dict()), file=out(args))
    elif args.quiet:
        print(f"{scenario.name}: {'racy' if races.racy else 'race-free'}", file=out(args))
    else:
        print(races.report(), file=out(args))
    return races.exit_code


def _safety_text(safety: Any) -> str:
    head = "SAFE" if safety.safe else "NOT SAFE"
    return (f"{head}: as written {safety.as_written.outcome.value}, with every send synchronous "
            f"{safety.synchronous.outcome.value}" + ("" if safety.safe else f"\n{safety.reason}"))


# -- sweep -------------------------------------------------------------------------------------
def sweep_options(p: argparse.ArgumentParser) -> None:
    add_scenario_options(p)
    p.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="values or ranges: 1KiB..64KiB:x2, 0..100:10 (repeatable)")
    add_workers_options(p)
    p.add_argument("--out", metavar="DIR", help="write sweep.csv and sweep.png")
    p.add_argument("--buffer", metavar="comm:NAME", default=None,
                   help="a varied `buffer` is the size of the buffer attached to "
                        "communicator NAME (MPI 4.1) instead of the process buffer")


def sweep_command(args: argparse.Namespace) -> int:
    from ..whatif import sweep

    scenario = load(args)
    vary = _vary(args.vary)
    with workers(args) as on:
        table = settings_error(lambda: sweep(scenario, vary, buffer=args.buffer, **on))
    if args.out:
        _write_sweep(table, Path(args.out))
    if args.json:
        print(json.dumps(table.to_dict() if hasattr(table, "to_dict") else table.rows()),
              file=out(args))
    elif args.quiet:
        print(f"{scenario.name}: {table.summary()}", file=out(args))
    else:
        print(table, file=out(args))
        if args.out:
            print(f"wrote {Path(args.out) / 'sweep.csv'} and {Path(args.out) / 'sweep.png'}",
                  file=out(args))
    return EXIT_OK


def _vary(texts: list[str]) -> dict[str, list[Any]]:
    """--vary KEY=V1,V2,... (at least one), each key's values."""
    from ..whatif import parse_values

    if not texts:
        raise UsageError("sweep needs at least one --vary KEY=V1,V2,...")
    vary: dict[str, list[Any]] = {}
    for text in texts:
        key, values = key_value(text, "--vary")
        try:
            vary[key] = parse_values(values)
        except ValueError as e:
            raise UsageError(f"--vary {key}: {e}") from None
    return vary


def _write_sweep(table: Any, out: Path) -> None:
    """sweep.csv and sweep.png, as one output directory (written whole)."""
    from ..plot.sweepmap import plot_sweep
    from ..report.export import write_files

    def png(f: Any) -> None:
        plot_sweep(table).savefig(f, format="png", dpi=120)

    try:
        write_files(out, [("sweep.csv", lambda f: f.write(table.csv_text()), False),
                          ("sweep.png", png, True)])
    except OSError as e:
        raise UsageError(f"cannot write to {out}: {e.strerror or e}") from None


# -- min-buffer --------------------------------------------------------------------------------
def min_buffer_options(p: argparse.ArgumentParser) -> None:
    add_scenario_options(p)
    add_min_buffer_options(p)
    p.add_argument("--buffer", metavar="comm:NAME", default=None,
                   help="search the buffer the program attaches to communicator NAME (its "
                        "scenario name) instead of the process buffer (MPI 4.1)")
    add_workers_options(p)


def min_buffer_command(args: argparse.Namespace) -> int:
    from ..whatif import min_buffer, min_buffer_per_rank

    scenario = load(args)
    seeds = _seeds(args.seeds)
    with workers(args) as on:
        if args.per_rank:
            found = settings_error(lambda: min_buffer_per_rank(scenario, seeds=seeds,
                                                               buffer=args.buffer, **on))
        else:
            found = settings_error(lambda: min_buffer(scenario, rank=args.rank, seeds=seeds,
                                                      buffer=args.buffer, **on))
    if args.json:
        print(json.dumps(found.to_dict()), file=out(args))
    elif args.quiet:
        answer = getattr(found, "min_buffer", None)
        print(f"{scenario.name}: " + (f"{answer} B" if answer is not None else
                                      found.never or "see the full report"),
              file=out(args))
    else:
        print(found.report(), file=out(args))
    return found.exit_code


def _seeds(text: str | None) -> list[int] | None:
    from ..whatif import parse_values

    if text is None:
        return None
    try:
        return [int(v) for v in parse_values(text)]
    except (ValueError, TypeError) as e:
        raise UsageError(f"--seeds {text}: {e}") from None


CHECK = Command("check", options=check_options, handler=check_command,
                help="safety: run as written, then with every send synchronous")
SWEEP = Command("sweep", options=sweep_options, handler=sweep_command,
                help="run the cartesian product of varied keys")
MIN_BUFFER = Command(
    "min-buffer", options=min_buffer_options, handler=min_buffer_command,
    help="smallest attach size with which the program completes without overflow (searches "
         "the program's own buffer_attach, else `buffer`)")


# -- the modes of a program given outside a scenario file ------------------------------------
def mode_of(args: argparse.Namespace) -> Command:
    """The command ``--check``, ``--min-buffer`` or ``--vary`` choose (else ``run``);
    ``--races`` alone is ``--check --races``."""
    return (CHECK if args.check or (getattr(args, "races", False) and not args.min_buffer
                                    and not args.vary) else
            MIN_BUFFER if args.min_buffer else SWEEP if args.vary else RUN)


def run_mode(command: Command, args: argparse.Namespace, program: str) -> int:
    """Run ``command`` with ``args`` (``mpisim mpi4py``'s, ``mpisim replay``'s), its other
    options at their defaults, ``program`` in place of its scenario."""
    if getattr(args, "trace_dir", None) and command.name != "run":
        mode = "--vary" if command.name == "sweep" else f"--{command.name}"
        raise UsageError(f"--trace-dir writes the trace of one run: not with {mode}")
    own = argparse.ArgumentParser(prog=f"mpisim {command.name}")
    command.options(own)
    for key, value in vars(own.parse_args([program])).items():
        if not hasattr(args, key):  # that command's other options, at their defaults
            setattr(args, key, value)
    return command.handler(args)
