"""Reading YAML with line numbers, refusing duplicate keys and YAML 1.1 surprises.

PyYAML implements YAML 1.1, where ``on``/``yes``/``no``/``off`` are booleans, ``010`` is octal
8, ``1:30`` is the base-60 number 90 and ``1e3`` is a *string*. Scenario files are meant to read
the same in every YAML tool, so this loader resolves plain scalars by deliberate rules:

- ``true``/``false`` (any of the three YAML casings) are booleans; ``null``, ``~`` and an empty
  value are null;
- ``1000``, ``-3``, ``0x1F``, ``0o17`` are integers; ``1e3``, ``2.5``, ``.5``, ``.inf`` are floats
  (so ``1e3`` is a number: where a whole number is expected an integral float is accepted);
- the YAML 1.1 boolean words (``yes``/``no``/``on``/``off`` in any casing), integers with a
  leading zero (``010``) and base-60 numbers (``1:30``) mean different things in YAML 1.1 and
  1.2: they load as :class:`Ambiguous` values, which validation refuses wherever they appear,
  saying why (quote them to mean text, or write ``true``/``false`` or the number you mean);
- everything else is a string.

Mappings load as :class:`LMap` (a dict that knows the line of each key), sequences as
:class:`LList` (a list that knows the line of each item). A key given twice is a problem
(reported with the line of both), never a silent overwrite. Anchors and aliases are refused:
they are not needed (use ``loop`` and ``params``) and would let a small file expand without
bound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent

from ..values.readers import Refused
from ..values.units import MAX_DIGITS, digits, shorten
from ..values.yamlslips import syntax_problem

__all__ = ["Ambiguous", "LList", "LMap", "YamlProblem", "line_of", "read_scalar", "read_yaml"]


class LMap(dict):
    """A mapping from a scenario file; ``line`` is where it starts, ``lines[key]`` where each
    key is."""

    def __init__(self, *args: Any, line: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = line
        self.lines: dict[Any, int] = {}
        self.duplicates: list[tuple[Any, int, int]] = []


class LList(list):
    """A sequence from a scenario file; ``line`` is where it starts, ``lines[i]`` where item
    ``i`` is."""

    def __init__(self, *args: Any, line: int = 0) -> None:
        super().__init__(*args)
        self.line = line
        self.lines: list[int] = []


@dataclass(frozen=True)
class Ambiguous(Refused):
    """A plain scalar that YAML 1.1 and YAML 1.2 read differently; refused where used."""

    text: str
    reason: str

    def __str__(self) -> str:
        return self.text


class OutOfRange(Ambiguous):
    """A number written with more digits than any setting accepts: refused where used, as an
    Ambiguous value is (converting it would fail with a bare error, or take long)."""


@dataclass(frozen=True)
class YamlProblem:
    """A problem found while reading (before validation): a line and a message."""

    line: int
    message: str


def line_of(container: Any, key: Any, default: int = 0) -> int:
    """The line of ``key`` in an LMap or of item ``key`` in an LList (else ``default``)."""
    lines = getattr(container, "lines", None)
    try:
        if isinstance(lines, dict):
            return lines.get(key, default) or default
        if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
            return lines[key]
    except TypeError:
        pass
    return getattr(container, "line", default) or default


_BOOL11 = "yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF"
_TAG_AMBIGUOUS = "tag:mpisim,2024:ambiguous"


class ScenarioLoader(yaml.SafeLoader):
    """SafeLoader with the resolution rules above, line marks and duplicate-key checks."""

    yaml_implicit_resolvers: dict = {}  # noqa: RUF012  (PyYAML's class-level table)

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.problems: list[YamlProblem] = []

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(AliasEvent):
            event = self.get_event()
            raise ComposerError(None, None, f"alias *{event.anchor} is not supported (anchors "
                                "and aliases are refused; use loop or params)", event.start_mark)
        return super().compose_node(parent, index)

    def construct_lmap(self, node: Any) -> Any:
        data = LMap(line=node.start_mark.line + 1)
        yield data
        if not isinstance(node, yaml.MappingNode):
            return
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                hash(key)
            except TypeError:
                self.problems.append(YamlProblem(line, "a key must be a plain scalar, not a "
                                                 f"{type(key).__name__}"))
                continue
            if key in data:
                data.duplicates.append((key, line, data.lines[key]))
                continue
            data[key] = self.construct_object(value_node, deep=True)
            data.lines[key] = line

    def construct_llist(self, node: Any) -> Any:
        data = LList(line=node.start_mark.line + 1)
        yield data
        if not isinstance(node, yaml.SequenceNode):
            return
        for item in node.value:
            data.append(self.construct_object(item, deep=True))
            data.lines.append(item.start_mark.line + 1)

    def construct_ambiguous(self, node: Any) -> Ambiguous:
        text = self.construct_scalar(node)
        if re.fullmatch(_BOOL11, text):
            reason = (f"{text!r} is a boolean in YAML 1.1 but a string in YAML 1.2; write "
                      f"true or false, or quote it (\"{text}\") to mean the text")
        elif ":" in text:
            reason = (f"{text!r} is a base-60 number in YAML 1.1 but a string in YAML 1.2; "
                      "quote it to mean the text, or write the number you mean")
        else:
            reason = (f"{text!r} has a leading zero: YAML 1.1 reads it as octal, YAML 1.2 as "
                      "decimal; write it without the leading zero (or 0o... for octal)")
        return Ambiguous(text, reason)

    def construct_number(self, node: Any) -> int | float | OutOfRange:
        text = self.construct_scalar(node)
        if digits(text) > MAX_DIGITS:
            return OutOfRange(shorten(text), f"a number of {digits(text)} digits is out of "
                              f"range (at most {MAX_DIGITS} digits)")
        if re.fullmatch(r"[-+]?(?:0|[1-9][0-9]*)", text):
            return int(text)
        if text.startswith(("0x", "0o")):
            return int(text, 0)
        lowered = text.lower()
        if lowered.lstrip("+-") == ".inf":
            return float("-inf") if lowered.startswith("-") else float("inf")
        if lowered == ".nan":
            return float("nan")
        return float(text)


def _resolver(tag: str, pattern: str, first: str) -> None:
    ScenarioLoader.add_implicit_resolver(tag, re.compile(rf"^(?:{pattern})$"), list(first))


_resolver("tag:yaml.org,2002:bool", "true|True|TRUE|false|False|FALSE", "tTfF")
_resolver("tag:yaml.org,2002:null", "~|null|Null|NULL|", "~nN")
ScenarioLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^$"), [""])
_resolver(_TAG_AMBIGUOUS, _BOOL11, "yYnNoO")
_resolver(_TAG_AMBIGUOUS, r"[-+]?0[0-9_]+", "-+0")
_resolver(_TAG_AMBIGUOUS, r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?", "-+0123456789")
_resolver("tag:yaml.org,2002:int", r"[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+|0o[0-7]+",
          "-+0123456789")
_resolver("tag:yaml.org,2002:float",
          r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
          r"|\.(?:nan|NaN|NAN)", "-+.0123456789")

ScenarioLoader.add_constructor("tag:yaml.org,2002:map", ScenarioLoader.construct_lmap)
ScenarioLoader.add_constructor("tag:yaml.org,2002:seq", ScenarioLoader.construct_llist)
ScenarioLoader.add_constructor(_TAG_AMBIGUOUS, ScenarioLoader.construct_ambiguous)
ScenarioLoader.add_constructor("tag:yaml.org,2002:int", ScenarioLoader.construct_number)
ScenarioLoader.add_constructor("tag:yaml.org,2002:float", ScenarioLoader.construct_number)


def read_yaml(text: str) -> tuple[Any, list[YamlProblem]]:
    """Parse one YAML document; returns (data, problems). A YAML syntax error comes back as
    a single problem with the line it was found at, and data None."""
    loader = None
    try:
        loader = ScenarioLoader(text)
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        line, slip = syntax_problem(e, text.count("\n") + (not text.endswith("\n")))
        return None, [YamlProblem(line, f"invalid YAML: {slip}")]
    except yaml.reader.ReaderError as e:
        return None, [YamlProblem(0, f"invalid YAML: character #x{e.character:04x} is not "
                                  "allowed")]
    except yaml.YAMLError as e:
        return None, [YamlProblem(0, f"invalid YAML: {str(e).splitlines()[0]}")]
    except (RecursionError, MemoryError):
        return None, [YamlProblem(0, "invalid YAML: nested too deeply")]
    except (ValueError, OverflowError) as e:  # a number too large to construct
        return None, [YamlProblem(0, f"invalid YAML: {e}")]
    finally:
        if loader is not None:
            loader.dispose()
    problems = list(loader.problems)
    _duplicates(data, problems)
    return data, problems


def _duplicates(data: Any, problems: list[YamlProblem]) -> None:
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, LMap):
            for key, line, first in node.duplicates:
                problems.append(YamlProblem(line, f"{key}: duplicate key (first given at line "
                                            f"{first})"))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def read_scalar(text: str) -> Any:
    """A value given on a command line (``--set count=4096``), read by the rules above.
    Raises ValueError with a one-line reason when it is not valid YAML."""
    data, problems = read_yaml(text)
    if problems:
        raise ValueError(f"cannot read {text!r}: {problems[0].message}")
    return data
