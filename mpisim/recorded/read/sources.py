"""Call sites to source lines: the recorder logs where each MPI call was made as an object
file and an offset in it (``@`` lines); when that object is still on disk and was compiled
with debug information (``-g``), binutils' ``addr2line`` turns the offset into ``file:line``
and the function, so reports can say ``bsend_burst.c:22 in main`` instead of
``main+0x1a3 in bsend_burst``.

An offset is counted from where the object was loaded (``dladdr``'s base), which is the
address of the object's file offset 0; ``addr2line`` wants the link-time address, so the
first loadable segment's ``p_vaddr - p_offset`` is added (0 for a position-independent
executable or a shared library, 0x400000 for a classic x86-64 executable). The offset is a
return address, one past the call, so the line of the byte before it is asked for.

Resolution is best effort and silent: no ``addr2line``, an object that is gone or not ELF,
or an answer of ``??`` leave the site as the recorder logged it. An object rebuilt since the
recording gives the new build's lines; rebuild after recording only with care.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Iterable

__all__ = ["load_base", "locate", "object_path"]

_PT_LOAD = 1
TIMEOUT = 30.0  # seconds one addr2line run may take


def object_path(obj: str, exe: str | None) -> str:
    """Where the object a site names is: ``dladdr`` names the main program as it was started
    (``./app``, relative to a directory the log does not keep), so a relative name of the
    program's own file is the ``#exe`` header's absolute path."""
    if not os.path.isabs(obj) and exe and os.path.basename(obj) == os.path.basename(exe):
        return exe
    return obj


def locate(places: Iterable[tuple[str, int]]) -> dict[tuple[str, int], tuple[str, str | None]]:
    """{(object, offset): (``file:line``, function or None)} for the places that resolve;
    one ``addr2line`` run per object."""
    tool = shutil.which("addr2line")
    if tool is None:
        return {}
    by_object: dict[str, set[int]] = {}
    for obj, offset in places:
        if offset > 0 and os.path.isfile(obj):
            by_object.setdefault(obj, set()).add(offset)
    found: dict[tuple[str, int], tuple[str, str | None]] = {}
    for obj, offsets in by_object.items():
        base = load_base(obj)
        if base is None:
            continue
        ordered = sorted(offsets)
        answers = _addr2line(tool, obj, [base + off - 1 for off in ordered])
        for off, (function, source) in zip(ordered, answers, strict=False):
            if source is not None:
                found[(obj, off)] = (source, function)
    return found


def load_base(path: str) -> int | None:
    """The link-time address of file offset 0 of an ELF object (None if not ELF)."""
    try:
        with open(path, "rb") as f:
            ident = f.read(64)
            if len(ident) < 52 or ident[:4] != b"\x7fELF" or ident[4] not in (1, 2):
                return None
            wide, order = ident[4] == 2, "<" if ident[5] == 1 else ">"
            if wide:
                phoff, = struct.unpack_from(order + "Q", ident, 0x20)
                entsize, count = struct.unpack_from(order + "HH", ident, 0x36)
            else:
                phoff, = struct.unpack_from(order + "I", ident, 0x1C)
                entsize, count = struct.unpack_from(order + "HH", ident, 0x2A)
            f.seek(phoff)
            table = f.read(entsize * count)
    except OSError:
        return None
    layout = order + ("IIQQ" if wide else "IIII")
    for i in range(min(count, len(table) // max(entsize, 1))):
        fields = struct.unpack_from(layout, table, i * entsize)
        p_type, (p_offset, p_vaddr) = fields[0], (fields[2:4] if wide else fields[1:3])
        if p_type == _PT_LOAD:
            return p_vaddr - p_offset
    return None


def _addr2line(tool: str, obj: str, addresses: list[int]) -> list[tuple[str | None,
                                                                         str | None]]:
    """(function, ``file:line``) of each address, None where addr2line does not know."""
    if not addresses:
        return []
    try:
        out = subprocess.run([tool, "-f", "-C", "-e", obj, *(hex(a) for a in addresses)],
                             capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return []
    lines = out.stdout.splitlines()
    if out.returncode != 0 or len(lines) != 2 * len(addresses):
        return []
    answers: list[tuple[str | None, str | None]] = []
    for function, place in zip(lines[::2], lines[1::2], strict=True):
        file, _, line = place.partition(" ")[0].rpartition(":")
        known = file not in ("", "??") and line.isdigit() and line != "0"
        answers.append((function if function != "??" else None,
                        f"{os.path.basename(file)}:{line}" if known else None))
    return answers
