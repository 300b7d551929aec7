"""Program sites: where in a rank program a call was made, kept cheaply and printed late.

A send keeps its site as (code, instruction offset), two references taken from the frame;
the line number is looked up only when a report prints it, since scanning the line table
costs more than the send.

A place is printed ``file.py:line (function)``; in a notebook, whose cells IPython compiles
under temporary file names (``369826325.py``), ``cell 5, line 4 (function)``, 5 being the
execution count Jupyter shows beside the cell (``[5]``).
"""

from __future__ import annotations

import os
import re
import sys
from types import CodeType
from typing import Any

__all__ = ["INSIDE", "PACKAGE", "file_line", "place", "program_site", "site_text"]

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
"""The directory of mpisim's own modules: a frame there is never the program's."""


class _Inside(dict[str, bool]):
    """File name -> whether it is one of mpisim's modules, each file's answer kept: a look-up
    costs a tenth of the prefix test (a thousand instructions a send)."""

    def __missing__(self, filename: str) -> bool:
        inside = self[filename] = filename.startswith(PACKAGE)
        return inside


INSIDE = _Inside()


def program_site() -> tuple[Any, int]:
    """(code, instruction offset) of the program statement making a send: kept with the send
    so that a message never received can be reported where it was sent. The line number is
    looked up only then (:func:`site_text`): it costs a scan of the line table."""
    frame = sys._getframe(3)  # program_site <- _send <- send/bsend/... <- the program
    code = frame.f_code  # (the file first: reading f_back makes a frame object, which a
    while INSIDE[code.co_filename] and frame.f_back is not None:  # generator keeps)
        frame = frame.f_back  # sendrecv, start...: one more call inside mpisim
        code = frame.f_code
    return code, frame.f_lasti


Site = tuple[CodeType, int] | str | None
"""A place in a program: (code, offset) in a Python one, text in a scenario, or unknown."""


def site_text(where: Site) -> str | None:
    """A send's place as reports print it: "file:line (function)" for a place in a Python
    program (see :func:`program_site`); a scenario's place (already text) as it is."""
    if not isinstance(where, tuple):
        return where
    code, offset = where
    line = next((ln for start, end, ln in code.co_lines() if start <= offset < end), None)
    return place(code.co_filename, line, code.co_name)


def place(filename: str, line: int | None, function: str | None = None) -> str:
    """A program's place as reports print it: ``file.py:12 (function)``, or ``cell 5,
    line 12 (function)`` for a notebook cell (see :func:`file_line`)."""
    text = file_line(filename, line)
    return text if function is None else f"{text} ({function})"


_OLD_CELL = re.compile(r"<ipython-input-(\d+)-[0-9a-f]+>")


def file_line(filename: str, line: int | None) -> str:
    """``file.py:12``; for code IPython compiled from a cell (a notebook's or the IPython
    shell's), ``cell N, line 12``, N the cell's execution count (``In [N]``), rather than
    the temporary file name IPython gave it."""
    cell = _cell(filename)
    if cell is not None:
        return f"cell {cell}, line {line}"
    return f"{os.path.basename(filename)}:{line}"


def _cell(filename: str) -> int | None:
    """The execution count of the IPython cell compiled as ``filename``, or None."""
    ipython = sys.modules.get("IPython")  # (never imported here: loaded, it is running)
    if ipython is None:
        return None
    old = _OLD_CELL.fullmatch(filename)
    if old is not None:
        return int(old.group(1))
    try:
        shell = ipython.get_ipython()
        number = shell.compile._filename_map.get(filename) if shell is not None else None
    except (AttributeError, TypeError):  # an IPython without the map
        return None
    return number if isinstance(number, int) else None
