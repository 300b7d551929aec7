"""What a what-if run runs: a scenario, or a program function with its run keywords.

A :class:`Target` is made once in the calling process and sent to workers (it is picklable:
a loaded scenario, or a module-level program function), then asked for the keywords of
``mpisim.run`` at one *point* — a mapping from varied keys to values:

- ``"count"`` (no dot): a param, passed to the program as a keyword argument;
- ``"network.<key>"``, ``"mpi.<key>"``: one setting of the network or of the MPI library;
- ``"buffer"``, ``"ranks"``, ``"seed"``, ``"until"``, ``"max_events"``: the run's own keywords.

For a program function the point is merged into the keywords given to the what-if call.
For a scenario, params and ``ranks`` shape its program, so they go through
``Scenario.with_overrides`` (which reads and validates them by the file's rules; the rebuilt
scenarios are cached, as product order repeats them); the other keys only set the machine or
the run, so they are put into the run keywords directly — a text value (``"64KiB"``) read once
by the scenario's rules — and a sweep of buffer sizes or eager limits rebuilds nothing.
:meth:`Target.validate` tries the values of every key in the calling process, so a typo is one
clear error before any worker starts, not a thousand.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..runs import settings
from ..runs.simulation import Simulation, run

if TYPE_CHECKING:  # a type only: a sweep's workers never load the scenario package for it
    from ..scenario.protocol import ScenarioLike

__all__ = ["RUN_KEYS", "Target"]

RUN_KEYS = tuple(k for k in settings.RUN if k != "name")
"""Varied keys that are keywords of ``mpisim.run`` itself, not params or settings."""

CACHED_SCENARIOS = 64
"""Scenarios rebuilt for distinct params kept per process."""

VALIDATE_ALL = 32
"""Keys with at most this many distinct values have every value tried before a sweep."""

_FUNCTION_KEYS = {*settings.RUN, *settings.GROUPS, "params", "trace"}


class Target:
    """A scenario or a program function, and the run keywords common to every point."""

    def __init__(self, scenario: ScenarioLike | None = None, program: Any = None,
                 base: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        self.scenario = scenario
        self.program = program
        self.base = dict(base or {})
        self.extra = dict(extra or {})
        self.comm_buffer: str | None = None  # `buffer` values go to this communicator's

    # -- construction --------------------------------------------------------------------
    @classmethod
    def of(cls, scenario: Any, run_kwargs: Mapping[str, Any]) -> Target:
        """From what a user passed: a path, a loaded Scenario or a program function."""
        if isinstance(scenario, Target):
            return scenario
        if isinstance(scenario, str | os.PathLike):
            from ..scenario import load

            scenario = load(scenario)
        if isinstance(scenario, list | tuple) or (callable(scenario)
                                                   and not hasattr(scenario, "run_kwargs")):
            return cls._of_program(scenario, dict(run_kwargs))
        if not hasattr(scenario, "with_overrides") or not hasattr(scenario, "run_kwargs"):
            raise TypeError("scenario: expected a path, a loaded Scenario or a program function, "
                            f"got {type(scenario).__name__}")
        fixed, extra = _scenario_overrides(dict(run_kwargs))
        return cls(scenario=scenario.with_overrides(fixed) if fixed else scenario, extra=extra)

    @classmethod
    def _of_program(cls, program: Any, kwargs: dict[str, Any]) -> Target:
        if "ranks" not in kwargs:
            raise ValueError("a program function needs ranks=... (how many ranks run it)")
        unknown = sorted(set(kwargs) - _FUNCTION_KEYS)
        if unknown:
            raise ValueError(f"unknown run keyword {unknown[0]!r} (valid: "
                             f"{', '.join(sorted(_FUNCTION_KEYS))})")
        return cls(program=program, base=kwargs)

    # -- names ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        if self.scenario is not None:
            return str(self.scenario.name)
        first = self.program[0] if isinstance(self.program, list | tuple) else self.program
        return str(self.base.get("name") or getattr(first, "__name__", "program"))

    # -- the keywords of one run ---------------------------------------------------------
    def run_kwargs(self, point: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
        """The keywords of ``mpisim.run`` at ``point`` (``extra`` last: it wins); with
        ``comm_buffer`` set, a ``buffer`` value is that communicator's buffer size."""
        kwargs = self._run_kwargs(point, **extra)
        if self.comm_buffer is not None and kwargs.get("buffer") is not None \
                and not isinstance(kwargs["buffer"], dict):
            kwargs["buffer"] = {"comm": self.comm_buffer, "size": kwargs["buffer"]}
        return kwargs

    def _run_kwargs(self, point: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
        if self.scenario is None:
            kwargs = dict(self.base)
            kwargs["program"] = self.program
            for key, value in point.items():
                _apply(kwargs, key, value)
            return kwargs | extra
        shaping = {k: v for k, v in point.items() if not _is_setting(k)}
        kwargs = self._scenario(shaping).run_kwargs()
        for key, value in point.items():
            if _is_setting(key):
                _apply(kwargs, key, self._typed(key, value))
        return kwargs | self.extra | extra

    def run(self, point: Mapping[str, Any], **extra: Any) -> Any:
        """Run one simulation at ``point``; a bad setting raises ValueError naming the point."""
        kwargs = self.run_kwargs(point, **extra)
        try:
            result = run(**kwargs)
        except ValueError as e:
            raise ValueError(_at(point, e)) from None
        annotate = getattr(self.scenario, "annotate", None)
        return annotate(result) if annotate is not None and not point else result

    def _scenario(self, shaping: dict[str, Any]) -> ScenarioLike:
        """The scenario rebuilt for the params (and ranks) of a point; recent ones cached,
        since product order repeats them for every value of the keys after them."""
        scenario = self.scenario
        assert scenario is not None  # (a program's target has no scenario to reshape)
        if not shaping:
            return scenario
        cache = self.__dict__.setdefault("_cache", {})
        key = _key(shaping)
        found = cache.get(key)
        if found is None:
            found = scenario.with_overrides(shaping)
            if len(cache) >= CACHED_SCENARIOS:
                cache.clear()  # (safe with threads sharing the target, unlike evicting one)
            cache[key] = found
        return found

    def _typed(self, key: str, value: Any) -> Any:
        """A setting as the scenario would read it: text such as "64KiB" or "true" is read by
        the scenario's own rules (once per value); numbers go to the engine as they are."""
        if not isinstance(value, str):
            return value
        typed = self.__dict__.setdefault("_typed_values", {})
        if (key, value) not in typed:
            assert self.scenario is not None  # (a setting as text: a scenario's target)
            kwargs = self.scenario.with_overrides({key: value}).run_kwargs()
            typed[(key, value)] = _lookup(kwargs, key)
        return typed[(key, value)]

    def __getstate__(self) -> dict[str, Any]:
        """Caches stay in the process that filled them (workers fill their own), and so does
        the last run a scenario keeps (a recording's ``last_result``, its whole trace)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_cache", "_typed_values")}
        if getattr(self.scenario, "last_result", None) is not None:
            state["scenario"] = copy.copy(self.scenario)
            state["scenario"].last_result = None
        return state

    # -- validation ----------------------------------------------------------------------
    def validate(self, vary: Mapping[str, Iterable[Any]]) -> None:
        """Try values of each key alone (others as given); raise the first problem.

        Every value when a key has few (VALIDATE_ALL), else a spread of them including both
        ends: a bad value among the rest still stops the sweep with the same message, only
        later. Params of a program function need no run to check (their names are checked
        against its signature)."""
        for key in vary:
            self.check_key(key)
        for key, values in vary.items():
            if self.scenario is None and not _is_setting(key) and key != "ranks":
                continue
            for value in _spread(_distinct(values)):
                try:  # run_kwargs reads a scenario's values by its rules; the engine checks
                    Simulation(**self.run_kwargs({key: value}, trace=False))
                except ValueError as e:
                    first = str(e).splitlines()[0] if str(e) else type(e).__name__
                    raise ValueError(first if key in first else _at({key: value}, e)) from None

    def check_key(self, key: str) -> None:
        """A param the program does not take is refused (a scenario checks its own keys)."""
        if not isinstance(key, str) or not key:
            raise ValueError(f"vary: keys are names such as 'count' or 'network.eager_limit', "
                             f"got {key!r}")
        if self.scenario is not None or key in RUN_KEYS:
            return  # a scenario's with_overrides names its own valid keys
        if "." in key:
            if key.split(".", 1)[0] not in settings.GROUPS:
                raise ValueError(f"{key}: unknown setting group {key.split('.', 1)[0]!r} "
                                 "(vary 'network.<key>', 'mpi.<key>', a param, or one of "
                                 f"{', '.join(RUN_KEYS)})")
            if settings.lookup(key) is None:
                raise ValueError(f"{key}: unknown setting (mpisim settings lists them)")
            return
        accepted = _program_params(self.program)
        if accepted is not None and key not in accepted:
            shown = ", ".join(sorted(accepted)) or "none"
            raise ValueError(f"{key}: not a parameter of program {self.name} (its parameters: "
                             f"{shown}; settings are 'network.<key>', 'mpi.<key>', "
                             f"{', '.join(RUN_KEYS)})")


def _scenario_overrides(kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run keywords given with a scenario: what the scenario must be rebuilt with (params,
    settings, ranks...: {"network": {"eager_limit": 0}} -> "network.eager_limit") and what
    goes to ``mpisim.run`` as it is (trace, name)."""
    fixed: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in ("network", "mpi") and value is not None:
            fixed.update({f"{key}.{k}": v for k, v in _settings(value).items()})
        elif key == "params" and value is not None:
            fixed.update(dict(value))
        elif key in RUN_KEYS:
            fixed[key] = value
        else:
            extra[key] = value
    return fixed, extra


def _is_setting(key: str) -> bool:
    """A key that changes only the machine or the run, not the program's ops: applied to the
    run keywords directly, without rebuilding a scenario."""
    return key.startswith(("network.", "mpi.")) or (key in RUN_KEYS and key != "ranks")


def _apply(kwargs: dict[str, Any], key: str, value: Any) -> None:
    """Put one varied value into run keywords (copies: the base keywords are shared)."""
    group, dot, setting = key.partition(".")
    if dot and group in settings.GROUPS:
        outer = _settings(kwargs.get(group))
        inner = setting.partition(".")[0]  # network.intra.latency: copy intra too
        if inner != setting and isinstance(outer.get(inner), dict):
            outer[inner] = dict(outer[inner])
        settings.put(outer, setting, value)
        kwargs[group] = outer
    elif key in RUN_KEYS:
        kwargs[key] = value
    else:
        kwargs["params"] = dict(kwargs.get("params") or {}) | {key: value}


def _lookup(kwargs: dict[str, Any], key: str) -> Any:
    """The value of ``key`` (``network.eager_limit``, ``buffer``...) in run keywords."""
    return settings.get(kwargs, key)


def _key(point: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple((k, type(v).__name__, repr(v)) for k, v in point.items())


def _spread(values: list[Any]) -> list[Any]:
    if len(values) <= VALIDATE_ALL:
        return values
    step = (len(values) - 1) / (VALIDATE_ALL - 1)
    return [values[round(i * step)] for i in range(VALIDATE_ALL)]


def _settings(value: Any) -> dict[str, Any]:
    """A settings object (Network, MPIConfig) or dict as a plain dict of what was given."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise ValueError(f"expected a settings object or a dict, got {type(value).__name__}")


def _program_params(program: Any) -> set[str] | None:
    """Keyword parameters every program accepts (None: any, it takes **params)."""
    programs = program if isinstance(program, list | tuple) else [program]
    accepted: set[str] | None = None
    for fn in programs:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return None
        params = list(sig.parameters.values())[1:]  # the first is the mpi handle
        if any(p.kind is p.VAR_KEYWORD for p in params):
            continue
        names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        accepted = names if accepted is None else accepted & names
    return accepted


def _distinct(values: Iterable[Any]) -> list[Any]:
    return list({(type(v).__name__, repr(v)): v for v in values}.values())


def _at(point: Mapping[str, Any], error: Exception) -> str:
    where = ", ".join(f"{k}={v!r}" for k, v in point.items())
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"at {where}: {first}" if where else first

