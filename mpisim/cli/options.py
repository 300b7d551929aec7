"""The command-line options of a command that runs a program given outside a scenario file
(``mpisim mpi4py`` a script, ``mpisim replay`` a recording): those of ``run``, ``check``,
``min-buffer`` and ``sweep``, written once. Each command adds its own (the program, ``-n``,
``--profile``...) and says in its own words what is searched and varied."""

from __future__ import annotations

import argparse

__all__ = ["add_min_buffer_options", "add_run_options"]


def add_run_options(p: argparse.ArgumentParser, *, program: str, as_written: str,
                    min_buffer: str, vary: str) -> None:
    """Settings, output, plots and the --check / --min-buffer / --vary modes with their
    options. ``program`` names it in the plot directory (``out/<script>``), ``as_written``
    is how the check's first run is described, ``min_buffer`` and ``vary`` their help."""
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="a setting: network.eager_limit=64KiB, mpi.profile=mpich, "
                        "buffer=16KiB, until=1s (repeatable)")
    p.add_argument("--settings", metavar="FILE.yaml",
                   help="settings as in a scenario file (network, mpi, buffer, seed, until)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the summary")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the outcome line")
    p.add_argument("--out", metavar="DIR", help="write result.json, messages.csv, buffer.csv")
    p.add_argument("--plot", action="store_true", help="also write occupancy.png and "
                   f"timeline.png (into --out, default out/<{program}>)")
    p.add_argument("--trace", choices=["chrome"], help="also write trace.json (Perfetto)")
    p.add_argument("--ranks", metavar="R,R,...", help="ranks the plots show")
    p.add_argument("--window", metavar="T0..T1", help="time span of the timeline plot")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help=f"safety (MPI 3.5): {as_written}, "
                      "then with every send synchronous")
    mode.add_argument("--min-buffer", action="store_true", help=min_buffer)
    mode.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                      help=vary)
    p.add_argument("--jobs", type=int, default=None,
                   help="with --vary: worker processes (default: cores)")
    p.add_argument("--buffered", action="store_true", help="with --check: keep bsends "
                   "buffered, make only the other sends synchronous")
    add_min_buffer_options(p, "with --min-buffer: ")


def add_min_buffer_options(p: argparse.ArgumentParser, when: str = "") -> None:
    """Whose buffer a min-buffer search sizes (--rank, --per-rank) and over which seeds;
    ``when`` prefixes their help (a command where the search is one mode of several)."""
    who = p.add_mutually_exclusive_group()
    who.add_argument("--rank", type=int, default=None,
                     help=f"{when}search only this rank's size (the other ranks unbounded)")
    who.add_argument("--per-rank", action="store_true",
                     help=f"{when}search each rank that buffers in turn (the others unbounded)")
    p.add_argument("--seeds", metavar="A..B", default=None,
                   help=f"{when}worst case over these seeds (network jitter is seeded): "
                        "0..99 or 1,2,3")
