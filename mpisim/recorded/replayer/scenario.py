"""A recording seen as a scenario: what ``run``, ``check``, ``min-buffer``, ``sweep`` and
``--profiles`` take, and :func:`replay`.

:class:`ReplayScenario` offers what the CLI and the what-if tools need of a scenario
(``name``, ``ranks``, ``params``, ``run_kwargs()``, ``with_overrides()``, ``annotate()``,
``check_expect()``). Its settings (network, MPI library, ``buffer``, ``seed``, ``until``,
``max_events``) are a scenario's, validated by the scenario rules; its params are the
replay's own: ``compute_scale`` (the measured time outside MPI is computed times this; 0
ignores it) and ``as_matched`` (wildcard receives pinned to what they matched). ``ranks`` is
the recording's and cannot change (a replay is one run's calls, not a pattern).

:meth:`ReplayScenario.compare` says how the replay's outcome relates to the recorded run's:
the same outcome, and for a killed run the same blocked calls.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from ..library import LibraryProfile, profile_for
from ..read.records import Trace
from .program import ReplayProgram, load
from .verdict import as_run, compare, describe

__all__ = ["ReplayScenario", "replay", "replay_scenario"]

PARAMS = {"compute_scale": 1.0, "as_matched": False}
EVENTS_PER_CALL = 16
"""Events a replay may make per recorded call, beyond the default guard, when neither
``max_events`` nor ``until`` is given: replays make 1 to 5 (a 512-process halo exchange with
an allreduce per step about 4), so a complete recording, however long, ends at its end,
never at a bound set for programs that might not end. The wall-time forecast of a long replay
goes by the calls replayed against the recording's, not by this bound
(:meth:`ReplayScenario.work`)."""


class ReplayScenario:
    """A recorded run with its settings, used where a Scenario is (see the module).

    :func:`replay_scenario` builds it.

    Parameters
    ----------
    program
        The ReplayProgram of the recording.
    settings
        The replay's settings, as a scenario holds them.
    params
        The replay's own params: ``compute_scale`` (a number >= 0) and ``as_matched``
        (a bool).
    recorded_profile
        Whether the profile in force was chosen as the recording's library's (rather than
        given); default False.
    """

    def __init__(self, program: ReplayProgram, settings: Any, params: dict[str, Any],
                 recorded_profile: bool = False) -> None:
        self.program = program
        self.settings = settings
        self.trace: Trace = load(program.path)
        self.library: LibraryProfile = profile_for(self.trace.ranks[0].header.get("library", ""))
        self.recorded_profile = recorded_profile
        """Whether the profile in force is the recording's library's (:mod:`.library`),
        chosen by default rather than given."""
        self.ranks = self.trace.size
        self.params = dict(params)
        self.name = settings.name
        self.expect: dict[str, Any] = {}
        self.path = program.path
        self._last: ReplayProgram | None = None
        self.last_result: Any = None

    def __repr__(self) -> str:
        return f"<replay of {os.path.basename(self.path)} ({self.ranks} ranks)>"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as the recording's path, never its calls: a what-if worker reads the
        recording itself (once per process, :func:`.program.load`), as it replays it."""
        state = dict(self.__dict__)
        del state["trace"]
        state.update(_last=None, last_result=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.trace = load(self.path)

    def run_kwargs(self) -> dict[str, Any]:
        kwargs = self.settings.run_kwargs()
        if kwargs.get("max_events") is None and kwargs.get("until") is None:
            kwargs["max_events"] = self.event_bound()
        self._last = ReplayProgram.__new__(ReplayProgram)
        self._last.__setstate__(self.program.__getstate__())
        kwargs.update(program=self._last, ranks=self.ranks, params=dict(self.params),
                      name=self.name, work=self.work(self._last))
        return kwargs

    def calls(self) -> int:
        """The recorded calls of every process (the spawned ones' too)."""
        return sum(len(log.calls) for log in self.trace.processes)

    def event_bound(self) -> int:
        """The replay's event bound when none is given: the default guard of a run plus
        :data:`EVENTS_PER_CALL` per recorded call (it grows with the recording)."""
        from ...runs import simulation

        return simulation.DEFAULT_MAX_EVENTS + EVENTS_PER_CALL * self.calls()

    def work(self, program: ReplayProgram) -> Any:
        """What the run of ``program`` is known to do, for its wall-time forecast: the
        recording's calls, of which those ``program`` has reached so far are done (a
        replay makes 1 to 5 events a call, so its end is known far better than its
        bound's)."""
        from ...runs.estimate import Work

        return Work(self.calls(), partial(_calls_reached, program), unit="recorded calls",
                    done_as="replayed", run_as="replay")

    def override_keys(self) -> list[str]:
        return [*PARAMS, *(k for k in self.settings.override_keys() if k != "ranks")]

    def with_overrides(self, overrides: dict[str, Any]) -> ReplayScenario:
        """Params (``compute_scale``, ``as_matched``) and settings overridden.

        Parameters
        ----------
        overrides
            Key to value, as ``--set`` takes them: ``compute_scale``, ``as_matched``,
            ``network.<key>``, ``mpi.<key>``, ``buffer``, ``seed``, ``until``,
            ``max_events`` (``ranks`` only as the recording's).
        """
        from ...scenario import ScenarioError
        from ...scenario.yamlload import read_scalar

        params, settings = dict(self.params), {}
        for key, value in overrides.items():
            key = str(key).strip().removeprefix("params.")
            if key == "ranks" and str(value).strip() != str(self.ranks):
                raise ScenarioError([f"{self.path}: ranks: a replay runs the {self.ranks} "
                                     "recorded processes; it cannot change their number"])
            if key == "ranks":
                continue
            if key in PARAMS:
                params[key] = _param(self.path, key, read_scalar(value)
                                     if isinstance(value, str) else value)
            else:
                settings[key] = value
        merged = self.settings.with_overrides(settings) if settings else self.settings
        return ReplayScenario(self.program, merged, params,
                              self.recorded_profile and "mpi.profile" not in settings)

    def setting_sources(self) -> dict[str, str]:
        return self.settings.setting_sources()

    def annotate(self, result: Any) -> Any:
        """The settings' sources, and the divergences of the last run as warnings."""
        result = self.settings.annotate(result)
        entry = result.settings.get("mpi.profile")
        if self.recorded_profile and entry is not None:
            entry["from"] = "recording"
        if self._last is not None:  # first: an unreceived-messages warning lists them after
            last = self._last
            result.warnings[0:0] = [
                *(f"replay diverged: {n}" for rank in sorted(last.divergences)
                  for n in last.divergences[rank]),
                *(f"library quirk (not a divergence): {n}" for rank in sorted(last.quirks)
                  for n in last.quirks[rank])]
        self.last_result = result
        return result

    def check_expect(self, result: Any) -> str | None:
        return None

    def run(self, **overrides: Any) -> Any:
        """Replay it and return the Result (the divergences are its warnings).

        Parameters
        ----------
        **overrides
            Arguments of :func:`mpisim.run` that replace the replay's (``until``,
            ``trace``...).
        """
        from ...runs.simulation import run

        return self.annotate(run(**(self.run_kwargs() | overrides)))

    # -- the recording beside the replay --------------------------------------------------
    def profile(self) -> str | None:
        """The profile the replay runs under (its name, or a profile file's path)."""
        value = self.settings.mpi.get("profile") if isinstance(self.settings.mpi, dict) \
            else None
        return None if value is None else str(value)

    def recording(self) -> str:
        """One paragraph on the recorded run: library, processes, how each ended, and the
        profile the replay runs under and why (``mpisim.recorded.replayer.verdict``)."""
        return describe(as_run(self.trace), self.library, self.profile(),
                        self.recorded_profile)

    def compare(self, result: Any) -> str:
        """Whether the replay ended as the recorded run did: one line (see
        ``mpisim.recorded.replayer.verdict``).

        Parameters
        ----------
        result
            The Result of this replay's last :meth:`run`.
        """
        last = self._last
        reached = last.reached if last is not None else {}
        diverged = last is not None and any(last.divergences.values())
        spawned = last.spawned if last is not None else {}
        return compare(as_run(self.trace, spawned), result, reached, self.library, diverged)


def _calls_reached(program: ReplayProgram) -> int:
    """The calls a replay has reached, all processes together: each process's call number
    (its calls are numbered from 1 in its log). Cheap: one sum over the processes."""
    return sum(number for _, number in program.reached.values())


def _param(path: str, key: str, value: Any) -> Any:
    from ...scenario import ScenarioError

    if key == "compute_scale":
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ScenarioError([f"{path}: compute_scale: expected a number >= 0, got "
                                 f"{value!r}"])
        return float(value)
    if not isinstance(value, bool):
        raise ScenarioError([f"{path}: as_matched: expected true or false, got {value!r}"])
    return value


def replay_scenario(path: str | os.PathLike[str], settings: str | None = None,
                    overrides: dict[str, Any] | None = None) -> ReplayScenario:
    """Load a recording and its settings; ValueError (one line per problem) if anything is
    wrong (TraceError names the file, line and key).

    Parameters
    ----------
    path
        The recording: a ``.trace`` file or a directory of ``rank.N.log`` files.
    settings
        A scenario-style YAML file of settings for the replay (``network``, ``mpi``,
        ``buffer``, ``seed``, ``until``, ``max_events``; not ``ranks``, ``params`` or
        ops). Default: None, none.
    overrides
        Settings as ``--set`` takes them (``{"mpi.profile": "standard"}``), and the
        replay's params ``compute_scale`` and ``as_matched``. Default: none. Without
        ``mpi.profile`` the profile is the recording library's.

    Returns
    -------
    ReplayScenario
        Usable wherever a Scenario is (``run()``, the what-if functions).
    """
    from ...scenario import ScenarioError
    from ...scenario.load import settings_scenario

    program = ReplayProgram(path)
    size = load(program.path).size
    settings_of = settings_scenario(settings, {"name": program.__name__, "ranks": size},
                                    ("ranks",), "a replay")
    scenario = ReplayScenario(program, settings_of, dict(PARAMS))
    overrides = dict(overrides or {})
    given = "mpi.profile" in settings_of.setting_sources() or any(
        str(k).strip() == "mpi.profile" for k in overrides)
    if not given:  # the recording's library's profile (mpisim.recorded.library)
        scenario = ReplayScenario(program, settings_of.with_overrides(
            {"mpi.profile": scenario.library.profile}), dict(PARAMS), True)
    try:
        return scenario.with_overrides(overrides) if overrides else scenario
    except ScenarioError as e:
        raise ValueError("\n".join(e.problems)) from None


def replay(path: str | os.PathLike[str], compute_scale: float = 1.0, as_matched: bool = False,
           **run_kwargs: Any) -> Any:
    """Replay a recorded run on mpisim's engine and return the Result.

    Each rank runs its recorded MPI calls in order, computing between two calls for the
    wall time the process spent outside MPI there. By default the profile is the one of the
    library that made the recording (``mpich-5.0`` for MPICH 5.0.2...); name another to ask
    what the same program would do on it. The divergences from the recording (a wildcard
    receive that matched another sender...) are the Result's warnings.

    Parameters
    ----------
    path
        The recording: a ``.trace`` file (``mpisim record`` writes it) or the directory
        of a recording's per-process logs.
    compute_scale
        Factor applied to the recorded time outside MPI (default 1.0: as measured; 0:
        none, only the communication; 2: a machine half as fast).
    as_matched
        Whether each wildcard receive and probe (``MPI_ANY_SOURCE``) is pinned to the
        sender it matched in the recording (default False: wildcards stay wildcards, so
        another network or library may match differently).
    **run_kwargs
        The arguments of :func:`mpisim.run` other than ``program``, ``ranks`` and
        ``params``: ``network``, ``mpi`` (dicts of settings, e.g.
        ``mpi={"profile": "standard"}``), ``buffer``, ``seed``, ``until``,
        ``max_events``, ``trace``.

    Returns
    -------
    Result
        As :func:`mpisim.run` returns it; its settings say ``"from": "recording"`` for what
        the recording decided.

    Raises
    ------
    ValueError
        The recording cannot be read (the message names the file, line and key).

    Examples
    --------
    ``run.trace`` is Example 3.10 (buffered sends) recorded on MPICH 5.0.2:

    >>> import mpisim as ms
    >>> result = ms.replay("run.trace")
    >>> result.outcome, result.settings["mpi.profile"]
    (<Outcome.COMPLETED: 'completed'>, {'value': 'mpich-5.0', 'from': 'recording'})
    >>> bare = ms.replay("run.trace", compute_scale=0, mpi={"profile": "standard"})
    >>> round(bare.sim_time * 1e6, 3)  # microseconds: the communication only
    1.8
    """
    scenario = replay_scenario(path)
    overrides: dict[str, Any] = {"compute_scale": compute_scale, "as_matched": as_matched}
    for group in ("network", "mpi"):
        for key, value in dict(run_kwargs.pop(group, None) or {}).items():
            overrides[f"{group}.{key}"] = value
    for key in ("buffer", "seed", "until", "max_events"):
        if key in run_kwargs:
            overrides[key] = run_kwargs.pop(key)
    return scenario.with_overrides(overrides).run(**run_kwargs)
