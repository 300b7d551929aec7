"""Files from a run: result.json, messages.csv, buffer.csv, trace.npz, plots, a Chrome trace.

Every file is written whole or not at all: it is written to a temporary file in the same
directory, then renamed over the target (``os.replace`` is atomic on one file system), so
a reader never sees half a file and a failed write leaves no partial file behind.

An output directory (:func:`output_dir`, used by :func:`write_run` and the sweep) is written
whole: every file goes into a temporary directory beside it first; only when all were
written are they renamed into the target, and the files mpisim writes (``OWNED``) that this
output does not include are removed, so the directory never mixes two runs' files (files of
other names are left alone: ``--out .`` is safe). SIGINT and SIGTERM are held back while the
temporary directory is created, while it is renamed into place and while it is removed, so
an interrupt at any moment leaves either the old output or the new one, and no temporary.

The Chrome trace (the Trace Event Format read by Perfetto and chrome://tracing) has one
process per rank (``pid`` = rank): its calls as complete slices (``ph "X"``), counter
tracks of its attached buffer (``ph "C"``: used, live and capacity bytes), and instant
events for overflows. Each delivered message is a flow arrow (``ph "s"`` on the sender at
its post time, ``ph "f"`` with ``bp "e"`` on the receiver at its delivery, sharing the
message id). A message never delivered has no end to point at, so it is an instant event
(``ph "i"``) on its sender, not half an arrow. One-sided communication (MPI 4.1 §12) adds a
thread per rank (``tid`` = ``EPOCH_TID`` + rank, named "RMA epochs") holding its epochs as
slices, and each operation applied at its target as a flow arrow (``cat "rma"``, ids
``rma<i>``) from its origin when it was made to its target when it was applied. Times are
microseconds, as the format says.

Nothing in the engine imports this module; matplotlib is imported only when plots are asked for.
"""

from __future__ import annotations

import csv
import errno
import json
import math
import os
import secrets
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = ["OWNED", "atomic_write", "chrome_trace", "first_overflow", "output_dir",
           "write_buffer_csv",
           "write_chrome_trace", "write_files", "write_json", "write_messages_csv", "write_npz",
           "write_run"]

OWNED = ("result.json", "messages.csv", "buffer.csv", "occupancy.png", "timeline.png",
         "layout.png", "trace.json", "sweep.csv", "sweep.png", "sweep.partial.csv")
"""The files mpisim writes into an output directory (stale ones are removed on rewrite)."""

TRACE_KINDS = ("chrome",)
_US = 1e6  # trace seconds -> Trace Event Format microseconds


# -- atomic writes -------------------------------------------------------------------------
Writer = Callable[[IO[Any]], object]  # (what it returns is not used: f.write's count)


