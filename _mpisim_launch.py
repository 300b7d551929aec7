"""The ``mpisim`` command's entry point, outside the package on purpose.

Importing :mod:`mpisim` (numpy, SimPy...) takes a moment, and Python reports a Ctrl-C that
arrives meanwhile with a traceback. This module imports nothing heavy: it first makes
SIGINT and SIGTERM end the program quietly (one line, exit 128 + the signal; nothing has
been written yet), then imports the command line, which handles them from there on.
"""

import os
import signal
import sys


def _early(signum: int, _frame: object) -> None:
    os.write(2, f"mpisim: interrupted by {signal.Signals(signum).name}; nothing written\n"
             .encode())
    os._exit(128 + signum)


def main() -> int:
    """Run ``mpisim.cli.main`` with quiet interrupts during start-up."""
    sigint = signal.getsignal(signal.SIGINT)
    if sigint is not signal.SIG_IGN:  # a job started in the background ignores it: keep so
        signal.signal(signal.SIGINT, _early)
    signal.signal(signal.SIGTERM, _early)
    from mpisim.cli.main import main as cli_main  # handles both signals from here on

    if sigint is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return cli_main(sys.argv[1:])
    except KeyboardInterrupt:  # in the instant before the command line took over
        _early(signal.SIGINT, None)
        return 130


if __name__ == "__main__":
    sys.exit(main())
