"""``python -m mpisim`` and the ``mpisim`` command, from the first statement to the exit:
SIGINT and SIGTERM end it with one line and exit 128 + the signal (130, 143) at any moment,
never a traceback.

The command is a script (``bin/mpisim``, installed beside Python), not an entry point: an
entry point's wrapper imports this package (numpy, SimPy: about half a second) before its
function runs, and a signal meanwhile printed a traceback (SIGINT) or killed the process
unannounced (SIGTERM). The script's first statements make both signals end the program quietly
(nothing has been written yet), then import the package and call :func:`main`, which hands them
to the command line (:func:`mpisim.cli.main.main`: a KeyboardInterrupt unwinds the command, every
``finally`` runs, and it says what it kept). Once the command has finished, a signal ends the
exit quietly too. Only the interpreter's own start-up, before the script's first line, is out of
reach (a signal then ends Python as it would end any program).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None, sigint_ignored: bool | None = None) -> int:
    """Run ``mpisim`` with ``argv`` (default: ``sys.argv[1:]``) and return its exit code.

    ``sigint_ignored``: whether SIGINT was ignored when the process started (a job a shell
    starts in the background; it is left ignored). Default: as it is now.
    """
    if sigint_ignored is None:
        sigint_ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    _take(_quit, sigint_ignored)
    from .cli.main import main as cli_main  # SIGTERM: _quit until the command line runs

    try:  # entered before SIGINT can raise, so that no KeyboardInterrupt escapes
        if not sigint_ignored:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        code = cli_main(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt as e:  # the instant before the command line took over
        _quit(getattr(e, "signum", signal.SIGINT))
    _take(_finished, sigint_ignored)  # no traceback while the interpreter exits
    return code


def _take(handler: object, sigint_ignored: bool) -> None:
    if not sigint_ignored:
        signal.signal(signal.SIGINT, handler)  # type: ignore[arg-type]
    signal.signal(signal.SIGTERM, handler)  # type: ignore[arg-type]


def _quit(signum: int, _frame: object = None, when: str = "; nothing written") -> None:
    os.write(2, f"mpisim: interrupted by {signal.Signals(signum).name}{when}\n".encode())
    os._exit(128 + signum)


def _finished(signum: int, _frame: object) -> None:
    _quit(signum, when=" after the command had finished")


if __name__ == "__main__":  # python -m mpisim (the mpisim script imports main)
    raise SystemExit(main())
