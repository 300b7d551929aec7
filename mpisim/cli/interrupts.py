"""How a command ends when it is interrupted: Ctrl-C (SIGINT) or SIGTERM.

SIGTERM is turned into :class:`Interrupted`, a KeyboardInterrupt, so both signals unwind the
same way: every ``finally`` runs, so temporary files and directories are removed (see
:func:`mpisim.report.export.output_dir`), worker pools are stopped, and the command prints one line
and exits with 128 + the signal (130, 143), as shells report a process a signal ended.
Nothing is written, except that an interrupted sweep keeps the runs it finished
(``exc.table``) in ``DIR/sweep.partial.csv`` when it was given ``--out DIR``.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..report.export import held_signals, write_files

__all__ = ["Interrupted", "catching_sigterm", "interrupted"]


class Interrupted(KeyboardInterrupt):
    """SIGTERM (or SIGINT) received: raised like Ctrl-C so every cleanup runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def catching_sigterm(run: Callable[[], int], on_interrupt: Callable[[KeyboardInterrupt], int]
                     ) -> int:
    """``run()`` with SIGTERM raising Interrupted (in the main thread only; elsewhere signals
    are left alone); an interrupt that escapes ``run`` goes to ``on_interrupt``."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise)
    except ValueError:  # not the main thread
        previous = None
    try:
        return run()
    except KeyboardInterrupt as e:
        return on_interrupt(e)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def interrupted(e: KeyboardInterrupt, out: str | None = None) -> int:
    """Print the one line (keeping a sweep's finished runs in ``out``); the exit code."""
    signum = getattr(e, "signum", signal.SIGINT)
    kept = ""
    table = getattr(e, "table", None)
    if table is not None and out:
        kept = _keep_partial(table, getattr(e, "total", len(table)), Path(out))
    name = signal.Signals(signum).name
    print(f"mpisim: interrupted by {name}{kept or '; nothing written'}", file=sys.stderr)
    return 128 + int(signum)


def _keep_partial(table: Any, total: int, out: Path) -> str:
    try:
        with held_signals():  # a second Ctrl-C waits until the partial file is whole
            (path,) = write_files(out, [("sweep.partial.csv",
                                         lambda f: f.write(table.csv_text()), False)])
    except OSError as e:
        return f"; the finished runs could not be kept: {e.strerror or e}"
    return f"; {len(table)} of {total} runs finished, kept in {path}"


def _raise(signum: int, _frame: Any) -> None:
    raise Interrupted(signum)
