"""The ``mpisim`` command line: argument parsing, printing and exit codes, no logic of its own.

Exit codes: 0 the simulated program completed (``check``: safe); 2 invalid input or usage;
3 deadlock (``check``: not safe); 4 an MPI error ended the program (e.g. overflow);
5 timeout; 6 (``run --strict``) the run disagrees with the scenario's ``expect:``; 7
(``run --strict``) it completed, but some messages were never received (erroneous, MPI 4.1
§11.2.2);
130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM (128 + the signal, as shells report).
Errors are one line on stderr, never a traceback.

``run --strict`` is for CI: with an ``expect:`` (and no ``--set``, since ``expect:``
describes the scenario as written) the exit code says whether the run agrees with it: 0 it
does (a teaching scenario that is meant to deadlock passes), 6 it does not, with the
difference on stderr; then, a completed run that left messages unreceived exits 7 (without
``--strict`` it exits 0 with a warning). Otherwise the code follows the outcome as usual.

Interrupted, a command writes nothing (an output directory is replaced whole or not at all,
see :func:`mpisim.report.export.output_dir`), except that a sweep keeps the runs it finished: with
``--out DIR`` they go to ``DIR/sweep.partial.csv``, the only file of DIR then.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..runs.settings import assignment

EXIT_OK, EXIT_USAGE, EXIT_DEADLOCK, EXIT_ERROR, EXIT_TIMEOUT = 0, 2, 3, 4, 5
EXIT_DISAGREES, EXIT_UNRECEIVED = 6, 7


class UsageError(Exception):
    """Invalid input: printed as one line, exit 2."""


def main(argv: Sequence[str] | None = None) -> int:
    from .interrupts import catching_sigterm, interrupted

    return catching_sigterm(lambda: _main(argv), interrupted)


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as e:
        print(f"mpisim: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as e:
        from .interrupts import interrupted

        return interrupted(e, getattr(args, "out", None))
    except BrokenPipeError:
        return EXIT_OK


# -- parser ------------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    from .options import add_min_buffer_options

    p = argparse.ArgumentParser(
        prog="mpisim", description="Simulate MPI buffered communication (MPI_Bsend and the "
        "attached buffer): does a communication pattern complete, deadlock or overflow?",
        epilog="exit codes: 0 completed, 2 invalid input, 3 deadlock, 4 MPI error, 5 timeout, "
               "6 disagrees with expect: and 7 unreceived messages (run --strict), 130/143 "
               "interrupted (SIGINT/SIGTERM)")
    p.add_argument("--version", action="version", version=f"mpisim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    run = _command(sub, "run", "run a scenario and explain the outcome", _cmd_run)
    run.add_argument("--out", metavar="DIR", help="write result.json, messages.csv, buffer.csv")
    run.add_argument("--plot", action="store_true",
                     help="also write occupancy.png and timeline.png (into --out, default "
                          "out/<scenario>)")
    run.add_argument("--trace", choices=["chrome"], help="also write trace.json (Perfetto)")
    run.add_argument("--profiles", metavar="P,P,...",
                     help="run under each profile side by side, e.g. standard,mpich,openmpi "
                          "(each profile brings its allocator and sizing unless --set names "
                          "them)")
    run.add_argument("--strict", action="store_true",
                     help="for CI: exit 0 when the run agrees with the scenario's expect:, "
                          "6 when it does not, 7 when messages were never received")
    run.add_argument("--ranks", metavar="R,R,...", help="ranks the plots show: 0,3,40 or "
                     "0..7 (default: the failing ranks, then the others)")
    run.add_argument("--window", metavar="T0..T1", help="time span of the timeline plot, "
                     "e.g. 10us..20us")

    check = _command(sub, "check", "safety: run as written, then with every send synchronous",
                     _cmd_check)
    check.add_argument("--buffered", action="store_true",
                       help="keep bsends buffered and make only the other sends synchronous: "
                            "does the program rely on buffering beyond its attached buffer?")

    sweep = _command(sub, "sweep", "run the cartesian product of varied keys", _cmd_sweep)
    sweep.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                       help="values or ranges: 1KiB..64KiB:x2, 0..100:10 (repeatable)")
    sweep.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    sweep.add_argument("--dask", metavar="ADDRESS", help="run on a Dask distributed scheduler")
    sweep.add_argument("--out", metavar="DIR", help="write sweep.csv and sweep.png")
    sweep.add_argument("--buffer", metavar="comm:NAME", default=None,
                       help="a varied `buffer` is the size of the buffer attached to "
                            "communicator NAME (MPI 4.1) instead of the process buffer")

    mb = _command(sub, "min-buffer", "smallest attach size with which the program completes "
                  "without overflow (searches the program's own buffer_attach, else `buffer`)",
                  _cmd_min_buffer)
    add_min_buffer_options(mb)
    mb.add_argument("--buffer", metavar="comm:NAME", default=None,
                    help="search the buffer the program attaches to communicator NAME (its "
                         "scenario name) instead of the process buffer (MPI 4.1)")

    _command(sub, "validate", "load and check a scenario without running it", _cmd_validate)

    prof = sub.add_parser("profiles", help="every setting of each profile, its value and "
                          "where it comes from", description="every setting of each "
                          "implementation profile, its value and the text or measurement it "
                          "comes from")
    prof.add_argument("--markdown", action="store_true", help="as the README's table")
    prof.add_argument("names", nargs="*", metavar="NAME|FILE.yaml",
                      help="only these profiles (a profile file shows its evidence)")
    prof.set_defaults(handler=_cmd_profiles)

    from .calibrate import add_arguments as calibrate_arguments

    cal = sub.add_parser("calibrate", help="measure your MPI library with mpi4py probes and "
                         "write a profile file", description="run probe programs under your "
                         "mpiexec and write a profile (each value with its evidence) that "
                         "--set mpi.profile=FILE and mpi: {profile: FILE} accept")
    calibrate_arguments(cal)
    cal.set_defaults(handler=_cmd_calibrate)

    sets = sub.add_parser("settings", help="every setting (--set, --vary, scenario keys, "
                          "mpisim.run): its value, default and meaning",
                          description="every setting a scenario, --set, --vary and "
                          "mpisim.run accept, from its one declaration")
    sets.add_argument("--markdown", action="store_true", help="as the README's table")
    sets.set_defaults(handler=_cmd_settings)

    from .mpi4py import add_arguments

    m4 = sub.add_parser("mpi4py", help="run an unmodified mpi4py script on N simulated ranks",
                        description="run an unmodified mpi4py script on N simulated ranks "
                        "(run, --check or --min-buffer, with run's options); the supported "
                        "calls are tabled in the README, section 'mpi4py scripts'")
    add_arguments(m4)
    m4.set_defaults(handler=_cmd_mpi4py)

    from .replay import add_record_arguments, add_replay_arguments

    rp = sub.add_parser("replay", help="replay a recorded run (mpisim record) in the "
                        "simulator", description="replay a recorded run: run, --check, "
                        "--min-buffer, --vary or --to-yaml (README, section 'Recording and "
                        "replaying a real run')")
    add_replay_arguments(rp)
    rp.set_defaults(handler=_cmd_replay)
    rec = sub.add_parser("record", help="record a real MPI run for replay: mpisim record "
                         "[--out run.trace] -- mpiexec -n 4 ./app", description="record a "
                         "real MPI run with a PMPI library built with the MPI's own mpicc and "
                         "preloaded (LD_PRELOAD)")
    add_record_arguments(rec)
    rec.set_defaults(handler=_cmd_record)
    return p


def _command(sub: Any, name: str, help_text: str, handler: Callable[[argparse.Namespace], int]
             ) -> argparse.ArgumentParser:
    c = sub.add_parser(name, help=help_text, description=help_text)
    c.add_argument("scenario", metavar="SCENARIO", help="a scenario file (.yaml or .py)")
    c.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="override a param (count=4096) or setting (network.eager_limit=64KiB, "
                        "mpi.allocator=first-fit, buffer=16KiB); repeatable")
    c.add_argument("--json", action="store_true", help="print JSON instead of the summary")
    c.add_argument("--quiet", "-q", action="store_true", help="print only the outcome line")
    c.set_defaults(handler=handler)
    return c


# -- shared steps --------------------------------------------------------------------------
def _load(args: argparse.Namespace) -> Any:
    from ..scenario import ScenarioError, load

    if getattr(args, "loaded", None) is not None:  # mpisim mpi4py: the script, loaded
        return args.loaded
    from ..recorded import is_trace

    if is_trace(args.scenario):  # a recording (mpisim record) in place of a scenario
        from ..recorded import replay_scenario

        try:
            return replay_scenario(args.scenario, overrides=dict(
                _key_value(s, "--set") for s in args.sets))
        except ValueError as e:
            raise UsageError("\nmpisim: ".join(str(e).splitlines())) from None
    try:
        scenario = load(args.scenario)
        overrides = dict(_key_value(s, "--set") for s in args.sets)
        return scenario.with_overrides(overrides) if overrides else scenario
    except ScenarioError as e:
        raise UsageError("\nmpisim: ".join(getattr(e, "problems", None) or [str(e)])) from None
    except OSError as e:
        raise UsageError(f"{args.scenario}: {e.strerror or e}") from None


def _key_value(text: str, option: str) -> tuple[str, str]:
    try:
        return assignment(text, option)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _settings_error(fn: Callable[[], Any]) -> Any:
    """Run ``fn``; a bad setting found only by the engine becomes a usage error."""
    try:
        return fn()
    except ValueError as e:
        raise UsageError(str(e).splitlines()[0]) from None


def _progress() -> Callable[[int, float], None] | None:
    if not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    from ..values.units import format_time

    bar = tqdm(unit=" events", file=sys.stderr, leave=False, dynamic_ncols=True)

    def update(events: int, now: float) -> None:
        bar.update(events - bar.n)
        bar.set_postfix_str(f"t = {format_time(now)}")
    return update


# -- commands ------------------------------------------------------------------------------
def _cmd_run(args: argparse.Namespace) -> int:
    import mpisim as ms

    scenario = _load(args)
    if args.profiles:
        return _run_profiles(args, scenario)
    sim = _settings_error(lambda: ms.Simulation(**scenario.run_kwargs()))
    result = scenario.annotate(sim.run(progress=_progress()))
    disagreement = scenario.check_expect(result)
    written = _write_outputs(result, args, scenario.name)
    if args.json:
        print(result.to_json())
    elif args.quiet:
        print(f"{result.scenario}: {result.outcome.value}")
    else:
        print(result.report())
        if scenario.expect and args.sets:  # expect: describes the scenario as written
            print(f"expected without --set: {_describe_expect(scenario.expect)}"
                  + ("" if disagreement is None else " (this run differs)"))
        elif scenario.expect:
            print(f"expected: {_describe_expect(scenario.expect)} — "
                  + ("agrees" if disagreement is None else f"DISAGREES: {disagreement}"))
        for path in written:
            print(f"wrote {path}")
    checked = scenario.expect and not args.sets
    if disagreement is not None and not args.sets and (args.json or args.quiet or args.strict):
        print(f"mpisim: {scenario.name}: the run disagrees with expect: {disagreement}",
              file=sys.stderr)
    if args.strict and checked and disagreement is not None:
        return EXIT_DISAGREES
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
        found = _settings_error(lambda: compare_profiles(scenario, names))
    except ScenarioError as e:
        raise UsageError("--profiles: " + "; ".join(
            getattr(e, "problems", None) or [str(e)])) from None
    written: list[Path] = []
    if args.out or args.plot or args.trace:
        base = Path(args.out or Path("out") / scenario.name)
        for name, result in found.results:
            one = argparse.Namespace(**{**vars(args), "out": str(base / name)})
            written += _write_outputs(result, one, scenario.name)
    if args.json:
        print(json.dumps(found.to_dict()))
    else:
        print(found.table() if args.quiet else found.report())
        for path in written:
            print(f"wrote {path}")
    return found.exit_code


def _describe_expect(expect: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in expect.items())


def _write_outputs(result: Any, args: argparse.Namespace, name: str) -> list[Path]:
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
    from ..values.units import UnitError, parse_time
    from ..whatif import parse_values

    ranks = window = None
    if args.ranks is not None:
        try:
            ranks = parse_values(args.ranks)
        except ValueError as e:
            raise UsageError(f"--ranks {args.ranks}: {e}") from None
        bad = [r for r in ranks if isinstance(r, bool) or not isinstance(r, int)
               or not 0 <= r < size]
        if bad:
            raise UsageError(f"--ranks {args.ranks}: {bad[0]!r} is not a rank in 0..{size - 1}")
    if args.window is not None:
        start, sep, stop = args.window.partition("..")
        try:
            window = (parse_time(start), parse_time(stop)) if sep else None
        except UnitError as e:
            raise UsageError(f"--window {args.window}: {e}") from None
        if window is None or not 0 <= window[0] < window[1]:
            raise UsageError(f"--window {args.window}: expected START..END with "
                             "0 <= START < END, e.g. 10us..20us")
    return ranks, window


def _cmd_check(args: argparse.Namespace) -> int:
    from ..whatif import check_safe

    scenario = _load(args)
    safety = _settings_error(lambda: check_safe(scenario, buffered=args.buffered))
    if args.json:
        print(json.dumps(safety.to_dict()))
    elif args.quiet:
        print(f"{scenario.name}: {'safe' if safety.safe else 'unsafe'}")
    else:
        print(safety.report() if hasattr(safety, "report") else _safety_text(safety))
    return EXIT_OK if safety.safe else EXIT_DEADLOCK


def _safety_text(safety: Any) -> str:
    head = "SAFE" if safety.safe else "NOT SAFE"
    return (f"{head}: as written {safety.as_written.outcome.value}, with every send synchronous "
            f"{safety.synchronous.outcome.value}" + ("" if safety.safe else f"\n{safety.reason}"))


def _cmd_sweep(args: argparse.Namespace) -> int:
    from ..whatif import parse_values, sweep

    scenario = _load(args)
    if not args.vary:
        raise UsageError("sweep needs at least one --vary KEY=V1,V2,...")
    vary: dict[str, list[Any]] = {}
    for text in args.vary:
        key, values = _key_value(text, "--vary")
        try:
            vary[key] = parse_values(values)
        except ValueError as e:
            raise UsageError(f"--vary {key}: {e}") from None
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    executor, client = _executor(args)
    try:
        table = _settings_error(lambda: sweep(scenario, vary, executor=executor, jobs=args.jobs,
                                              buffer=args.buffer))
    finally:
        if client is not None:
            client.close()
    if args.out:
        _write_sweep(table, Path(args.out))
    if args.json:
        print(json.dumps(table.to_dict() if hasattr(table, "to_dict") else table.rows()))
    elif not args.quiet:
        print(table)
        if args.out:
            print(f"wrote {Path(args.out) / 'sweep.csv'} and {Path(args.out) / 'sweep.png'}")
    return EXIT_OK


def _executor(args: argparse.Namespace) -> tuple[Any, Any]:
    if not args.dask:
        return None, None
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs the dask extra: pip install 'mpisim[dask]'") from None
    try:
        client = Client(args.dask, timeout="10s")
    except OSError as e:
        raise UsageError(f"--dask {args.dask}: cannot reach the scheduler ({e})") from None
    return client.get_executor(), client


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


def _cmd_min_buffer(args: argparse.Namespace) -> int:
    from ..whatif import min_buffer, min_buffer_per_rank, parse_values

    scenario = _load(args)
    seeds = None
    if args.seeds is not None:
        try:
            seeds = [int(v) for v in parse_values(args.seeds)]
        except (ValueError, TypeError) as e:
            raise UsageError(f"--seeds {args.seeds}: {e}") from None
    if args.per_rank:
        found = _settings_error(lambda: min_buffer_per_rank(scenario, seeds=seeds,
                                                            buffer=args.buffer))
    else:
        found = _settings_error(lambda: min_buffer(scenario, rank=args.rank, seeds=seeds,
                                                   buffer=args.buffer))
    if args.json:
        print(json.dumps(found.to_dict()))
    elif args.quiet:
        answer = getattr(found, "min_buffer", None)
        print(f"{scenario.name}: " + (f"{answer} B" if answer is not None else
                                      found.never or "see the full report"))
    else:
        print(found.report())
    return found.exit_code


def _cmd_mpi4py(args: argparse.Namespace) -> int:
    from .mpi4py import load_script

    try:
        args.loaded = load_script(args)
    except ValueError as e:
        raise UsageError("\nmpisim: ".join(str(e).splitlines())) from None
    command, handler = (("check", _cmd_check) if args.check else
                        ("min-buffer", _cmd_min_buffer) if args.min_buffer else
                        ("sweep", _cmd_sweep) if args.vary else
                        ("run", _cmd_run))
    for key, value in vars(_parser().parse_args([command, args.script])).items():
        if not hasattr(args, key):  # that command's other options, at their defaults
            setattr(args, key, value)
    return handler(args)


def _cmd_replay(args: argparse.Namespace) -> int:
    from .replay import load_replay

    try:
        args.loaded = scenario = load_replay(args)
        if args.to_yaml is not None:
            from ..recorded.toyaml import write_yaml

            written = write_yaml(scenario, args.to_yaml)
            if written:
                print(f"wrote {written}", file=sys.stderr)
            return EXIT_OK
    except ValueError as e:
        raise UsageError("\nmpisim: ".join(str(e).splitlines())) from None
    command, handler = (("check", _cmd_check) if args.check else
                        ("min-buffer", _cmd_min_buffer) if args.min_buffer else
                        ("sweep", _cmd_sweep) if args.vary else
                        ("run", _cmd_run))
    for key, value in vars(_parser().parse_args([command, args.recording])).items():
        if not hasattr(args, key):  # that command's other options, at their defaults
            setattr(args, key, value)
    talk = command == "run" and not (args.json or args.quiet or args.profiles)
    if talk:
        print(scenario.recording())
    code = handler(args)
    if talk and scenario.last_result is not None:
        print(scenario.compare(scenario.last_result))
    return code


def _cmd_record(args: argparse.Namespace) -> int:
    from ..recorded.record import RecordError, record, shim_source

    if args.shim:
        print(shim_source())
        return EXIT_OK
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    try:
        return record(command, args.out, timeout=args.timeout, mpicc=args.mpicc)
    except RecordError as e:
        raise UsageError(str(e)) from None


def _cmd_profiles(args: argparse.Namespace) -> int:
    from ..profiles.evidence import table
    from ..profiles.library import get_profile

    try:
        chosen = [get_profile(n) for n in args.names] or None
    except ValueError as e:
        raise UsageError(str(e).splitlines()[0]) from None
    print(table(markdown=args.markdown, profiles=chosen))
    return EXIT_OK


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from .calibrate import run

    try:
        print(run(args))
    except ValueError as e:
        raise UsageError(str(e)) from None
    return EXIT_OK


def _cmd_settings(args: argparse.Namespace) -> int:
    from ..runs.settings import markdown_table, text_table

    print(markdown_table() if args.markdown else text_table(), end="")
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    scenario = _load(args)
    _settings_error(lambda: _resolve_settings(scenario))
    if not args.quiet:
        print(f"ok: {scenario.name} ({scenario.ranks} ranks)")
    return EXIT_OK


def _resolve_settings(scenario: Any) -> None:
    """Build (not run) the simulation so that every setting is checked."""
    import mpisim as ms

    ms.Simulation(**scenario.run_kwargs())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
