"""Program sites: where in a rank program a call was made, kept cheaply and printed late.

A send keeps its site as (code, instruction offset), two references taken from the frame;
the line number is looked up only when a report prints it, since scanning the line table
costs more than the send.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["INSIDE", "PACKAGE", "program_site", "site_text"]

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
"""The directory of mpisim's own modules: a frame there is never the program's."""


class _Inside(dict):
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


def site_text(where: Any) -> Any:
    """A send's place as reports print it: "file:line (function)" for a place in a Python
    program (see :func:`program_site`); a scenario's place (already text) as it is."""
    if not isinstance(where, tuple):
        return where
    code, offset = where
    line = next((ln for start, end, ln in code.co_lines() if start <= offset < end), None)
    return f"{os.path.basename(code.co_filename)}:{line} ({code.co_name})"
