"""Sizing: how many bytes of the attached buffer one pending entry takes (3.6.1 step 2),
separate from where an allocator places it (:mod:`mpisim.buffered.allocators`).

``standard``: n = packed + overhead, rounded up to
``alignment``. ``mpich`` (MPICH 4): an 88-byte header per block; m bytes fit a free block of
B bytes iff B - 88 >= m; the block is cut at 88 + ceil16(m), and the rest becomes a free
block only if it can hold 88 + 8 bytes, else the entry takes the whole block. ``openmpi``
(Open MPI 4.1): the region starts at offset 8, an entry takes 8*floor(m/8) + 16 bytes. A
*measured rule* (what ``mpisim calibrate`` fits, see :class:`EntryRule`) is written as a
string ``"rule: start 0, header 88, unit 16 up, last exact, split 96"``: the region starts at
``start``; an entry of m bytes takes ``header`` + m rounded up (or down) to ``unit``; with
``last exact`` a free block of header + m bytes still takes it whole; a remainder smaller than
``split`` stays with the entry. The named implementation sizings are such rules (``mpich``:
the one above; ``openmpi``: start 8, header 16, unit 8 down). The implementation sizings and
rules ignore ``overhead`` and ``alignment`` (they carry their own); under ``circular`` an
entry always takes :meth:`entry_size` bytes.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = ["MPICH_HEADER", "MPICH_MIN_SPLIT", "OPENMPI_START", "SIZINGS", "EntryRule",
           "MpichSizing", "OpenMPISizing", "RuleSizing", "StandardSizing", "check_sizing",
           "nonneg_int", "sizing_for"]

SIZINGS = ("standard", "mpich", "openmpi")
MPICH_HEADER = 88      # bytes MPICH writes in front of every block
MPICH_MIN_SPLIT = 96   # a remainder smaller than header + 8 stays with the entry
OPENMPI_START = 8      # Open MPI moves the buffer start up by 8 bytes


class StandardSizing:
    """3.6.1: n = pack_size + MPI_BSEND_OVERHEAD, rounded up to the alignment."""

    start = 0

    def __init__(self, overhead: int, alignment: int) -> None:
        self.overhead, self.alignment = overhead, alignment

    def entry_size(self, packed: int) -> int:
        n, a = packed + self.overhead, self.alignment
        return n if a == 1 else -(-n // a) * a

    def take(self, block: int, packed: int) -> int | None:
        """Bytes taken from a free block of ``block`` bytes, or None if it does not fit."""
        n = self.entry_size(packed)
        return n if n <= block else None

    def fit_size(self, packed: int) -> int:
        """The smallest free block that takes a message of ``packed`` bytes."""
        return self.entry_size(packed)


class MpichSizing(StandardSizing):
    """MPICH: 88-byte header, cut at 88 + ceil16(m), small remainders stay with the entry."""

    def entry_size(self, packed: int) -> int:
        return MPICH_HEADER + -(-packed // 16) * 16

    def take(self, block: int, packed: int) -> int | None:
        if block - MPICH_HEADER < packed:
            return None
        n = self.entry_size(packed)
        return n if block - n >= MPICH_MIN_SPLIT else block

    def fit_size(self, packed: int) -> int:
        """A block of 88 + m bytes takes the message whole (no rounding when nothing is cut
        off, as for the last entry of a block)."""
        return MPICH_HEADER + packed


class OpenMPISizing(StandardSizing):
    """Open MPI: start at offset 8, an entry of m bytes takes 8*floor(m/8) + 16."""

    start = OPENMPI_START

    def entry_size(self, packed: int) -> int:
        return packed // 8 * 8 + 16


@dataclass(frozen=True)
class EntryRule:
    """A measured entry sizing: what one pending entry of m bytes takes in the buffer."""

    start: int = 0          # bytes the library keeps at the start of the attached buffer
    header: int = 0         # bytes it writes in front of every entry
    unit: int = 1           # the message part is rounded to a multiple of this
    round_up: bool = True   # up (ceil) or down (floor) to ``unit``
    last_exact: bool = False  # a free block of header + m bytes takes the message whole
    split: int = 0          # a remainder smaller than this stays with the entry

    PREFIX = "rule:"

    def __str__(self) -> str:
        return (f"{self.PREFIX} start {self.start}, header {self.header}, unit {self.unit} "
                f"{'up' if self.round_up else 'down'}, last "
                f"{'exact' if self.last_exact else 'rounded'}, split {self.split}")

    @classmethod
    def parse(cls, text: str) -> EntryRule:
        """The rule a string of :meth:`__str__`'s form names; ValueError if it is not one."""
        m = _RULE.fullmatch(text.strip())
        if not m:
            raise ValueError(f"sizing: {text!r} is not one of {', '.join(SIZINGS)} or a rule "
                             "such as 'rule: start 0, header 88, unit 16 up, last exact, "
                             "split 96'")
        unit = int(m["unit"])
        if unit < 1 or unit & (unit - 1):
            raise ValueError(f"sizing: rule unit must be a power of two >= 1, got {unit}")
        return cls(int(m["start"]), int(m["header"]), unit, m["dir"] == "up",
                   m["last"] == "exact", int(m["split"]))

    def describe(self) -> str:
        """How an entry is charged, in words (for error messages)."""
        rounding = "" if self.unit == 1 else \
            f" rounded {'up' if self.round_up else 'down'} to {self.unit} B"
        start = f", from offset {self.start}" if self.start else ""
        return f"measured: {self.header}-byte header + the message{rounding}{start}"


