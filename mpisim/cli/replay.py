"""``mpisim replay`` and ``mpisim record``: their options, loading a recording, and their runs.

``mpisim replay TRACE`` takes ``run``'s options and, like ``mpisim mpi4py``, ``--check``,
``--min-buffer`` and ``--vary`` (a sweep), plus the replay's own ``--compute-scale``,
``--as-matched`` and ``--to-yaml``. ``run``, ``check``, ``sweep``, ``min-buffer`` and
``validate`` also take a recording in place of a scenario file (``--set compute_scale=0``).
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
from typing import Any

from ..runs.settings import assignment
from .common import EXIT_OK, Command, UsageError
from .options import add_run_options
from .run import RUN
from .whatif import mode_of, run_mode

__all__ = ["RECORD", "REPLAY", "load_replay", "record_options", "replay_options"]


def replay_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("recording", metavar="TRACE", help="a recording (mpisim record --out TRACE)")
    p.add_argument("--compute-scale", type=float, default=None, metavar="X",
                   help="computation between calls = X times the measured time outside MPI "
                        "(default 1; 0 ignores it)")
    p.add_argument("--as-matched", action="store_true",
                   help="pin each wildcard receive to the source it matched in the recording")
    p.add_argument("--to-yaml", nargs="?", const="-", default=None, metavar="FILE",
                   help="write the recording as a scenario file (stdout without FILE) "
                        "instead of running it")
    p.add_argument("--profiles", metavar="P,P,...",
                   help="run under each profile side by side, e.g. standard,mpich-5.0 (by "
                        "default a replay runs under the recorded library's profile; mpich "
                        "and openmpi are MPICH 4.0 and Open MPI 4.1)")
    add_run_options(p, program="recording", as_written="as recorded",
                    min_buffer="the smallest size for the recorded MPI_Buffer_attach calls "
                               "with which the replay completes without overflow",
                    vary="a sweep over settings: network.eager_limit=1KiB..64KiB:x2, "
                         "mpi.profile=standard,mpich, compute_scale=0,1 (repeatable)",
                    modes="--check, --min-buffer, --vary or --profiles")


def record_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", "-o", metavar="TRACE", default="run.trace",
                   help="the recording to write (default run.trace)")
    p.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                   help="stop the run after this long (SIGTERM to it: a deadlocking run "
                        "still leaves its calls up to the blocked ones)")
    p.add_argument("--stall", metavar="SECONDS", type=float, default=30.0,
                   help="stop the run as a likely deadlock once every process has waited "
                        "inside one MPI call this long, and name each blocked call (exit 3; "
                        "default 30; 0 never; processes on other hosts are not watched)")
    p.add_argument("--mpicc", metavar="PATH", default=None,
                   help="the MPI C compiler wrapper to build the recorder with; the recorder "
                        "must link the program's own MPI library, and one that does not is "
                        "refused (default: $MPICC, else the mpicc beside the launcher, found "
                        "inside wrappers such as timeout or env, else the one of the program's "
                        "library, else mpicc on PATH)")
    p.add_argument("--format", choices=("compact", "text"), default="compact",
                   help="the recording's format: compact (binary columns in compressed "
                        "blocks, written as the program runs: 2 to 8 bytes a call; the "
                        "default) or text (a line a call, 50 to 60 bytes; any editor reads "
                        "it); every command that takes a recording reads both")
    p.add_argument("--no-hash", dest="hash_data", action="store_false",
                   help="do not hash the data of sends and receives (the recording then "
                        "holds no data lines: no buffer-modified finding, no RACY (data); "
                        "the buffers' addresses are still logged). Default: hashed, about 1,700 "
                        "instructions a call on a ping-pong (most in compressing the "
                        "hashes) and 0.2 ns a byte sent or received; "
                        "the same as MPISIM_NO_HASH=1 in the recorded processes' environment; "
                        "needed for a program that sends from GPU memory")
    p.add_argument("--convert", metavar="TRACE", default=None,
                   help="write the text recording TRACE in the compact format to --out "
                        "instead of running a command (e.g. mpisim record --convert "
                        "old.trace --out new.trace)")
    p.add_argument("--shim", action="store_true",
                   help="print the path of the recorder's C source (to link it into a "
                        "statically linked application) and exit")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                   help="the run to record, e.g. -- mpiexec -n 4 ./app")


def load_replay(args: argparse.Namespace) -> Any:
    """The ReplayScenario the options describe; ValueError naming the problem."""
    from ..recorded.replayer.scenario import replay_scenario

    overrides: dict[str, Any] = {}
    overrides.update(assignment(text) for text in args.sets)
    if args.compute_scale is not None:
        overrides["compute_scale"] = args.compute_scale
    if args.as_matched:
        overrides["as_matched"] = True
    return replay_scenario(args.recording, args.settings, overrides)


def replay_command(args: argparse.Namespace) -> int:
    try:
        args.loaded = scenario = load_replay(args)
        if args.to_yaml is not None:
            from ..recorded.toyaml.write import write_yaml

            written = write_yaml(scenario, args.to_yaml)
            if written:
                print(f"wrote {written}", file=sys.stderr)
            return EXIT_OK
    except ValueError as e:
        raise UsageError("\nmpisim: ".join(str(e).splitlines())) from None
    command = mode_of(args)
    verdict = command is RUN and not (args.json or args.profiles)  # -q keeps the verdict
    if verdict and not args.quiet:
        print(scenario.recording())
    quiet = verdict and args.quiet
    if quiet:  # -q: one line, the outcome with the verdict
        args.report_to = io.StringIO()
    code = run_mode(command, args, args.recording)
    said = scenario.compare(scenario.last_result) if verdict and \
        scenario.last_result is not None else None
    if quiet:
        line = args.report_to.getvalue().strip()
        print(f"{line}; {said}" if said else line)
    elif said:
        print(said)
    return code


def _convert(args: argparse.Namespace, command: list[str]) -> int:
    """``mpisim record --convert TRACE --out OUT``: a text recording made compact."""
    from ..recorded.read.records import TraceError
    from ..recorded.record.compact import convert

    if command:
        raise UsageError("record --convert: give a recording or a command to run, not both")
    if args.format != "compact":
        raise UsageError("record --convert writes the compact format (--format text: the "
                         "recording is already text)")
    if os.path.abspath(args.convert) == os.path.abspath(args.out):
        raise UsageError(f"record --convert {args.convert}: --out must name another file")
    try:
        calls = convert(args.convert, args.out)
    except TraceError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"--out {args.out}: {e.strerror or e}") from None
    print(f"mpisim record: wrote {args.out} ({calls:,} calls, compact)", file=sys.stderr)
    return EXIT_OK


def record_command(args: argparse.Namespace) -> int:
    from ..recorded.record.recorder import RecordError, record, shim_source

    if args.shim:
        print(shim_source())
        return EXIT_OK
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.convert is not None:
        return _convert(args, command)
    if args.stall < 0:
        raise UsageError(f"--stall {args.stall:g}: must be 0 (never) or more seconds")
    try:
        return record(command, args.out, timeout=args.timeout, mpicc=args.mpicc,
                      stall=args.stall, fmt=args.format, hash_data=args.hash_data)
    except RecordError as e:
        raise UsageError(str(e)) from None
    except KeyboardInterrupt as e:
        kept = getattr(e, "kept", None)
        if not kept:
            raise
        signum = getattr(e, "signum", signal.SIGINT)
        print(f"mpisim: interrupted by {signal.Signals(signum).name}; {kept}", file=sys.stderr)
        return 128 + int(signum)


REPLAY = Command(
    "replay", options=replay_options, handler=replay_command,
    help="replay a recorded run (mpisim record) in the simulator",
    description="replay a recorded run: run, --check, --min-buffer, --vary or --to-yaml "
                "(docs/guide/record-replay.md)")
RECORD = Command(
    "record", options=record_options, handler=record_command,
    help="record a real MPI run for replay: mpisim record [--out run.trace] -- mpiexec -n 4 "
         "./app",
    description="record a real MPI run with a PMPI library built with the MPI's own mpicc "
                "and preloaded (LD_PRELOAD)")
