"""``mpisim calibrate``: its options and its run (the probes and the fit are
:mod:`mpisim.calibrate`'s)."""

from __future__ import annotations

import argparse
import os
import sys

from ..calibrate import CalibrationError, FitError, calibrate
from .common import EXIT_OK, Command, UsageError

__all__ = ["CALIBRATE", "calibrate_options", "run"]


def calibrate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mpiexec", default="mpiexec -n 2", metavar="COMMAND",
                   help="how to start 2 processes of your MPI (default: 'mpiexec -n 2'; "
                        "Open MPI as root: 'mpiexec --allow-run-as-root --oversubscribe -n 2')")
    p.add_argument("--python", default=sys.executable, metavar="PATH",
                   help="a Python with mpi4py built against that MPI (default: this one)")
    p.add_argument("--out", default="my-mpi.yaml", metavar="FILE.yaml",
                   help="the profile file to write (default my-mpi.yaml)")
    p.add_argument("--name", help="the profile's name (default: the file's name)")
    p.add_argument("--observations", metavar="FILE.json",
                   help="also keep every probe's raw record there")
    p.add_argument("--from-observations", metavar="FILE.json",
                   help="refit stored records instead of running the probes")


def run(args: argparse.Namespace) -> str:
    """Calibrate; the line to print. ValueError (one line) for anything that went wrong."""
    if not args.out.lower().endswith((".yaml", ".yml")):
        raise ValueError(f"--out {args.out}: a profile file ends in .yaml")
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):
        raise ValueError(f"--out {args.out}: no directory {folder}")
    try:
        profile = calibrate(args.mpiexec, args.python, args.out, args.name,
                            progress=lambda line: print(line, file=sys.stderr, flush=True),
                            observations=args.observations,
                            from_observations=args.from_observations)
    except (CalibrationError, FitError, OSError) as e:
        raise ValueError(f"calibrate: {e}".splitlines()[0]) from None
    return (f"wrote {args.out}: profile {profile.name} of {profile.library}; use it with "
            f"--set mpi.profile={args.out} or mpi: {{profile: {args.out}}}")


def calibrate_command(args: argparse.Namespace) -> int:
    try:
        print(run(args))
    except ValueError as e:
        raise UsageError(str(e)) from None
    return EXIT_OK


CALIBRATE = Command(
    "calibrate", options=calibrate_options, handler=calibrate_command,
    help="measure your MPI library with mpi4py probes and write a profile file",
    description="run probe programs under your mpiexec and write a profile (each value with "
                "its evidence) that --set mpi.profile=FILE and mpi: {profile: FILE} accept")
