"""A compact stream's blocks walked as stored, for the tests that look at how the recorder
cut a process's stream (the reader, :mod:`mpisim.recorded.read.compact`, decodes them)."""

from __future__ import annotations

from mpisim.recorded.read.compact import BLOCK, MAGIC


def frames(stream: bytes) -> tuple[list[tuple[int, tuple]], int]:
    """Each block's offset and frame (the fields of ``BLOCK``: marker, codec, flags, stored
    bytes, raw bytes, first call, calls, first key, checksum), and the offset after the
    last block (the index's, if any)."""
    assert stream.startswith(MAGIC)
    pos, found = stream.index(b"\n\n") + 2, []
    while stream[pos:pos + 2] == b"\xffB":
        frame = BLOCK.unpack_from(stream, pos)
        found.append((pos, frame))
        pos += BLOCK.size + frame[3]
    return found, pos
