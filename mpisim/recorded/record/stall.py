"""The stall watch of ``mpisim record``: a run whose every process waits inside MPI, in the
same call, for ``--stall`` seconds is a likely deadlock, stopped like a ``--timeout``.

Each process's recorder keeps ``rank.N.now`` in the log directory, a small shared file it
updates with plain stores at each call (the call's name, whether it is inside, a count of
calls: see ``shim/mpisim_record.c``). :class:`StallWatch` reads them a few times a second; a
process counts as waiting when it is inside a call and its count has not moved since the
watch first saw it there; a process that has ended counts as waiting too (it can no longer
free the others). The processes MPI_Comm_spawn started keep ``spawn.ID.rank.N.now``
(MPI 4.1 §11.8.2): they are watched as well, once they have started, so that children still
working keep a run whose parents wait going. Only processes on this host are seen: a run
that has processes elsewhere (fewer files than the world's size) is never judged stalled;
use ``--timeout`` there.
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["StallWatch"]

_NOW = struct.Struct("=8sQQ40s")
_MAGIC = b"mpisim1\0"


@dataclass
class _Seen:
    seq: int
    since: float
    call: str


@dataclass
class StallWatch:
    """Watches the ``rank.N.now`` files of ``logs``; :meth:`stalled` says whether every
    process has waited for ``seconds`` (wall time, s)."""

    logs: str
    seconds: float
    seen: dict[str, _Seen] = field(default_factory=dict)
    pids: dict[str, int | None] = field(default_factory=dict)
    size: int | None = None

    def stalled(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        states = self._read()
        if self.size is None:
            self.size = self._size()
        size = self.size
        first = sum(1 for name in states if name.startswith("rank."))  # mpiexec's processes
        if not states or size is None or first < size:
            return False
        waiting = 0
        for rank, state in states.items():
            if state is None:  # ended
                waiting += 1
                continue
            seq, inside, call = state
            seen = self.seen.get(rank)
            if not inside:
                self.seen.pop(rank, None)
                continue
            if seen is None or seen.seq != seq:
                self.seen[rank] = _Seen(seq, now, call)
                continue
            if now - seen.since >= self.seconds:
                waiting += 1
        return waiting == len(states) and any(s is not None for s in states.values())

    def blocked_for(self, rank: int | str, now: float | None = None) -> float | None:
        """How long (s) the watch has seen ``rank`` (a spawned process: ``spawn.ID.rank.N``)
        waiting in its current call."""
        seen = self.seen.get(f"rank.{rank}" if isinstance(rank, int) else rank)
        return None if seen is None else (time.monotonic() if now is None else now) - seen.since

    def _read(self) -> dict[str, tuple[int, bool, str] | None]:
        """Each process's (count, inside, call) by its files' name (``rank.N``,
        ``spawn.ID.rank.N``), None for a process that has ended."""
        states: dict[str, tuple[int, bool, str] | None] = {}
        for path in Path(self.logs).glob("*rank.*.now"):
            rank = path.name[:-len(".now")]
            if not rank.rpartition(".")[2].isdigit() or not (
                    rank.startswith("rank.") or rank.startswith("spawn.")):
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if len(data) < _NOW.size:
                continue
            magic, seq, inside, call = _NOW.unpack_from(data)
            if magic != _MAGIC:
                continue
            if rank not in self.pids or self.pids[rank] is None:
                self.pids[rank] = _header_pid(Path(self.logs) / f"{rank}.log")
            if not _running(self.pids[rank]):
                states[rank] = None
                continue
            states[rank] = (seq, bool(inside), call.split(b"\0")[0].decode("ascii", "replace"))
        return states

    def _size(self) -> int | None:
        """The world's size, from a log's ``#rank R SIZE`` line."""
        for log in Path(self.logs).glob("rank.*.log"):
            try:
                with open(log, "rb") as f:
                    head = f.read(512).decode("utf-8", "replace")
            except OSError:
                continue
            for line in head.splitlines():
                words = line.split()
                if len(words) == 3 and words[0] == "#rank" and words[2].isdigit():
                    return int(words[2])
        return None


def _header_pid(log: Path) -> int | None:
    """The ``#pid`` of a log's header (None before the header is written)."""
    try:
        with open(log, "rb") as f:
            head = f.read(512).decode("utf-8", "replace")
    except OSError:
        return None
    for line in head.splitlines():
        if line.startswith("#pid "):
            pid = line.split()[1]
            return int(pid) if pid.isdigit() else None
    return None


def _running(pid: int | None) -> bool:
    """Whether process ``pid`` still runs (a zombie has ended; an unknown pid is taken as
    running)."""
    if pid is None:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False
