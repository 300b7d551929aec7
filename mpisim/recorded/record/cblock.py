"""A generated block of the recorder's C file, between two marker lines: what the Fortran
bindings (:mod:`.fortran`) and the regular C wrappers (:mod:`.cwrappers`) share, so that both
generators write their C the same way and rewrite only their own block of the one file
users compile."""

from __future__ import annotations

from pathlib import Path

__all__ = ["replace_block", "wrap"]


def wrap(text: str, indent: str, width: int = 96) -> str:
    """``text`` broken after commas to lines of ``width`` columns, continued at ``indent``."""
    if len(text) <= width:
        return text
    out, line = [], ""
    for piece in text.split(", "):
        candidate = f"{line}, {piece}" if line else piece
        if len(candidate) + 1 > width and line:
            out.append(line + ",")
            line = indent + piece
        else:
            line = candidate
    out.append(line)
    return "\n".join(out)


def replace_block(shim: Path, begin: str, end: str, block: str) -> bool:
    """Put ``block`` (its markers included) where the shim's ``begin``...``end`` lines are;
    whether the file changed."""
    text = shim.read_text()
    start, stop = text.index(begin), text.index(end) + len(end) + 1
    new = text[:start] + block + text[stop:]
    if new == text:
        return False
    shim.write_text(new)
    return True
