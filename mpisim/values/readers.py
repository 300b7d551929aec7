"""Reading one typed value, and the record that declares a setting.

Every setting and every scenario value is read by one of these readers, whoever gives it (a
scenario file, ``--set``, ``--vary``, ``mpisim.run``), so a value means the same thing and a
bad value gets the same reason everywhere. A reader returns the value or raises
:class:`Invalid` with a reason a user can act on (``cannot read 'fast' as a time``; ``true is
a boolean, not a number``). Shared rules:

- booleans are never numbers (YAML's ``true`` is not 1);
- a :class:`Refused` value (a YAML 1.1 ambiguity such as ``on`` or ``010``) is refused with
  its own reason;
- a float with an integral value (``1e3``, ``4096.0``) is accepted where a whole number is
  expected; a quoted number (``"4096"``) is read as the number;
- sizes, times and bandwidths accept unit strings (``64 KiB``, ``5us``, ``10 GB/s``), read by
  the one grammar of :mod:`mpisim.values.units`; whole numbers stay below ``INT_LIMIT`` (they must
  fit an ``MPI_Count``).

:class:`Setting` declares one setting (its dotted key, reader, kind, choices, default and
documentation); it rides on the fields of :class:`~mpisim.p2p.network.Network` and
:class:`~mpisim.profiles.library.MPIConfig` as dataclass metadata, and
:mod:`mpisim.runs.settings` collects every declaration into the one table the scenario schema,
``--set``, ``--vary``, ``mpisim.run`` and ``mpisim settings`` are made from.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cache
from typing import Any, TypeVar

from .units import (
    MAX_DIGITS,
    UnitError,
    digits,
    int_words,
    parse_bandwidth,
    parse_size,
    parse_time,
    shorten,
)

__all__ = ["INT_LIMIT", "Invalid", "Refused", "Setting", "SettingError", "declare",
           "declared", "describe", "entry", "hint", "nullable", "read_bandwidth", "read_bool",
           "read_choice", "read_int", "read_positive", "read_power_of_two", "read_size",
           "read_text", "read_time", "resolve_field", "unknown_key"]

INT_LIMIT = 2**63
"""Whole numbers stay below this magnitude (an MPI_Count is a signed 64-bit integer)."""

_NUMBER = re.compile(r"^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$")


class Invalid(ValueError):
    """A value of the wrong kind; the message says what was expected and what was found."""


class SettingError(ValueError):
    """A setting refused: ``key`` names it (``network.eager_cells``), ``reason`` says why;
    ``str()`` is ``"key: reason"``. Callers place it by ``key``, never by parsing the text."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


class Refused:
    """A value every reader refuses with its own ``reason`` (a YAML 1.1 ambiguity)."""

    reason: str = "refused"


def describe(value: Any) -> str:
    """A short phrase naming a value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int):
        words = int_words(value)
        return words if words.startswith("a number") else f"the number {words}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the text {shorten(value)!r}"
    if isinstance(value, Refused):
        return repr(str(value))
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def hint(word: str, choices: Any) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or nothing. A version the
    word names is kept: ``openmpi5`` suggests ``openmpi-5.0``, not ``openmpi``."""
    close = difflib.get_close_matches(word, [str(c) for c in choices], n=3)
    digits = [c for c in word if c.isdigit()]
    versioned = [c for c in close if digits and all(d in c for d in digits)]
    close = versioned or close
    return f" (did you mean {close[0]!r}?)" if close else ""


def _refuse_special(value: Any, expected: str) -> None:
    if isinstance(value, Refused):
        raise Invalid(value.reason)
    if isinstance(value, bool):
        raise Invalid(f"expected {expected}, got {describe(value)}")