def _write_temp(path: Path, writer: Writer, binary: bool) -> Path:
    """Run ``writer(f)`` on a new temporary file beside ``path``; remove it on failure."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        # the usual permissions (0o666 less the umask), unlike mkstemp's 0o600
        fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        with (os.fdopen(fd, "wb") if binary
              else os.fdopen(fd, "w", encoding="utf-8", newline="")) as f:
            writer(f)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise _write_error(path, e) from e
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _write_error(path: Path, e: OSError) -> OSError:
    """The same error, naming the file asked for instead of the temporary one."""
    if e.errno is None:
        return OSError(f"cannot write {path}: {e}")
    return type(e)(e.errno, e.strerror, str(path))


def atomic_write(path: str | os.PathLike[str], writer: Writer, *, binary: bool = False) -> Path:
    """Write ``path`` whole or not at all: ``writer(f)`` fills a temporary file (text,
    UTF-8, or ``binary``) that then replaces ``path``. Raises OSError naming ``path``."""
    path = Path(path)
    tmp = _write_temp(path, writer, binary)
    try:
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise _write_error(path, e) from e
    return path


def _text(content: str) -> Writer:
    def write(f: IO[Any]) -> None:
        f.write(content)

    return write


# -- JSON and CSV --------------------------------------------------------------------------
def write_json(result: Any, path: str | os.PathLike[str]) -> Path:
    """``result.to_json()`` and a newline (the CLI's ``--json`` output, as a file)."""
    return atomic_write(path, _text(result.to_json() + "\n"))


def _csv_text(rows: np.ndarray) -> str:
    """A header of the field names, then one line per row; NaN (never happened) is empty."""
    import io
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    names = rows.dtype.names or ()  # (a trace table: a structured array)
    w.writerow(names)
    columns = [_csv_column(rows[n]) for n in names]
    w.writerows(zip(*columns, strict=True))
    return out.getvalue()


def _csv_column(col: np.ndarray) -> list[str]:
    if col.dtype.kind == "f":
        # repr keeps every bit of a double, so the CSV reads back to the same numbers
        return ["" if math.isnan(x) else repr(x) for x in col.tolist()]
    return [str(x) for x in col.tolist()]


def write_messages_csv(result: Any, path: str | os.PathLike[str]) -> Path:
    """One row per ``trace.messages`` row, header = the field names."""
    return atomic_write(path, _text(_csv_text(result.trace.messages)))


def write_buffer_csv(result: Any, path: str | os.PathLike[str]) -> Path:
    """One row per ``trace.buffer`` row, header = the field names."""
    return atomic_write(path, _text(_csv_text(result.trace.buffer)))


def write_npz(result: Any, path: str | os.PathLike[str]) -> Path:
    """The four trace arrays (buffer, entries, messages, calls) as one compressed ``.npz``,
    exact and typed: ``numpy.load(path)["buffer"]`` is ``result.trace.buffer``."""
    trace = result.trace
    arrays = {name: getattr(trace, name) for name in ("buffer", "entries", "messages", "calls")}
    return atomic_write(path, lambda f: np.savez_compressed(f, **arrays), binary=True)


# -- Chrome trace --------------------------------------------------------------------------
def chrome_trace(result: Any) -> dict[str, Any]:
    """The run in the Trace Event Format: ``{"traceEvents": [...], "displayTimeUnit": "ns"}``."""
    trace = result.trace
    end = _finite(result.sim_time)
    events: list[dict[str, Any]] = []
    for r in range(len(result.ranks)):
        meta = {"ph": "M", "ts": 0, "pid": r, "tid": r}
        events += [{"name": "process_name", **meta, "args": {"name": f"rank {r}"}},
                   {"name": "process_sort_index", **meta, "args": {"sort_index": r}},
                   {"name": "thread_name", **meta, "args": {"name": "MPI calls"}}]
    events += _call_events(trace.calls, end)
    events += _message_events(trace.messages)
    events += _buffer_events(trace.buffer)
    events += _named_buffer_events(trace.named_buffers)
    events += _epoch_events(trace.epochs, end)
    events += _rma_events(trace.rma)
    outcome = getattr(result.outcome, "value", str(result.outcome))
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"scenario": str(result.scenario), "outcome": outcome,
                          "sim_time_s": end}}


def _finite(x: Any) -> float:
    return float(x) if x is not None and math.isfinite(float(x)) else 0.0


def _call_events(calls: np.ndarray, end: float) -> list[dict[str, Any]]:
    out = []
    for rank, call, start, stop in calls.tolist():
        blocked = math.isnan(stop)
        stop = max(end, start) if blocked else stop
        ev = {"name": call, "cat": "call", "ph": "X", "ts": start * _US,
              "dur": (stop - start) * _US, "pid": rank, "tid": rank}
        if blocked:
            ev["cat"] = "call,blocked"
            ev["args"] = {"blocked": "never returned: still waiting when the run ended"}
        out.append(ev)
    return out


def _message_events(messages: np.ndarray) -> list[dict[str, Any]]:
    out = []
    for m in messages.tolist():
        mid, src, dst, tag, nbytes, mode, protocol, post, match, send_done, recv_done = m
        args = {"id": mid, "src": src, "dst": dst, "tag": tag, "bytes": nbytes, "mode": mode,
                "protocol": protocol, "match_us": _us_or_none(match),
                "send_done_us": _us_or_none(send_done)}
        name = f"{mode} message {src}->{dst}"
        if math.isnan(recv_done):
            out.append({"name": f"undelivered {name}", "cat": "message,undelivered",
                        "ph": "i", "s": "t", "ts": post * _US, "pid": src, "tid": src,
                        "args": args})
            continue
        flow = {"name": name, "cat": "message", "id": mid, "bp": "e"}
        out.append({**flow, "ph": "s", "ts": post * _US, "pid": src, "tid": src,
                    "args": args})
        out.append({**flow, "ph": "f", "ts": recv_done * _US, "pid": dst, "tid": dst})
    return out


