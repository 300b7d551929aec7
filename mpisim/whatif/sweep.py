"""Sweeps: the cartesian product of varied params and settings, run in parallel.

``sweep(scenario, {"count": [1000, 4000], "network.eager_limit": "1KiB..64KiB:x2"})`` runs
every combination and returns a :class:`~mpisim.whatif.table.SweepTable`, one row per run in
the order of ``itertools.product`` over the keys as given.

Thousands of small runs are the common case, so the per-run cost is kept low: a scenario is
parsed once, in the calling process, and sent to each worker once per chunk of runs; runs do
not record a trace (``trace=False``); workers import the simulator, never matplotlib. Every
value of every key is tried once before the sweep starts, so a bad value is one clear error.
``sweep()`` writes no file: ``SweepTable.to_csv`` does, atomically. Interrupted (Ctrl-C), it
raises the KeyboardInterrupt again with ``.table``: a SweepTable of the runs that finished
(in product order), and ``.total``: how many runs the sweep had.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from .executors import map_chunks
from .table import OUTCOME_COLUMNS, SweepTable
from .target import Target
from .values import parse_values

__all__ = ["outcome_row", "sweep", "vary_values"]


def sweep(scenario: Any, vary: Mapping[str, Sequence[Any] | str],
          executor: Executor | None = None, *, jobs: int | None = None,
          progress: bool | None = None, buffer: str | None = None,
          **run_kwargs: Any) -> SweepTable:
    """Run ``scenario`` at every combination of the ``vary`` values.

    Each combination is one run (without a trace), in parallel; the table has one row per
    run: the values, then its outcome, simulated time, error class and buffer peaks.

    Parameters
    ----------
    scenario
        What to run: a scenario file's path (``"scenarios/ring-bsend.yaml"``), a loaded
        ``mpisim.scenario.Scenario``, or a rank program function (then ``run_kwargs``
        carry ``ranks=`` and may carry ``network=``, ``mpi=``, ``params=``, ``buffer=``,
        ``seed=``... as :func:`mpisim.run` takes them).
    vary
        The values to try, by key: a program parameter by its name (``"count"``),
        ``"network.<key>"``, ``"mpi.<key>"``, ``"buffer"``, ``"ranks"`` or ``"seed"``.
        Each value is a list (``[1024, "4 KiB"]``, units as in a scenario) or a text read
        by :func:`parse_values` (``"1KiB..64KiB:x2"``, ``"1,2,4"``).
    executor
        Where the runs go: any ``concurrent.futures.Executor`` (e.g. a Dask
        ``distributed.Client.get_executor()``). Default: None, a local process pool of
        ``jobs`` workers.
    jobs
        Workers of the local pool. Default: None, the machine's cores; ``1`` runs every
        point in this process, one after another.
    progress
        Whether to show a progress bar on stderr. Default: None, only when stderr is a
        terminal.
    buffer
        ``"comm:NAME"``: the varied ``buffer`` is the size of the buffer attached to the
        communicator the program names NAME (MPI 4.1) instead of the process buffer, and
        the peak columns add a rank's communicator buffers to its process buffer.
        Default: None (``"process"``), the process buffer.
    **run_kwargs
        The other arguments of each run, as :func:`mpisim.run` takes them (``ranks``,
        ``network``, ``mpi``, ``params``, ``buffer``, ``seed``, ``until``,
        ``max_events``); with a scenario, they override its settings. ``trace`` is
        ignored (sweeps never record one).

    Returns
    -------
    SweepTable
        One row per combination, in the order of ``vary``'s product: ``rows()``,
        ``text()``, ``to_csv(path)``, ``to_pandas()``, ``count("deadlock")``.

    Raises
    ------
    ValueError
        A key or value that is not valid (the message names it), before anything runs.
    KeyboardInterrupt
        On Ctrl-C, with the rows that finished as its ``table`` attribute.

    Examples
    --------
    Example 3.10's exchange with standard sends deadlocks once a message is larger than the
    eager limit:

    >>> import mpisim as ms
    >>> def program(mpi, count=100):
    ...     peer = 1 - mpi.rank
    ...     yield mpi.send(count=count, datatype=ms.INT, dest=peer, tag=0)
    ...     yield mpi.recv(count=count, datatype=ms.INT, source=peer, tag=0)
    >>> table = ms.sweep(program, {"count": [100, 5000],
    ...                            "network.eager_limit": ["4 KiB", "64 KiB"]},
    ...                  ranks=2, jobs=1)
    >>> for row in table.rows():
    ...     print(row["count"], row["network.eager_limit"], row["outcome"])
    100 4 KiB completed
    100 64 KiB completed
    5000 4 KiB deadlock
    5000 64 KiB completed
    >>> table.count("deadlock")
    1
    """
    start = time.perf_counter()
    values = vary_values(vary)
    run_kwargs.pop("trace", None)  # sweeps never record traces
    target = Target.of(scenario, run_kwargs)
    if buffer is not None and buffer != "process":
        kind, _, name = str(buffer).partition(":")
        if kind != "comm" or not name:
            raise ValueError(f"buffer: expected process or comm:NAME, got {buffer!r}")
        target.comm_buffer = name
    target.validate(values)
    keys = list(values)
    points = list(itertools.product(*values.values()))
    try:
        rows = map_chunks(_run_chunk, (target, keys), points, executor=executor, jobs=jobs,
                          progress=progress, desc=f"sweep {target.name}")
    except KeyboardInterrupt as e:  # keep what finished: the caller may save it
        done = getattr(e, "partial", {})
        finished = sorted(done)
        e.table = SweepTable.build(values, [points[i] for i in finished],  # type: ignore
                                   [done[i] for i in finished], scenario=target.name)
        e.total = len(points)  # type: ignore[attr-defined]
        raise
    table = SweepTable.build(values, points, rows, scenario=target.name)
    table.wall_time = time.perf_counter() - start
    return table


def vary_values(vary: Mapping[str, Sequence[Any] | str]) -> dict[str, list[Any]]:
    """The values of each key as a list (text parsed by parse_values), checked."""
    if not isinstance(vary, Mapping):
        raise ValueError(f"vary: expected a mapping of key to values, got {type(vary).__name__}")
    reserved = {name for name, _ in OUTCOME_COLUMNS}
    values: dict[str, list[Any]] = {}
    for key, given in vary.items():
        if key in reserved:
            raise ValueError(f"vary {key}: the name of an outcome column; rename the param")
        if isinstance(given, str):
            try:
                items = parse_values(given)
            except ValueError as e:
                raise ValueError(f"vary {key}: {e}") from None
        elif isinstance(given, Sequence | range) or hasattr(given, "tolist"):
            items = given.tolist() if hasattr(given, "tolist") else list(given)
        else:
            raise ValueError(f"vary {key}: expected a list of values or a text such as "
                             f"'1,2,4', got {type(given).__name__}")
        if not items:
            raise ValueError(f"vary {key}: no values")
        values[key] = items
    return values


def outcome_row(result: Any) -> tuple[str, float, str, int, int]:
    """The outcome columns of one run: outcome, sim_time, error_class, peak_used, peak_live
    (a rank's peaks add its communicator and session buffers' to its process buffer's)."""
    ranks = result.ranks
    error_class = result.error.error_class if result.error is not None else ""
    return (result.outcome.value, float(result.sim_time), error_class[:32],
            max((_total(r, "peak_used") for r in ranks), default=0),
            max((_total(r, "peak_live") for r in ranks), default=0))


def _total(rank: Any, peak: str) -> int:
    return getattr(rank.buffer, peak) + sum(getattr(b, peak) for b in rank.buffers.values())


def _run_chunk(job: tuple[Target, list[str]], points: Sequence[tuple[Any, ...]]
               ) -> list[tuple[str, float, str, int, int]]:
    """Worker side: run each point of a chunk, without a trace."""
    target, keys = job
    return [outcome_row(target.run(dict(zip(keys, p, strict=True)), trace=False))
            for p in points]