_RULE = re.compile(r"rule:\s*start (?P<start>\d+), header (?P<header>\d+), unit (?P<unit>\d+) "
                   r"(?P<dir>up|down), last (?P<last>exact|rounded), split (?P<split>\d+)")


class RuleSizing(StandardSizing):
    """An :class:`EntryRule`: header + the message rounded to the unit, from ``start``."""

    def __init__(self, rule: EntryRule) -> None:
        super().__init__(0, 1)
        self.rule = rule
        self.start = rule.start

    def entry_size(self, packed: int) -> int:
        r = self.rule
        body = -(-packed // r.unit) * r.unit if r.round_up else packed // r.unit * r.unit
        return r.header + body

    def fit_size(self, packed: int) -> int:
        return self.rule.header + packed if self.rule.last_exact else self.entry_size(packed)

    def take(self, block: int, packed: int) -> int | None:
        if block < self.fit_size(packed):
            return None
        n = self.entry_size(packed)
        return n if block - n >= self.rule.split else block


def check_sizing(sizing: str) -> str:
    """``sizing`` if it names a sizing or is a valid rule string; ValueError otherwise."""
    if not isinstance(sizing, str):
        raise ValueError(f"sizing: expected a name or a rule string, got {sizing!r}")
    if sizing not in _SIZINGS:
        EntryRule.parse(sizing)
    return sizing


_SIZINGS: dict[str, type[StandardSizing]] = {"standard": StandardSizing,
                                              "mpich": MpichSizing,
                                              "openmpi": OpenMPISizing}


def nonneg_int(name: str, value: object) -> int:
    """``value`` if it is an int >= 0 (not a bool); ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name}: expected a non-negative integer, got {value!r}")
    return value


@functools.lru_cache(maxsize=64, typed=True)
def sizing_for(sizing: str, overhead: int, alignment: int) -> StandardSizing:
    """One sizing object per rule, shared by every buffer that charges entries by it; its
    arguments checked once (every rank of a run attaches with the same ones)."""
    check_sizing(sizing)
    nonneg_int("overhead", overhead)
    if nonneg_int("alignment", alignment) < 1 or alignment & (alignment - 1):
        raise ValueError(f"alignment: expected a power of two >= 1, got {alignment!r}")
    if sizing in _SIZINGS:
        return _SIZINGS[sizing](overhead, alignment)
    return RuleSizing(EntryRule.parse(sizing))
