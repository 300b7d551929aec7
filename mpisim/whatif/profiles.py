"""One program under several MPI implementations' profiles, side by side.

``compare_profiles(scenario, ["standard", "mpich", "openmpi"])`` runs the scenario once per
profile. A profile models a library: its allocator, its entry sizing, its eager limit and
cells, so the scenario's own ``mpi.allocator`` gives way to the profile's (as with ``--set
mpi.profile=...``) unless ``overrides`` name one. The answer is a table (outcome, time,
error, allocator, sizing, eager limit, peak used bytes) and each run's full Result.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from ..profiles.names import label, release_note
from ..values.units import format_size, format_time
from .executors import Workers
from .target import Target

__all__ = ["ProfileComparison", "compare_profiles"]


@dataclass
class ProfileComparison:
    """The runs of :func:`compare_profiles`, in the order of the profiles given.

    Parameters
    ----------
    scenario
        The name of what was run.
    results
        ``(profile, Result)`` pairs, in the order the profiles were given.
    notes
        What a reader must know beside a profile's row, by profile: for a replay, a profile
        of another release of the recorded library (``"mpich is MPICH 4.0; this recording
        is MPICH 5.0.2: mpich-5.0"``). Default: none.
    """

    scenario: str
    results: list[tuple[str, Any]]
    notes: dict[str, str] = field(default_factory=dict)

    @staticmethod
    def label(profile: str) -> str:
        """A profile's name as the table prints it: a short name with the release it stands
        for (``mpich (MPICH 4.0)``), any other as is."""
        return label(profile)

    @property
    def exit_code(self) -> int:
        """The CLI's status: the largest of the runs' codes (0 when every run completed)."""
        return max((r.exit_code for _, r in self.results), default=0)

    def to_dict(self) -> dict[str, Any]:
        out = {"scenario": self.scenario,
               "profiles": {name: r.to_dict() for name, r in self.results}}
        return out | ({"notes": dict(self.notes)} if self.notes else {})

    def __repr__(self) -> str:
        runs = ", ".join(f"{p} {r.outcome.value}" for p, r in self.results)
        return f"<ProfileComparison {self.scenario}: {runs}>"

    def _repr_html_(self) -> str:
        from ..report.display import profiles_html

        return profiles_html(self)

    def table(self) -> str:
        """One aligned row per profile. A sizing longer than a word (a measured profile's
        rule) is shown as a note mark, ``rule [1]``, with the rule itself below the table,
        so the columns stay readable whatever the profiles."""
        header = ["profile", "outcome", "sim time", "error", "allocator", "sizing",
                  "eager limit", "peak used"]
        rows: list[list[str]] = []
        notes: list[str] = []
        for profile, r in self.results:
            s = {k.split(".", 1)[1]: v["value"] for k, v in r.settings.items()}
            limit = s.get("eager_limit")
            rows.append([label(profile), r.outcome.value, format_time(r.sim_time),
                         r.error.error_class if r.error is not None else "-",
                         str(s.get("allocator", "?")), _sizing(str(s.get("sizing", "?")), notes),
                         format_size(limit).split(" (")[0] if isinstance(limit, int)
                         else str(limit),
                         str(max((x.buffer.peak_used for x in r.ranks), default=0))])
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        lines = [f"{self.scenario} under {len(self.results)} profiles:"]
        for row, named in zip([header, *rows], [None, *(p for p, _ in self.results)],
                              strict=True):
            lines.append("  " + "  ".join(cell.ljust(w) for cell, w in
                                          zip(row, widths, strict=True)).rstrip())
            if named in self.notes:  # beside its row: the release it models
                lines.append(f"    ({self.notes[named]})")
        lines += [f"  [{i}] {rule}" for i, rule in enumerate(notes, 1)]
        return "\n".join(lines)

    def report(self) -> str:
        """The table, then each run's report."""
        parts = [self.table()]
        for profile, r in self.results:
            parts += ["", f"-- {label(profile)} --", r.report()]
        return "\n".join(parts)


def _sizing(sizing: str, notes: list[str]) -> str:
    """The sizing column's cell: a one-word sizing as is, a rule as ``rule [n]`` (its note's
    number in ``notes``, shared by profiles with the same rule)."""
    if " " not in sizing:
        return sizing
    if sizing not in notes:
        notes.append(sizing)
    return f"rule [{notes.index(sizing) + 1}]"


def compare_profiles(scenario: Any, profiles: Sequence[str] = ("standard", "mpich", "openmpi"),
                     overrides: dict[str, Any] | None = None, *,
                     executor: Executor | None = None, jobs: int | None = None,
                     chosen_by: str = "compare_profiles", **run_kwargs: Any
                     ) -> ProfileComparison:
    """Run ``scenario`` under each profile: the same program on the MPI libraries modelled.

    Parameters
    ----------
    scenario
        What to run: a scenario file's path, a loaded ``mpisim.scenario.Scenario``, or a
        rank program function (then ``run_kwargs`` carry ``ranks=``).
    profiles
        The profiles' names (``mpisim profiles`` lists them: ``"standard"``,
        ``"mpich-4.0"``, ``"openmpi-4.1"``, ``"mpich-5.0"``, ``"openmpi-5.0"``, the aliases
        ``"mpich"`` and ``"openmpi"``) or profile files' paths, one run each, in this
        order. Default: standard, mpich and openmpi.
    overrides
        Further settings for a scenario, as ``--set`` takes them
        (``{"network.eager_limit": "4 KiB"}``), applied under every profile. Default: none.
    executor
        Where the runs go: any ``concurrent.futures.Executor``. Default: None, a local
        pool of ``jobs`` workers.
    jobs
        Workers of the local pool. Default: None, the machine's cores; ``1``: one run
        after the other in this process.
    chosen_by
        How each run's report says its profile was chosen (its ``settings["mpi.profile"]
        ["from"]``). Default: ``"compare_profiles"``; the command line's ``--profiles``
        passes ``"--profiles"``.
    **run_kwargs
        The arguments of each run, as :func:`mpisim.run` takes them (``ranks``,
        ``params``, ``network``...); with a scenario, they override its settings.

    Returns
    -------
    ProfileComparison
        ``results``: (profile, Result) pairs in the order given; ``table()`` one row per
        profile; ``report()``; ``exit_code`` the largest of the runs'.

    Raises
    ------
    ValueError
        ``profiles`` empty or holding something that is not a name.

    Examples
    --------
    Example 3.10's exchange of 20000-byte messages completes on the standard's model
    (eager limit 64 KiB) and deadlocks on MPICH 4.0's (eager up to 8255 bytes):

    >>> import mpisim as ms
    >>> def program(mpi, count=100):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.send(count=count, datatype=ms.INT, dest=peer, tag=0)
    ...     yield mpi.recv(count=count, datatype=ms.INT, source=peer, tag=0)
    >>> runs = ms.compare_profiles(program, ["standard", "mpich-4.0"], ranks=2,
    ...                            params={"count": 5000}, jobs=1)
    >>> [(profile, result.outcome.value) for profile, result in runs.results]
    [('standard', 'completed'), ('mpich-4.0', 'deadlock')]
    """
    profiles = list(profiles)
    if not profiles or not all(isinstance(p, str) and p for p in profiles):
        raise ValueError("profiles: expected names such as standard, mpich, openmpi")
    target = Target.of(scenario, run_kwargs)
    with Workers(executor, jobs) as workers:
        results = workers.map(_runs, (target, dict(overrides or {})), profiles, sample=False)
    for result in results:
        entry = result.settings.get("mpi.profile")
        if entry is not None:  # not "--set": the user chose it with this call
            entry["from"] = chosen_by
    return ProfileComparison(target.name, list(zip(profiles, results, strict=True)),
                             _release_notes(target.scenario, profiles))


def _release_notes(scenario: Any, profiles: list[str]) -> dict[str, str]:
    """For a replay (a scenario with the recording's ``library``), each profile of another
    release of the recorded library, and what it models instead."""
    library = getattr(scenario, "library", None)
    if library is None:
        return {}
    notes = {name: release_note(name, library.profile, library.library) for name in profiles}
    return {name: note for name, note in notes.items() if note}


def _runs(job: tuple[Target, dict[str, Any]], profiles: Sequence[str]) -> list[Any]:
    """Worker side: one run under each profile (a scenario rebuilt with it, so its own
    allocator gives way to the profile's)."""
    target, overrides = job
    out = []
    for name in profiles:
        if target.scenario is not None:
            under = target.scenario.with_overrides(overrides | {"mpi.profile": name})
            out.append(under.run(**target.extra))
        else:
            out.append(target.run({"mpi.profile": name}))
    return out
