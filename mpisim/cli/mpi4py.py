"""``mpisim mpi4py``: its options, and the script they describe run as a scenario
(:class:`~mpisim.mpi4py.run.scenario.ScriptScenario`): ``run``, or ``--check``, ``--min-buffer``,
``--vary`` (a sweep), as ``mpisim run``, ``check``, ``min-buffer`` and ``sweep`` run a
scenario file."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from typing import Any

from ..mpi4py.run.scenario import ScriptScenario, script_scenario
from ..mpi4py.run.script import ScriptError
from ..runs.estimate import WallClockLimit, wall_clock_limit
from ..runs.settings import assignment
from .common import Command, UsageError
from .options import add_run_options
from .run import RUN
from .shipped import shipped
from .whatif import mode_of, run_mode

__all__ = ["MPI4PY", "load_script", "mpi4py_options"]

EXIT_TIMEOUT = 5


def mpi4py_options(p: argparse.ArgumentParser) -> None:
    """The options of ``mpisim mpi4py`` (those of ``run``, ``check`` and ``min-buffer``)."""
    p.add_argument("-n", "-np", dest="np", type=int, default=1, metavar="N",
                   help="number of ranks (as mpiexec -n)")
    p.add_argument("--universe", "-usize", dest="universe", type=int, default=None,
                   metavar="N", help="MPI_UNIVERSE_SIZE, the processes MPI_Comm_spawn may "
                   "fill (as mpiexec -usize; same as --set mpi.universe=N)")
    p.add_argument("--profile", metavar="NAME|FILE.yaml",
                   help="the MPI library modelled: standard, mpich-4.0, openmpi-4.1, "
                        "mpich-5.0, openmpi-5.0 (mpich, openmpi: MPICH 4.0, Open MPI 4.1) "
                        "or a profile file from mpisim calibrate (same as --set "
                        "mpi.profile=...)")
    add_run_options(p, program="script", as_written="run as written",
                    min_buffer="the smallest size for the script's own Attach_buffer with "
                               "which it completes without overflow",
                    vary="a sweep (as `mpisim sweep`) over settings or ranks: "
                         "network.eager_limit=1KiB..64KiB:x2, ranks=2,4,8 (repeatable)")
    p.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                   help="wall-clock limit: the run then ends as a timeout (exit 5), naming "
                        "the line each rank's own code was running or the MPI call it waited "
                        "in (e.g. a loop that never calls MPI again)")
    p.add_argument("--report", metavar="FILE",
                   help="write mpisim's report (with --json: the JSON) to FILE; by default "
                        "the report goes to stderr and --json to stdout, and the script's "
                        "own output passes through unchanged (with --json on stdout, the "
                        "script's stdout goes to stderr)")
    p.add_argument("-m", dest="module", metavar="MODULE", choices=("mpi4py", "mpi4py.futures"),
                   help="run the script as `python -m MODULE script.py` does: mpi4py.futures "
                        "(rank 0 runs the script, the other ranks are the workers of its "
                        "MPIPoolExecutor) or mpi4py")
    p.add_argument("script", metavar="SCRIPT",
                   help="an mpi4py script (python file), or the name of a shipped one "
                        "(mpisim examples lists them: exchange.py)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")


def load_script(args: argparse.Namespace) -> ScriptScenario:
    """The ScriptScenario the options describe; ValueError naming the problem."""
    overrides: dict[str, Any] = {}
    overrides.update(assignment(text) for text in args.sets)
    if args.profile:
        overrides["mpi.profile"] = args.profile
    if args.universe is not None:
        overrides["mpi.universe"] = args.universe
    try:
        args.script = shipped(args.script, "mpi4py")  # a file, else a shipped script's name
    except OSError as e:
        raise ValueError(f"{args.script}: {e.strerror}") from None
    if not os.path.isfile(args.script):
        raise ValueError(f"{args.script}: no such script")
    try:
        output = ("discard" if mode_of(args) is not RUN else
                  "stderr" if args.json and not args.report else "stdout")
        return script_scenario(args.script, list(args.args), args.np, args.settings,
                               overrides, output, getattr(args, "module", None))
    except ScriptError as e:
        raise ValueError(str(e)) from None
    except ValueError as e:
        if args.profile:  # a bad --profile is named as the user gave it
            raise ValueError(str(e).replace("--set mpi.profile:", "--profile:")) from None
        raise


def mpi4py_command(args: argparse.Namespace) -> int:
    try:
        args.loaded = load_script(args)
    except ValueError as e:
        raise UsageError("\nmpisim: ".join(str(e).splitlines())) from None
    if args.timeout is not None and not args.timeout > 0:
        raise UsageError(f"--timeout {args.timeout:g}: expected a positive number of seconds")
    if args.report and not os.path.isdir(os.path.dirname(os.path.abspath(args.report))):
        raise UsageError(f"--report {args.report}: no such directory")  # (before the run)
    report = io.StringIO() if args.report else None
    args.report_to = report or (sys.stdout if args.json else sys.stderr)
    try:
        with wall_clock_limit(args.timeout):
            code = run_mode(mode_of(args), args, args.script)
    except WallClockLimit as e:  # reached outside a simulated rank (a sweep's wait)
        print(f"mpisim: {e}", file=sys.stderr)
        if args.json:  # (a JSON object whatever happened, as for an error)
            print(json.dumps({"outcome": "timeout", "exit_code": EXIT_TIMEOUT,
                              "problems": [str(e)]}), file=args.report_to)
        elif args.report_to is not sys.stderr:
            print(f"mpisim: {e}", file=args.report_to)
        code = EXIT_TIMEOUT
    if report is not None:
        _write_report(args.report, report.getvalue())
    return code


def _write_report(path: str, text: str) -> None:
    """``--report FILE``: the whole report or none of it (written beside, then renamed)."""
    partial = f"{path}.partial"
    try:
        with open(partial, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(partial, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise UsageError(f"--report {path}: cannot write: {e.strerror or e}") from None


MPI4PY = Command(
    "mpi4py", options=mpi4py_options, handler=mpi4py_command,
    help="run an unmodified mpi4py script on N simulated ranks",
    description="run an unmodified mpi4py script on N simulated ranks (run, --check or "
                "--min-buffer, with run's options); the supported calls are tabled in "
                "docs/guide/mpi4py.md. As under mpiexec, the script's own stdout and stderr "
                "pass through unchanged; mpisim's report goes to stderr (or --report FILE), "
                "as a checker's does.")