EPOCH_TID = 1_000_000
"""The thread ids of the ranks' one-sided epochs: this plus the rank."""


def _epoch_events(epochs: np.ndarray, end: float) -> list[dict[str, Any]]:
    """Each rank's one-sided epochs as slices of a thread of their own."""
    out: list[dict[str, Any]] = []
    for rank in sorted(set(epochs["rank"].tolist())):
        out.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": rank,
                    "tid": EPOCH_TID + rank, "args": {"name": "RMA epochs"}})
    for win, rank, kind, peer, start, stop in epochs.tolist():
        opened = math.isnan(stop)
        stop = max(end, start) if opened else stop
        args = {"window": win} | ({} if peer < 0 else {"peer": peer})
        if opened:
            args["open"] = "still open when the run ended"
        out.append({"name": f"{kind} epoch", "cat": "rma,epoch", "ph": "X",
                    "ts": start * _US, "dur": (stop - start) * _US, "pid": rank,
                    "tid": EPOCH_TID + rank, "args": args})
    return out


def _rma_events(ops: np.ndarray) -> list[dict[str, Any]]:
    """Each one-sided operation applied at its target, as a flow arrow."""
    out = []
    for i, (win, origin, target, call, nbytes, start, arrive, applied) in \
            enumerate(ops.tolist()):
        if math.isnan(applied):
            continue
        flow = {"name": f"{call} {origin}->{target}", "cat": "rma", "id": f"rma{i}",
                "bp": "e"}
        out.append({**flow, "ph": "s", "ts": start * _US, "pid": origin, "tid": origin,
                    "args": {"window": win, "bytes": nbytes, "arrive_us": arrive * _US}})
        out.append({**flow, "ph": "f", "ts": applied * _US, "pid": target, "tid": target})
    return out


def _us_or_none(t: float) -> float | None:
    return None if math.isnan(t) else t * _US


def _buffer_events(buffer: np.ndarray) -> list[dict[str, Any]]:
    out = []
    for rank, time, event, capacity, used, live, _entries, largest_free, requested \
            in buffer.tolist():
        ts = time * _US
        for name, value in (("buffer used", used), ("buffer live", live),
                            ("buffer capacity", capacity)):
            out.append({"name": name, "cat": "buffer", "ph": "C", "ts": ts, "pid": rank,
                        "tid": rank, "args": {"bytes": value}})
        if event == "overflow":
            out.append({"name": "buffer overflow", "cat": "buffer", "ph": "i", "s": "p",
                        "ts": ts, "pid": rank, "tid": rank,
                        "args": {"requested": requested, "used": used, "capacity": capacity,
                                 "largest_free": largest_free}})
    return out


def _named_buffer_events(rows: np.ndarray) -> list[dict[str, Any]]:
    """Counters of the communicator and session buffers (MPI 4.1), named after them."""
    out = []
    for row in rows.tolist():
        rank, time, event, capacity, used, live = row[:6]
        name = row[-1]
        for what, value in (("used", used), ("live", live), ("capacity", capacity)):
            out.append({"name": f"{name} {what}", "cat": "buffer", "ph": "C",
                        "ts": time * _US, "pid": rank, "tid": rank, "args": {"bytes": value}})
        if event == "overflow":
            out.append({"name": f"{name} overflow", "cat": "buffer", "ph": "i", "s": "p",
                        "ts": time * _US, "pid": rank, "tid": rank,
                        "args": {"used": used, "capacity": capacity}})
    return out


def write_chrome_trace(result: Any, path: str | os.PathLike[str]) -> Path:
    """The Chrome trace as a JSON file (open it in https://ui.perfetto.dev)."""
    return atomic_write(path, _text(_chrome_text(result)))


def _chrome_text(result: Any) -> str:
    return json.dumps(chrome_trace(result), allow_nan=False, separators=(",", ":")) + "\n"