def read_int(value: Any, *, minimum: int | None = None, maximum: int | None = None,
             what: str = "a whole number") -> int:
    """A whole number (``4096``, ``1e3``, ``"4096"``), optionally bounded."""
    _refuse_special(value, what)
    number: Any = value
    if isinstance(value, str) and _NUMBER.match(value):
        if digits(value.strip()) > MAX_DIGITS:
            raise Invalid(f"a number of {digits(value.strip())} digits is out of range")
        number = float(value) if re.search(r"[.eE]", value) else int(value)
    if isinstance(number, float):
        if not math.isfinite(number) or number != int(number):
            raise Invalid(f"expected {what}, got {describe(value)}")
        number = int(number)
    if not isinstance(number, int):
        raise Invalid(f"expected {what}, got {describe(value)}")
    return _bounded(number, minimum, maximum)


def _bounded(number: int, minimum: int | None, maximum: int | None) -> int:
    if abs(number) >= INT_LIMIT:
        raise Invalid(f"{int_words(number)} is out of range (whole numbers stay below 2**63)")
    if minimum is not None and number < minimum:
        raise Invalid(f"must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise Invalid(f"must be at most {maximum}, got {number}")
    return number


def read_positive(value: Any) -> int:
    """A whole number >= 1."""
    return read_int(value, minimum=1)


_Number = TypeVar("_Number", int, float)


def _units(parser: Callable[[object], _Number], value: Any, expected: str) -> _Number:
    _refuse_special(value, expected)
    if not isinstance(value, int | float | str):
        raise Invalid(f"expected {expected}, got {describe(value)}")
    try:
        return parser(value)
    except UnitError as e:
        raise Invalid(str(e)) from None


def read_size(value: Any) -> int:
    """Bytes from ``4096``, ``"64 KiB"``, ``1e3``."""
    size = _units(parse_size, value, "a size (e.g. 64 KiB)")
    return _bounded(size, 0, None)


def read_power_of_two(value: Any) -> int:
    """A size that is a power of two >= 1 (an alignment)."""
    size = read_size(value)
    if size < 1 or size & (size - 1):
        raise Invalid(f"expected a power of two >= 1, got {size}")
    return size


def read_time(value: Any) -> float:
    """Seconds from ``1e-6``, ``"1us"``."""
    return _units(parse_time, value, "a time (e.g. 1us)")


def read_bandwidth(value: Any) -> float:
    """Bytes per second from ``1e10``, ``"10 GB/s"``."""
    return _units(parse_bandwidth, value, "a bandwidth (e.g. 10 GB/s)")


def read_bool(value: Any) -> bool:
    """``true`` or ``false`` only."""
    if isinstance(value, Refused):
        raise Invalid(value.reason)
    if not isinstance(value, bool):
        raise Invalid(f"expected true or false, got {describe(value)}")
    return value


def read_text(value: Any) -> str:
    """A string (quote it in YAML when it looks like a number or a YAML 1.1 boolean)."""
    if isinstance(value, Refused):
        raise Invalid(value.reason)
    if not isinstance(value, str):
        raise Invalid(f"expected text, got {describe(value)}")
    return value


def read_choice(value: Any, choices: Sequence[str]) -> str:
    """One of ``choices``."""
    text = read_text(value)
    if text not in choices:
        raise Invalid(f"{shorten(text)!r} is not one of {', '.join(choices)}"
                      f"{hint(text, choices)}")
    return text


def nullable(reader: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``reader`` that also accepts None (null: no limit, or the profile's value)."""
    return lambda v: None if v is None else reader(v)


# -- declaring a setting --------------------------------------------------------------------
UNITS = {"time": "s", "size": "B", "bandwidth": "B/s"}


@dataclass(frozen=True)
class Setting:
    """One setting: its dotted ``key``, how a value is read, what it means.

    ``kind`` is time, size, bandwidth, count, bool, choice, text, buffer or mapping (then
    ``keys`` declares the mapping's own keys, e.g. ``network.intra.latency``); ``default``
    says in words what an unset value means (``1 us``, ``the profile's``, ``no limit``);
    ``nullable``: null is accepted and means that default."""

    key: str
    read: Callable[[Any], Any]
    kind: str
    doc: str
    default: str = ""
    choices: tuple[str, ...] = ()
    nullable: bool = False
    keys: tuple[Setting, ...] = field(default=(), compare=False)

    @property
    def name(self) -> str:
        """The last part of the key (``eager_limit``)."""
        return self.key.rsplit(".", 1)[-1]

    @property
    def unit(self) -> str:
        """The unit a plain number is in (``s``, ``B``, ``B/s``) or ``""``."""
        return UNITS.get(self.kind, "")

    def under(self, prefix: str) -> Setting:
        """This setting with its key (and its keys' keys) under ``prefix``."""
        key = f"{prefix}.{self.key}"
        return replace(self, key=key, keys=tuple(s.under(key) for s in self.keys))

    def sub(self, name: str) -> Setting | None:
        """The declaration of key ``name`` of a mapping setting."""
        return next((s for s in self.keys if s.name == name), None)

    def __call__(self, value: Any) -> Any:
        """The value read; SettingError naming this key (or the mapping's key) if refused."""
        if value is None and self.nullable:
            return None
        if self.keys:
            return self._mapping(value)
        try:
            return self.read(value)
        except Invalid as e:
            raise SettingError(self.key, str(e)) from None

    def _mapping(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            names = ", ".join(s.name for s in self.keys)
            raise SettingError(self.key, f"expected a mapping of {names}, got "
                               f"{describe(value)}")
        out = {}
        for name, item in value.items():
            setting = self.sub(name)
            if setting is None:
                raise SettingError(f"{self.key}.{name}", unknown_key(str(name), [
                    s.name for s in self.keys]))
            out[name] = setting(item)
        return out


def unknown_key(name: str, valid: Sequence[str]) -> str:
    """The reason for an unknown key: the closest valid one, or all of them."""
    return "unknown key" + (hint(name, valid) or f" (valid: {', '.join(valid)})")


_KIND_READERS: dict[str, Callable[[Any], Any]] = {
    "time": read_time, "size": read_size, "bandwidth": read_bandwidth, "count": read_positive,
    "bool": read_bool, "text": read_text,
}


def declare(kind: str, doc: str, read: Callable[[Any], Any] | None = None, *,
            default: Any = None, shown: str = "", choices: Sequence[str] = (),
            keys: Sequence[Setting] = ()) -> Any:
    """A dataclass field (default ``default``) declaring a setting; its key is the group
    and the field's name (:func:`declared`). ``shown`` is the default as documented."""
    reader = read or _KIND_READERS.get(kind)
    if choices and read is None:
        options = tuple(choices)
        reader = lambda v: read_choice(v, options)  # noqa: E731
    setting = Setting("", reader or _no_reader, kind, doc, shown, tuple(choices),
                      default is None, tuple(keys))
    return field(default=default, metadata={"setting": setting})


def _no_reader(value: Any) -> Any:
    raise Invalid("not a value")  # a mapping setting reads its keys


def entry(name: str, kind: str, doc: str, read: Callable[[Any], Any] | None = None, *,
          shown: str = "", nullable: bool = True) -> Setting:
    """The declaration of one key of a mapping setting (``intra: {latency: ...}``)."""
    return Setting(name, read or _KIND_READERS[kind], kind, doc, shown, (), nullable)


@cache
def declared(cls: type, group: str) -> dict[str, Setting]:
    """The settings declared on the fields of dataclass ``cls``, by field name, their keys
    ``group.field``."""
    out = {}
    for f in fields(cls):
        setting = f.metadata.get("setting")
        if setting is not None:
            out[f.name] = _named(setting, group, f.name)
    return out


def _named(setting: Setting, group: str, name: str) -> Setting:
    key = f"{group}.{name}"
    return replace(setting, key=key, keys=tuple(s.under(key) for s in setting.keys))


def resolve_field(obj: Any, group: str, name: str) -> Any:
    """Field ``name`` of settings object ``obj`` read by its declaration (null stays null
    where the declaration allows it); SettingError naming ``group.name`` if refused."""
    cls: type[object] = type(obj)
    return declared(cls, group)[name](getattr(obj, name))  # type: ignore[arg-type]  # a class is hashable
