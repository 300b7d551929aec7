"""ScenarioError and the collector of problems found while loading a scenario.

Loading reports every problem it finds, each once, as one line
``"<file>:<line>: <key path>: <problem>"`` (``"<file>: override <key>: <problem>"`` for a
value given by ``with_overrides``), so that a user fixes a file in one pass; ``str(e)`` is the
first line plus ``(and N more)``, short enough for a CLI's one-line error.
"""

from __future__ import annotations

__all__ = ["OVERRIDE", "Problems", "ScenarioError", "ScenarioRuntimeError"]

OVERRIDE = -1
"""The line number recorded for a value given by an override instead of the file."""


class ScenarioError(ValueError):
    """A scenario file that cannot be used; ``problems`` holds one line per problem.

    Parameters
    ----------
    problems
        One line per problem, each naming the file, line and key
        (``"ring.yaml:4: network.eager_limt: unknown key"``).
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems) or ["invalid scenario"]
        first = self.problems[0]
        more = len(self.problems) - 1
        super().__init__(first if more == 0 else f"{first} (and {more} more)")

    def __reduce__(self):  # picklable across process pools
        return (type(self), (self.problems,))


class ScenarioRuntimeError(RuntimeError):
    """A scenario program that is wrong at run time (division by zero, a name not yet set,
    a count that is not a whole number). Not an MPI error class: the scenario itself is at
    fault; the run ends with outcome ``error`` naming this class and the op's location."""


class Problems:
    """Collects problems in file order, each once, and raises them together."""

    def __init__(self, file: str) -> None:
        self.file = file
        self._items: list[tuple[int, int, str]] = []
        self._seen: set[str] = set()

    def add(self, line: int | None, key: str, problem: str) -> None:
        """Record ``problem`` about ``key`` (a key path) found at ``line`` (None: unknown)."""
        text = self.format(line, key, problem)
        if text not in self._seen:
            self._seen.add(text)
            order = line if line and line > 0 else 0
            self._items.append((order, len(self._items), text))

    def format(self, line: int | None, key: str, problem: str) -> str:
        """One problem line: ``file:line: key: problem``."""
        where = f"{self.file}: override" if line == OVERRIDE else \
            f"{self.file}:{line}:" if line else f"{self.file}:"
        return f"{where} {key}: {problem}" if key else f"{where} {problem}"

    def __bool__(self) -> bool:
        return bool(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def lines(self) -> list[str]:
        return [text for _, _, text in sorted(self._items)]

    def raise_if_any(self) -> None:
        if self._items:
            raise ScenarioError(self.lines())
