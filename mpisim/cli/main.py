"""The ``mpisim`` command line: argument parsing, printing and exit codes, no logic of its own.

Exit codes: 0 the simulated program completed (``check``: safe); 2 invalid input or usage;
3 deadlock (``check``: not safe); 4 an MPI error ended the program (e.g. overflow);
5 timeout; 6 (``run --strict``) the run disagrees with the scenario's ``expect:``; 7
(``run --strict``) it completed, but some messages were never received (erroneous, MPI 4.1
§11.2.2); 8 (``--strict``) the run has correctness findings, or (``check --races``) a
message race;
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

The modules: this one (the parser, from :data:`COMMANDS`), ``common`` (exit codes, usage
errors, a command's declaration, loading a scenario), ``options`` (the shared option groups),
and a module per family of commands: ``run``, ``whatif`` (check, sweep, min-buffer),
``info`` (validate, profiles, settings), ``calibrate``, ``mpi4py``, ``replay`` (and
record); ``interrupts`` (Ctrl-C and SIGTERM).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._version import __version__
from .calibrate import CALIBRATE
from .common import EXIT_OK, EXIT_USAGE, Command, Parser, UsageError, invalid_json
from .examples import EXAMPLES
from .info import PROFILES, SETTINGS, VALIDATE
from .mpi4py import MPI4PY
from .replay import RECORD, REPLAY
from .run import RUN
from .whatif import CHECK, MIN_BUFFER, SWEEP

__all__ = ["COMMANDS", "main", "parser"]

COMMANDS: tuple[Command, ...] = (RUN, CHECK, SWEEP, MIN_BUFFER, VALIDATE, PROFILES, CALIBRATE,
                                 SETTINGS, MPI4PY, REPLAY, RECORD, EXAMPLES)
"""Every subcommand, in the order ``mpisim --help`` lists them."""


def main(argv: Sequence[str] | None = None) -> int:
    from .interrupts import catching_sigterm, interrupted

    return catching_sigterm(lambda: _main(argv), interrupted)


def _main(argv: Sequence[str] | None) -> int:
    p = parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as e:  # argparse's usage error: a JSON object too, under --json
        words = list(sys.argv[1:] if argv is None else argv)
        if e.code == EXIT_USAGE and "--json" in words[:words.index("--")
                                                     if "--" in words else None]:
            print(invalid_json(Parser.last_error))
        raise
    if getattr(args, "handler", None) is None:  # no command (record's own `command` is its run)
        p.print_help()
        return EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as e:
        print(f"mpisim: {e}", file=sys.stderr)
        if getattr(args, "json", False):
            print(invalid_json(str(e)))
        return EXIT_USAGE
    except KeyboardInterrupt as e:
        from .interrupts import interrupted

        return interrupted(e, getattr(args, "out", None))
    except BrokenPipeError:
        return EXIT_OK


def parser() -> argparse.ArgumentParser:
    """The parser of ``mpisim`` and of each command of :data:`COMMANDS`."""
    p = Parser(
        prog="mpisim", description="Simulate MPI buffered communication (MPI_Bsend and the "
        "attached buffer): does a communication pattern complete, deadlock or overflow?",
        epilog="exit codes: 0 completed (check: safe), 2 invalid input, 3 deadlock (check: "
               "not safe), 4 MPI error, 5 timeout, 6 disagrees with expect: and 7 unreceived "
               "messages (run --strict), 8 correctness findings (--strict) or a message race "
               "(check --races), 130/143 interrupted (SIGINT/SIGTERM)")
    p.add_argument("--version", action="version", version=f"mpisim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_to(sub)
    return p


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
