"""The Scenario: a validated scenario file, ready to run, to override and to check.

A Scenario keeps the document it was read from, so :meth:`Scenario.with_overrides` re-reads
it with new values and validates everything again (a new ``ranks`` can make a selector
invalid; a new param can make an expression divide by zero). Scenarios pickle: the program
is a :class:`~mpisim.scenario.interpret.Program` or a
:class:`~mpisim.scenario.pyscenario.PythonProgram`, both plain objects.
"""

from __future__ import annotations

import copy
from typing import Any

from ..runs import settings
from ..values.readers import unknown_key
from .problems import OVERRIDE, Problems
from .schema import SETTINGS, Header
from .yamlload import LMap, read_scalar

__all__ = ["Scenario"]


class Scenario:
    """A loaded scenario (see :func:`mpisim.scenario.load`).

    :func:`mpisim.load_scenario` builds it; its settings are attributes (``name``,
    ``ranks``, ``params``, ``network``, ``mpi``, ``buffer``, ``seed``, ``until``,
    ``max_events``, ``expect``), as the file gives them.

    Parameters
    ----------
    path
        The file it was loaded from.
    doc
        The file's content, parsed (kept for :meth:`with_overrides`).
    header
        Its settings, read and checked.
    program
        The rank program the scenario runs (``program(mpi, **params)``).
    rebuild
        Makes a Scenario from a changed ``doc`` (what :meth:`with_overrides` calls).
    """

    def __init__(self, path: str, doc: dict, header: Header, program: Any,
                 rebuild: Any) -> None:
        self.path = path
        self.name = header.name
        self.description = header.description
        self.ranks: int = header.ranks or 1
        self.params = header.params
        self.network = header.network
        self.mpi = header.mpi
        self.buffer = header.buffer
        self.seed = header.seed
        self.until = header.until
        self.max_events = header.max_events
        self.expect = header.expect
        self.program = program
        self._doc = doc
        self._rebuild = rebuild

    def __repr__(self) -> str:
        return f"<Scenario {self.name!r} ({self.ranks} ranks) from {self.path}>"

    # -- overrides -----------------------------------------------------------------------
    def override_keys(self) -> list[str]:
        """Every key :meth:`with_overrides` accepts."""
        return [*self.params, *SETTINGS,
                *(k for k in settings.every_key() if k not in SETTINGS)]

    def with_overrides(self, overrides: dict[str, Any]) -> Scenario:
        """A new Scenario with ``overrides`` applied (``{"count": "4096",
        "network.eager_limit": "64KiB", "buffer": 16384}``). A string value is read as a
        YAML scalar, then validated like the file's own value.

        Parameters
        ----------
        overrides
            Key to value, as ``--set KEY=VALUE`` takes them: a param by name (or
            ``params.NAME``), ``ranks``, ``buffer``, ``seed``, ``until``, ``max_events``,
            ``network.<key>``, ``mpi.<key>`` (:meth:`override_keys` lists them).

        Raises
        ------
        ValueError
            A ``ScenarioError`` naming each unknown key or value not valid.
        """
        if not overrides:
            return self
        problems = Problems(self.path)
        doc = copy.deepcopy(self._doc)
        valid = self.override_keys()
        for key, value in overrides.items():
            key = str(key).strip()
            if key.startswith("params.") and key[7:] in self.params:
                key = key[7:]
            if key not in valid:
                problems.add(OVERRIDE, key, unknown_key(key, valid))
                continue
            if isinstance(value, str):
                try:
                    value = read_scalar(value)
                except ValueError as e:
                    problems.add(OVERRIDE, key, str(e))
                    continue
            _put(doc, key, value, in_params=key in self.params)
        _profile_brings_its_allocator(doc, overrides)
        problems.raise_if_any()
        return self._rebuild(doc)

    def setting_sources(self) -> dict[str, str]:
        """Where each ``mpi.*`` and ``network.*`` setting given to the run comes from:
        ``"file"`` (the scenario's own key) or ``"--set"`` (an override)."""
        out: dict[str, str] = {}
        for group in ("mpi", "network"):
            section = self._doc.get(group)
            if not isinstance(section, dict):
                continue
            lines = getattr(section, "lines", {})
            for key in section:
                out[f"{group}.{key}"] = "--set" if lines.get(key) == OVERRIDE else "file"
        return out

    def annotate(self, result: Any) -> Any:
        """``result.settings`` with "given" told apart into "file" and "--set"."""
        sources = self.setting_sources()
        for key, entry in result.settings.items():
            if key in sources:
                entry["from"] = sources[key]
        return result

    # -- running -------------------------------------------------------------------------
    def run_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``ms.run`` for this scenario."""
        return {"program": self.program, "ranks": self.ranks, "network": dict(self.network),
                "mpi": dict(self.mpi), "params": dict(self.params), "buffer": self.buffer,
                "name": self.name, "seed": self.seed, "until": self.until,
                "max_events": self.max_events}

    def run(self, **overrides: Any) -> Any:
        """Run it: ``ms.run(**self.run_kwargs() | overrides)``.

        Parameters
        ----------
        **overrides
            Arguments of :func:`mpisim.run` that replace the scenario's (``until``,
            ``trace``, ``seed``...).
        """
        from ..runs.simulation import run

        return self.annotate(run(**(self.run_kwargs() | overrides)))

    def check_expect(self, result: Any) -> str | None:
        """None when ``result`` agrees with ``expect:`` (or there is none), else why not.

        Parameters
        ----------
        result
            The Result of a run of this scenario.
        """
        expect = self.expect
        if not expect:
            return None
        got = result.outcome.value
        if expect["outcome"] != got:
            return f"expected outcome {expect['outcome']}, got {got}{_detail(result)}"
        error = result.error
        for key, attr in (("error_class", "error_class"), ("error_call", "call"),
                          ("error_rank", "rank")):
            if key in expect and getattr(error, attr, None) != expect[key]:
                return (f"expected {key} {expect[key]}, got {getattr(error, attr, None)}"
                        f"{_detail(result)}")
        if "blocked" in expect:
            blocked = sorted({b.rank for b in result.deadlock.blocked}) if result.deadlock \
                else []
            if blocked != expect["blocked"]:
                return f"expected blocked ranks {expect['blocked']}, got {blocked}"
        low, high = expect.get("min_sim_time"), expect.get("max_sim_time")
        if low is not None and result.sim_time < low:
            return f"expected sim_time >= {low:.9g} s, got {result.sim_time:.9g} s"
        if high is not None and result.sim_time > high:
            return f"expected sim_time <= {high:.9g} s, got {result.sim_time:.9g} s"
        for rank, earliest in expect.get("min_end_time", {}).items():
            end = result.ranks[rank].end_time if rank < len(result.ranks) else None
            if end is None or end < earliest:
                shown = "never finished" if end is None else f"finished at {end:.9g} s"
                return f"expected rank {rank} to finish at >= {earliest:.9g} s, {shown}"
        return None


def _profile_brings_its_allocator(doc: dict, overrides: dict[str, Any]) -> None:
    """``--set mpi.profile=mpich`` models MPICH: the profile's allocator replaces the file's
    unless the override also names one (the sizing always follows the profile)."""
    keys = {str(k).strip() for k in overrides}
    mpi = doc.get("mpi")
    if "mpi.profile" in keys and "mpi.allocator" not in keys and isinstance(mpi, dict) and \
            getattr(mpi, "lines", {}).get("allocator") != OVERRIDE:  # an earlier --set stays
        mpi.pop("allocator", None)


def _put(doc: dict, key: str, value: Any, in_params: bool) -> None:
    """Set ``key`` in the document, marking it (and every mapping made) as an override."""
    settings.put(doc, f"params.{key}" if in_params else key, value, new=LMap, mark=_mark)


def _mark(mapping: dict, key: str) -> None:
    if hasattr(mapping, "lines"):
        mapping.lines[key] = OVERRIDE


def _detail(result: Any) -> str:
    if result.error is not None:
        e = result.error
        return f" ({e.error_class} in {e.call} on rank {e.rank}: {e.message})"
    if result.deadlock is not None:
        ranks = sorted({b.rank for b in result.deadlock.blocked})
        return f" (blocked ranks: {ranks})"
    if result.timeout_reason:
        return f" ({result.timeout_reason})"
    return ""

