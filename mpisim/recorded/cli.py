"""``mpisim replay`` and ``mpisim record``: their options, and loading a recording.

``mpisim replay TRACE`` takes ``run``'s options and, like ``mpisim mpi4py``, ``--check``,
``--min-buffer`` and ``--vary`` (a sweep), plus the replay's own ``--compute-scale``,
``--as-matched`` and ``--to-yaml``. ``run``, ``check``, ``sweep``, ``min-buffer`` and
``validate`` also take a recording in place of a scenario file (``--set compute_scale=0``).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..settings import assignment

__all__ = ["add_record_arguments", "add_replay_arguments", "load_replay"]


def add_replay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("recording", metavar="TRACE", help="a recording (mpisim record --out TRACE)")
    p.add_argument("--compute-scale", type=float, default=None, metavar="X",
                   help="computation between calls = X times the measured time outside MPI "
                        "(default 1; 0 ignores it)")
    p.add_argument("--as-matched", action="store_true",
                   help="pin each wildcard receive to the source it matched in the recording")
    p.add_argument("--to-yaml", nargs="?", const="-", default=None, metavar="FILE",
                   help="write the recording as a scenario file (stdout without FILE) "
                        "instead of running it")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="a setting: network.eager_limit=64KiB, mpi.profile=mpich, until=1s")
    p.add_argument("--settings", metavar="FILE.yaml",
                   help="settings as in a scenario file (network, mpi, buffer, seed, until)")
    p.add_argument("--profiles", metavar="P,P,...",
                   help="run under each profile side by side: standard,mpich,openmpi")
    p.add_argument("--json", action="store_true", help="print JSON instead of the summary")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the outcome line")
    p.add_argument("--out", metavar="DIR", help="write result.json, messages.csv, buffer.csv")
    p.add_argument("--plot", action="store_true", help="also write occupancy.png and "
                   "timeline.png")
    p.add_argument("--trace", choices=["chrome"], help="also write trace.json (Perfetto)")
    p.add_argument("--ranks", metavar="R,R,...", help="ranks the plots show")
    p.add_argument("--window", metavar="T0..T1", help="time span of the timeline plot")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="safety (MPI 3.5): as recorded, "
                      "then with every send synchronous")
    mode.add_argument("--min-buffer", action="store_true", help="the smallest size for the "
                      "recorded MPI_Buffer_attach calls with which the replay completes "
                      "without overflow")
    mode.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                      help="a sweep over settings: network.eager_limit=1KiB..64KiB:x2, "
                           "mpi.profile=standard,mpich, compute_scale=0,1 (repeatable)")
    p.add_argument("--jobs", type=int, default=None, help="with --vary: worker processes")
    p.add_argument("--buffered", action="store_true", help="with --check: keep bsends "
                   "buffered, make only the other sends synchronous")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--rank", type=int, default=None,
                     help="with --min-buffer: search only this rank's size")
    who.add_argument("--per-rank", action="store_true",
                     help="with --min-buffer: search each rank that buffers in turn")
    p.add_argument("--seeds", metavar="A..B", default=None,
                   help="with --min-buffer: worst case over these seeds")


def add_record_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", "-o", metavar="TRACE", default="run.trace",
                   help="the recording to write (default run.trace)")
    p.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                   help="stop the run after this long (SIGTERM to it: a deadlocking run "
                        "still leaves its calls up to the blocked ones)")
    p.add_argument("--mpicc", metavar="PATH", default=None,
                   help="the MPI C compiler wrapper to build the recorder with (default: "
                        "$MPICC, else the mpicc beside the launcher, else mpicc on PATH)")
    p.add_argument("--shim", action="store_true",
                   help="print the path of the recorder's C source (to link it into a "
                        "statically linked application) and exit")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                   help="the run to record, e.g. -- mpiexec -n 4 ./app")


def load_replay(args: argparse.Namespace) -> Any:
    """The ReplayScenario the options describe; ValueError naming the problem."""
    from .scenario import replay_scenario

    overrides: dict[str, Any] = {}
    overrides.update(assignment(text) for text in args.sets)
    if args.compute_scale is not None:
        overrides["compute_scale"] = args.compute_scale
    if args.as_matched:
        overrides["as_matched"] = True
    return replay_scenario(args.recording, args.settings, overrides)
