"""The option groups several commands share, each declared once.

- :func:`add_scenario_options`: the scenario file and ``--set`` (``run``, ``check``,
  ``sweep``, ``min-buffer``, ``validate``), with the printing options;
- :func:`add_print_options`: ``--json``, ``--quiet``;
- :func:`add_output_options`: the files a run writes and its plots (``--out``, ``--plot``,
  ``--trace``, ``--ranks``, ``--window``);
- :func:`add_run_options`: those of ``run``, ``check``, ``min-buffer`` and ``sweep`` for a
  program given outside a scenario file (``mpisim mpi4py`` a script, ``mpisim replay`` a
  recording), where the others are modes (``--check``, ``--min-buffer``, ``--vary``). Each
  such command adds its own (the program, ``-n``, ``--profile``...) and says in its own
  words what is searched and varied;
- :func:`add_min_buffer_options`: whose buffer a min-buffer search sizes, over which seeds;
- :func:`add_workers_options`: where the runs of a what-if question go (``--jobs``,
  ``--dask``), and :func:`workers`, which reads them.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from .common import UsageError, add_check_options

__all__ = ["add_findings_option", "add_min_buffer_options", "add_output_options",
           "add_print_options",
           "add_run_options", "add_scenario_options", "add_workers_options", "workers"]


def add_scenario_options(p: argparse.ArgumentParser) -> None:
    """The scenario file, ``--set`` (params and settings) and the printing options."""
    p.add_argument("scenario", metavar="SCENARIO",
                   help="a scenario file (.yaml or .py), or the name of a shipped example "
                        "(mpisim examples lists them: example-3.10-bsend)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="override a param (count=4096) or setting (network.eager_limit=64KiB, "
                        "mpi.allocator=first-fit, buffer=16KiB); repeatable")
    add_print_options(p)


def add_print_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of the summary")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the outcome line")


def add_findings_option(p: argparse.ArgumentParser) -> None:
    """``--findings``: how the report lists correctness findings (``run``, ``mpi4py``,
    ``replay``); the JSON keeps every one."""
    p.add_argument("--findings", choices=("summary", "all"), default="summary",
                   help="how the report lists correctness findings: summary (default: each "
                        "leak once per call site, with a count and the ranks) or all (every "
                        "finding with its calls; --json always has all)")


def add_output_options(p: argparse.ArgumentParser, program: str, *,
                       examples: bool = False) -> None:
    """``--out`` and the plots; ``program`` names the run in the plot directory
    (``out/<scenario>``), ``examples`` adds examples and the default to the help of
    ``--ranks`` and ``--window``."""
    p.add_argument("--out", metavar="DIR", help="write result.json, messages.csv, buffer.csv")
    p.add_argument("--plot", action="store_true", help="also write occupancy.png and "
                   f"timeline.png (into --out, default out/<{program}>)")
    p.add_argument("--trace", choices=["chrome"], help="also write trace.json (Perfetto)")
    p.add_argument("--trace-dir", metavar="DIR", default=None,
                   help="write the run's trace to DIR as the run goes instead of keeping it "
                        "in memory (the whole run, however long; read it back with "
                        "mpisim.Trace.open(DIR))")
    p.add_argument("--ranks", metavar="R,R,...", help="ranks the plots show" + (
        ": 0,3,40 or 0..7 (default: the failing ranks, then the others)" if examples else ""))
    p.add_argument("--window", metavar="T0..T1", help="time span of the timeline plot"
                   + (", e.g. 10us..20us" if examples else ""))


def add_run_options(p: argparse.ArgumentParser, *, program: str, as_written: str,
                    min_buffer: str, vary: str,
                    modes: str = "--check, --min-buffer or --vary") -> None:
    """Settings, output, plots and the --check / --min-buffer / --vary modes with their
    options. ``program`` names it in the plot directory (``out/<script>``), ``as_written``
    is how the check's first run is described, ``min_buffer`` and ``vary`` their help,
    ``modes`` those that run on workers (``--jobs``, ``--dask``)."""
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="a setting: network.eager_limit=64KiB, mpi.profile=mpich, "
                        "buffer=16KiB, until=1s (repeatable)")
    p.add_argument("--settings", metavar="FILE.yaml",
                   help="settings as in a scenario file (network, mpi, buffer, seed, until)")
    add_print_options(p)
    add_findings_option(p)
    add_output_options(p, program)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help=f"safety (MPI 3.5): {as_written}, "
                      "then with every send synchronous")
    mode.add_argument("--min-buffer", action="store_true", help=min_buffer)
    mode.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                      help=vary)
    add_workers_options(p, f"with {modes}: ")
    p.add_argument("--buffered", action="store_true", help="with --check: keep bsends "
                   "buffered, make only the other sends synchronous")
    add_collectives_option(p, "with --check: ")
    p.add_argument("--strict", action="store_true", help="exit 8 when the run (with "
                   "--check: the run as written) has correctness findings")
    add_check_options(p, "with --check: ")
    add_min_buffer_options(p, "with --min-buffer: ")


def add_collectives_option(p: argparse.ArgumentParser, when: str = "") -> None:
    """``--collectives``: how check runs collectives with every send synchronous."""
    p.add_argument("--collectives", choices=("synchronizing", "as-written"),
                   default="synchronizing",
                   help=f"{when}synchronizing (default): with every send synchronous, every "
                        "collective synchronizes too, no member leaving before all have "
                        "entered (MPI 4.1 §6.1); as-written: as the profile's algorithms run "
                        "them")


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


def add_workers_options(p: argparse.ArgumentParser, when: str = "") -> None:
    """``--jobs`` and ``--dask``: where the independent runs of a what-if question go (the
    answer is the same on any number of workers); ``when`` prefixes their help."""
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help=f"{when}local worker processes for the runs (default: the cores; 1: "
                        "all in this process)")
    p.add_argument("--dask", metavar="ADDRESS",
                   help=f"{when}run them on a Dask distributed scheduler instead")


@contextlib.contextmanager
def workers(args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """The ``executor`` and ``jobs`` keywords of the what-if functions, from ``--jobs`` and
    ``--dask``; a Dask client is closed when the block ends."""
    jobs = getattr(args, "jobs", None)
    if jobs is not None and jobs < 1:
        raise UsageError("--jobs must be at least 1")
    address = getattr(args, "dask", None)
    if not address:
        yield {"executor": None, "jobs": jobs}
        return
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs the dask extra: pip install 'mpisim[dask]'") from None
    try:
        client = Client(address, timeout="10s")
    except OSError as e:
        raise UsageError(f"--dask {address}: cannot reach the scheduler ({e})") from None
    try:
        yield {"executor": client.get_executor(), "jobs": jobs}
    finally:
        client.close()