# -- output directories --------------------------------------------------------------------
_HELD = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def held_signals() -> Iterator[Any]:
    """SIGINT and SIGTERM wait until the block ends (where the platform allows it); yields
    the mask in force before, which :func:`_released` puts back for a while."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield None
        return
    old = mask(signal.SIG_BLOCK, _HELD)
    try:
        yield old
    finally:
        mask(signal.SIG_SETMASK, old)


@contextmanager
def output_dir(out: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary directory to fill; when the block ends without an exception its files
    become ``out``'s (see the module docstring); otherwise it is removed and ``out`` is as
    it was."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    with held_signals() as before:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
        try:
            with _released(before):
                yield staging
            _commit(staging, out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


@contextmanager
def _released(before: Any) -> Iterator[None]:
    """The mask in force before held_signals, for a while (files are written meanwhile: an
    interrupt then abandons them)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or before is None:
        yield
        return
    old = mask(signal.SIG_SETMASK, before)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


def _commit(staging: Path, out: Path) -> None:
    """Move the staged files into ``out`` (signals held by the caller)."""
    written = {p.name for p in staging.iterdir()}
    if not out.exists():
        os.chmod(staging, 0o777 & ~_umask())
        os.rename(staging, out)
        return
    for name in written:
        os.replace(staging / name, out / name)
    for name in set(OWNED) - written:
        (out / name).unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- a run's output directory --------------------------------------------------------------
def _figure_writer(kind: str, result: Any, **options: Any) -> Writer:
    def writer(f: IO[bytes]) -> None:
        from .. import plot  # matplotlib only when plots are asked for
        fig = getattr(plot, f"plot_{kind}")(result, **options)
        fig.savefig(f, format="png", dpi=120)
    return writer


def write_run(result: Any, out_dir: str | os.PathLike[str], *, plot: bool = False,
              trace: str | None = None, ranks: list[int] | None = None,
              window: tuple[float, float] | None = None) -> list[Path]:
    """The CLI's ``--out DIR``: result.json, messages.csv, buffer.csv, and optionally
    occupancy.png, timeline.png and (for a run that overflowed) layout.png (``plot=True``)
    and trace.json (``trace="chrome"``).

    The directory is written whole (:func:`output_dir`): on failure nothing changes and the
    error is raised (``ValueError`` for a bad ``trace``, ``OSError`` naming the file that
    could not be written). Returns the paths written, in that order. ``ranks``: the ranks
    the occupancy and timeline plots show; ``window``: the timeline's time span (seconds).
    """
    plot_options: dict[str, Any] = {} if ranks is None else {"ranks": ranks}
    timeline_options = plot_options | ({} if window is None else {"window": window})
    if trace is not None and trace not in TRACE_KINDS:
        raise ValueError(f"trace: unknown trace format {trace!r} (expected one of "
                         f"{', '.join(TRACE_KINDS)})")
    plan: list[tuple[str, Writer, bool]] = [
        ("result.json", _text(result.to_json() + "\n"), False),
        ("messages.csv", _text(_csv_text(result.trace.messages)), False),
        ("buffer.csv", _text(_csv_text(result.trace.buffer)), False),
    ]
    if plot:
        plan += [("occupancy.png", _figure_writer("occupancy", result, **plot_options), True),
                 ("timeline.png", _figure_writer("timeline", result, **timeline_options),
                  True)]
        first = first_overflow(result)
        if first is not None:
            plan.append(("layout.png", _figure_writer("layout", result, rank=first[0],
                                                      time=first[1]), True))
    if trace == "chrome":
        plan.append(("trace.json", _text(_chrome_text(result)), False))
    return write_files(out_dir, plan)


def first_overflow(result: Any) -> tuple[int, float] | None:
    """(rank, time) of the run's first overflow, if any (the layout plot explains it)."""
    rows = result.trace.buffer
    rows = rows[rows["event"] == "overflow"]
    if not len(rows):
        return None
    first = rows[int(np.argmin(rows["time"]))]
    return int(first["rank"]), float(first["time"])


def write_files(out_dir: str | os.PathLike[str], plan: Iterable[tuple[str, Writer, bool]]
                ) -> list[Path]:
    """Write (name, writer, binary) files as one output directory; their final paths."""
    out = Path(out_dir)
    names: list[str] = []
    with output_dir(out) as staging:
        for name, writer, binary in plan:
            _write_file(staging / name, writer, binary, out / name)
            names.append(name)
    return [out / name for name in names]


def _write_file(path: Path, writer: Writer, binary: bool, shown: Path) -> None:
    try:
        with (open(path, "wb") if binary
              else open(path, "w", encoding="utf-8", newline="")) as f:
            writer(f)
    except OSError as e:
        raise _write_error(shown, e) from e
