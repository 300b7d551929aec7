"""``mpisim record -- mpiexec -n 4 ./app``: run a real MPI job with the recorder preloaded.

The recorder is the C source ``shim/mpisim_record.c`` shipped in the package. It is built
once per MPI library with that library's own ``mpicc`` into ``$XDG_CACHE_HOME/mpisim/recorder/``
(default ``~/.cache``; private to the user, 0700, and refused otherwise: see :func:`cache_dir`),
named by a hash of the source, the wrapper, what ``mpicc -show`` (MPICH) or ``--showme`` (Open
MPI) says, the compiler and the MPI library it names, so another library or a new mpisim
builds anew; the build is atomic and the library is verified by its digest before it is
preloaded (:func:`build_shim`). The recorder must link the program's own ``libmpi``
(:func:`recorder_for`): ``--mpicc`` or ``$MPICC`` is used or refused; otherwise the mpicc
beside the launcher (found inside wrappers: ``timeout 30 mpiexec ...``), the one of the
program's library, then ``mpicc`` on PATH are tried in turn, and a recorder of another library
is refused with both named (see :mod:`.mpilib`).

The command runs with ``LD_PRELOAD`` set to the recorder, ``MPISIM_TRACE_DIR`` to a
temporary directory and ``MPISIM_TRACE_FORMAT`` to ``--format`` (``compact`` or ``text``;
Open MPI's ``mpiexec`` passes the environment to local processes; for remote hosts add ``-x
LD_PRELOAD -x MPISIM_TRACE_DIR -x MPISIM_TRACE_FORMAT``); each process writes ``rank.N.log``
there, and the logs are joined, in rank order, into the ``--out`` file once the command has
ended (through a temporary file and a rename). A run that leaves no log is explained from
the command's exit status and the ``loaded.PID`` files the recorder leaves in each process it
reaches (:func:`_no_log`).

``--timeout``, the stall watch (``--stall``: every process waiting inside one MPI call that
long, a likely deadlock; see :mod:`.stall`) and SIGINT/SIGTERM sent to ``mpisim record`` stop
the run (an interrupted recording keeps what the processes wrote): the launcher and
its helpers are paused while each MPI process (found by the ``#pid`` of its log, flushed at
MPI_Init) gets SIGTERM, on which the recorder flushes its log, so a deadlocking run keeps
every call up to the blocked ones; then the launcher's process group gets SIGTERM (SIGKILL
5 s later if it is still there). See :func:`_stop`.

A statically linked application cannot be preloaded: link the recorder into it before the
MPI library (``mpisim record --shim`` prints the source's path: ``mpicc -c $(mpisim record
--shim) -o rec.o && mpicc app.o rec.o -o app -lz``), then run it with ``MPISIM_TRACE_DIR``
set (and ``MPISIM_TRACE_FORMAT=compact`` for the compact format; the recorder writes text
without it; ``-DMPISIM_NO_ZLIB`` and no ``-lz`` where zlib is missing: blocks are then
stored).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from stat import S_IMODE, S_ISDIR

from ...report.export import held_signals
from ..read.compact import MAGIC as COMPACT_MAGIC
from ..read.records import MAX_DATA, TraceError
from ..read.trace import log_files, read_trace
from . import compact
from .compact import text_as_compact, whole
from .mpilib import Launch, linked_libmpi, mismatch, mpicc_candidates, own_mpicc, parse_command
from .stall import StallWatch
from .unlogged import note as unlogged_note

__all__ = ["RecordError", "build_flags", "build_key", "build_shim", "cache_dir", "find_mpicc",
           "merge_logs", "record", "recorder_for"]

EXIT_DEADLOCK = 3
EXIT_TIMEOUT = 5
STALL = 30.0
"""Seconds every process must wait inside MPI before a run is stopped as a likely deadlock
(``--stall``; 0 never)."""
POLL = 0.25
"""Seconds between two looks at a running recording (its timeout, its stall watch)."""
GRACE = 5.0
"""Seconds between the SIGTERM that stops a run and the SIGKILL if it is still there."""


class RecordError(RuntimeError):
    """The recorder could not be built or the command not run: one line."""


def shim_source() -> Path:
    """The recorder's C source, shipped in the package (``mpisim record --shim``)."""
    return Path(str(resources.files("mpisim.recorded").joinpath("shim/mpisim_record.c")))


def find_mpicc(command: list[str], mpicc: str | None = None) -> str:
    """The MPI C compiler to try first for the command's MPI (see :func:`recorder_for`)."""
    from_env = os.environ.get("MPICC")
    if mpicc or (from_env and shutil.which(from_env)):
        return _explicit_mpicc(mpicc)[0]
    candidates = mpicc_candidates(parse_command(command))
    if not candidates:
        raise RecordError(NO_MPICC)
    return candidates[0]


NO_MPICC = ("no mpicc found: the recorder is built with the MPI library's own compiler "
            "wrapper (give --mpicc PATH or set MPICC)")


def _explicit_mpicc(mpicc: str | None) -> tuple[str, str]:
    """The wrapper --mpicc or $MPICC names, and how the user named it."""
    name = mpicc or os.environ["MPICC"]
    how = f"--mpicc {mpicc}" if mpicc else f"$MPICC ({name})"
    found = shutil.which(name)
    if not found:
        raise RecordError(f"{how}: not found")
    return found, how


def recorder_for(command: list[str], mpicc: str | None = None) -> tuple[str, Path, Launch]:
    """The compiler wrapper, the recorder built with it, and what the command runs.

    The recorder must link the program's own MPI library (see :mod:`.mpilib`). With
    ``--mpicc`` or ``$MPICC`` that wrapper is used or refused; otherwise the candidates of
    :func:`~.mpilib.mpicc_candidates` are tried in turn (the mpicc beside the launcher found
    inside wrappers such as ``timeout``, the one of the program's library, ``mpicc`` on PATH)
    and the first whose recorder fits is used. A misfit is refused (RecordError) naming both
    libraries and the ``--mpicc`` to pass."""
    launch = parse_command(command)
    from_env = os.environ.get("MPICC")
    explicit = bool(mpicc or (from_env and shutil.which(from_env)))  # a stale $MPICC: ignored
    if explicit:
        candidates = [_explicit_mpicc(mpicc)]
    else:
        candidates = [(c, c) for c in mpicc_candidates(launch)]
        if not candidates:
            raise RecordError(NO_MPICC)
    refusal: str | None = None
    passed_over = ""
    failed: RecordError | None = None
    for cc, how in candidates:
        try:
            shim = build_shim(cc)
        except RecordError as e:
            if explicit:
                raise
            failed = failed or e
            continue
        lib = linked_libmpi(shim)
        why = mismatch(lib, launch)
        if why is None:
            if refusal is not None:
                print(f"mpisim record: passed over {passed_over}, which builds for "
                      f"another MPI library; the recorder is built with {cc} ({lib})",
                      file=sys.stderr)
            return cc, shim, launch
        if refusal is None:
            refusal, passed_over = _refusal(how, lib, why, launch), cc
    if refusal is None and failed is not None:
        raise failed
    raise RecordError(refusal or NO_MPICC)


def _refusal(how: str, lib: str | None, why: str, launch: Launch) -> str:
    own = own_mpicc(launch)
    fix = (f"pass the program's own, --mpicc {own}" if own else
           "pass the mpicc of the program's MPI library with --mpicc PATH")
    return (f"record: the recorder built with {how} links {lib}, but {why}: preloaded into "
            f"another MPI library's processes, it would make every process fail inside MPI; "
            f"{fix}")


def _wrapper_flags(mpicc: str) -> str:
    for flag in ("-show", "--showme"):
        try:
            out = subprocess.run([mpicc, flag], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return ""


def cache_dir() -> Path:
    """The recorder's cache, ``$XDG_CACHE_HOME/mpisim/recorder`` (default ``~/.cache``),
    created private to the user (0700). A library preloaded from it runs inside the user's MPI
    processes, so a cache that someone else could write is refused (RecordError): it must be
    a directory, not a symbolic link, owned by the user, with no permission for group or
    others."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "mpisim" / "recorder"
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError as e:
        raise RecordError(f"the recorder's cache {path}: {e.strerror or e}") from None
    if not S_ISDIR(info.st_mode):
        raise RecordError(f"the recorder's cache {path} is not a directory (a symbolic link?); "
                          "remove it")
    if info.st_uid != os.getuid():
        raise RecordError(f"the recorder's cache {path} is owned by user {info.st_uid}, not "
                          "you: refused (another user could replace the recorder)")
    if info.st_mode & 0o077:
        raise RecordError(f"the recorder's cache {path} has mode "
                          f"{S_IMODE(info.st_mode):o}: refused (others may write or read "
                          f"it); chmod 700 {path}")
    return path


def _file_digest(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _tool_identity(flags: str) -> list[str]:
    """What names the compiler and the MPI library a wrapper's flags point to: the
    compiler's path and version, each MPI library's path and content digest."""
    words = flags.split()
    found: list[str] = []
    compiler = shutil.which(words[0]) if words else None
    if compiler:
        found.append(os.path.realpath(compiler))
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            found.append(subprocess.run([compiler, "--version"], capture_output=True,
                                        text=True, timeout=30).stdout)
    dirs = [w[2:] for w in words if w.startswith("-L") and len(w) > 2]
    for name in (w[2:] for w in words if w.startswith("-l") and "mpi" in w):
        for d in dirs:
            lib = Path(d) / f"lib{name}.so"
            if lib.exists():
                found += [os.path.realpath(lib), _file_digest(lib)]
                break
    return found


def build_flags(max_data: int = MAX_DATA, block_budget: int | None = None) -> list[str]:
    """What the recorder is compiled with besides its source: ``-DMPISIM_MAX_DATA``, the data
    lines (``H``, the buffers' hashes) a process writes at most, after which it hashes no
    more: the reader's :data:`~mpisim.recorded.read.records.MAX_DATA` (default), lowered
    only by tests and benchmarks (e.g. 100) to reach past it in a few calls; and
    ``-DMPISIM_BLOCK_BUDGET``/``-DMPISIM_BLOCK_FLOOR``, the rule of a compact block's calls
    (:func:`.compact.block_calls`): ``block_budget`` calls shared among the processes
    (default :data:`.compact.BLOCK_BUDGET`; tests lower it to see blocks scaled in a
    small run)."""
    if max_data < 0:
        raise ValueError(f"max_data: {max_data} is negative")
    budget = compact.BLOCK_BUDGET if block_budget is None else int(block_budget)
    if budget < 1:
        raise ValueError(f"block_budget: {budget} is not a positive number of calls")
    return [f"-DMPISIM_MAX_DATA={int(max_data)}", f"-DMPISIM_BLOCK_BUDGET={budget}",
            f"-DMPISIM_BLOCK_FLOOR={compact.BLOCK_FLOOR}"]


def build_key(source: bytes, mpicc: str, defines: Iterable[str] = ()) -> str:
    """The recorder's name: a hash of the shim's source, the compiler wrapper (its path and
    content), the flags it adds, the compiler and the MPI library they name, and the
    ``defines`` it is built with (:func:`build_flags`)."""
    flags = _wrapper_flags(mpicc)
    parts = [source, os.path.realpath(mpicc).encode(), flags.encode(),
             *(p.encode() for p in _tool_identity(flags)), *(d.encode() for d in defines)]
    with contextlib.suppress(OSError):
        parts.append(_file_digest(mpicc).encode())
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:32]


def _verified(target: Path) -> bool:
    """Whether the built library is whole: its content has the digest written beside it when
    it was built (a truncated, altered or half-written file is never preloaded)."""
    seal = target.with_suffix(".sha256")
    try:
        return target.is_file() and seal.read_text().strip() == _file_digest(target)
    except OSError:
        return False


def build_shim(mpicc: str, max_data: int = MAX_DATA, block_budget: int | None = None
               ) -> Path:
    """The recorder built with ``mpicc``: from the cache when a verified copy is there, else
    built now. The library is named by :func:`build_key`; it is compiled in a temporary
    directory of the cache, its digest written to ``<name>.sha256``, and both renamed into
    place (atomic), so a failed or interrupted build leaves nothing a later run would load;
    a file whose digest does not match is rebuilt, never preloaded. ``max_data``: the data
    lines a process hashes and writes at most (:func:`build_flags`; default the reader's
    :data:`~mpisim.recorded.read.records.MAX_DATA`); ``block_budget``: the calls all
    processes' compact blocks hold together (:func:`build_flags`; default
    :data:`.compact.BLOCK_BUDGET`)."""
    source = shim_source().read_bytes()
    cache = cache_dir()
    defines = build_flags(max_data, block_budget)
    target = cache / f"libmpisim_record-{build_key(source, mpicc, defines)}.so"
    if _verified(target):
        return target
    tmp = tempfile.mkdtemp(prefix=".build-", dir=cache)
    try:
        src = Path(tmp) / "mpisim_record.c"
        src.write_bytes(source)
        out = Path(tmp) / "libmpisim_record.so"
        _compile(mpicc, src, out, defines)
        seal = Path(tmp) / "seal"
        seal.write_text(_file_digest(out) + "\n")
        os.replace(out, target)
        os.replace(seal, target.with_suffix(".sha256"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not _verified(target):
        raise RecordError(f"the recorder built into {target} does not verify (was the cache "
                          "changed meanwhile?)")
    return target


def _compile(mpicc: str, src: Path, out: Path, defines: Iterable[str] | None = None) -> None:
    """Build the recorder (with ``defines``, default :func:`build_flags`'); with zlib (the
    compact format's codec) when it links, else without it (its blocks are then stored,
    not compressed)."""
    flags = build_flags() if defines is None else list(defines)
    base = [mpicc, "-shared", "-fPIC", "-O2", *flags, "-o", str(out), str(src), "-ldl"]
    try:
        built = subprocess.run([*base, "-lz"], capture_output=True, text=True, timeout=300)
        if built.returncode != 0:
            built = subprocess.run([*base, "-DMPISIM_NO_ZLIB"], capture_output=True,
                                   text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RecordError(f"cannot build the recorder with {mpicc}: {e}") from None
    if built.returncode != 0 or not out.is_file():
        lines = built.stderr.strip().splitlines() or ["(no message)"]
        first = next((x for x in lines if "error" in x), lines[0])
        raise RecordError(f"building the recorder with {mpicc} failed: {first}")


def merge_logs(directory: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Join the ``rank.N.log`` files of ``directory`` into ``out`` (whole or not at all),
    then the spawned processes' ``spawn.ID.rank.N.log`` (MPI 4.1 §11.8.2); the number of
    logs. When some are compact, the text ones are made compact too (a process on a host
    the launcher did not give ``MPISIM_TRACE_FORMAT``)."""
    files = list(enumerate(log_files(directory)))
    if not files:
        return 0
    out = Path(out)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            compact = any(_head(path).startswith(COMPACT_MAGIC) for _, path in files)
            for _, path in files:
                data = path.read_bytes()
                if compact and data and not data.startswith(COMPACT_MAGIC):
                    data = text_as_compact(data)  # a process that wrote text (remote, no -x)
                if data.startswith(COMPACT_MAGIC):
                    data = data[:whole(data)]  # a block cut by a kill: dropped
                elif data and not data.endswith(b"\n"):
                    data = data[:data.rfind(b"\n") + 1]  # a line cut by a kill: dropped
                f.write(data)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    return len(files)


def _head(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(len(COMPACT_MAGIC))


def _stop(proc: subprocess.Popen, logs: str) -> None:
    """Stop a run so that every MPI process flushes its log: the launcher and its helpers
    (MPICH's proxies, Open MPI's daemons) are paused (SIGSTOP) while each MPI process gets
    SIGTERM and writes its last lines, because a launcher answers the first process's death
    by killing the others at once (MPICH's with SIGKILL); then they get SIGCONT, and the
    launcher's group SIGTERM, SIGKILL GRACE seconds later."""
    tree = _descendants(proc.pid)
    ranks = {log: pid for log in log_files(logs)
             if (pid := _header_pid(log)) is not None and pid in tree}
    helpers = [proc.pid, *(tree - set(ranks.values()))]
    if ranks:
        _signal_each(helpers, signal.SIGSTOP)
        _signal_each(ranks.values(), signal.SIGTERM)
        deadline = time.monotonic() + GRACE
        while ranks and time.monotonic() < deadline:
            ranks = {log: pid for log, pid in ranks.items()
                     if not _ended(log) and _alive(pid)}
            if ranks:
                time.sleep(0.02)
        _signal_each(helpers, signal.SIGCONT)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=GRACE)
            return
        except subprocess.TimeoutExpired:
            continue


def _signal_each(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _descendants(ancestor: int) -> set[int]:
    """The processes under ``ancestor`` on this machine (Linux's /proc; launchers give their
    processes sessions of their own, so neither a session nor a group finds them all)."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()  # after "pid (comm)"
        except OSError:
            continue
        parent[int(stat.parent.name)] = int(fields[1])
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = [ancestor]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a process whose paused parent has not reaped it is a
    zombie: dead)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _header_pid(log: Path) -> int | None:
    try:
        with open(log, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    for line in head.splitlines():
        if line.startswith("#pid "):
            value = line.split()[1]
            return int(value) if value.isdigit() else None
    return None


def _ended(log: Path) -> bool:
    """Whether a log's last line says how its process ended."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 256))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return True
    last = tail.rstrip("\n").rpartition("\n")[2]
    return tail.endswith("\n") and last.startswith(("# signal", "# exit"))


def record(command: list[str], out: str, timeout: float | None = None,
           mpicc: str | None = None, stall: float | None = STALL,
           fmt: str = "compact", hash_data: bool = True) -> int:
    """Run ``command`` with the recorder; write the recording to ``out``, in the format
    ``fmt`` ("compact", the default: binary columns in compressed blocks; "text": a line a
    call; :mod:`mpisim.recorded.read.compact`, :mod:`mpisim.recorded.read.trace`).

    ``timeout`` (s, None: none) stops the run after that long; ``stall`` (s, default 30,
    0 or None: never) stops it once every process has waited inside MPI, in one call, that
    long (a likely deadlock, whose blocked calls are reported). Returns the command's exit
    status, EXIT_TIMEOUT when the timeout stopped it, EXIT_DEADLOCK when the stall watch
    did. ``hash_data`` (default True): the recorder hashes the bytes of each send and
    receive (MPI 4.1 §3.7.2; False sets ``MPISIM_NO_HASH=1``). Interrupted
    (KeyboardInterrupt), it stops the run, keeps what the processes wrote
    in ``out`` and re-raises with ``kept`` set to the words that say so (None: nothing)."""
    if not command:
        raise RecordError("record: no command (mpisim record [--out run.trace] -- mpiexec "
                          "-n 4 ./app)")
    if shutil.which(command[0]) is None:
        raise RecordError(f"record: {command[0]}: command not found")
    out_path = Path(out)
    if not out_path.parent.exists():
        raise RecordError(f"--out {out}: directory {out_path.parent} does not exist")
    cc, shim, launch = recorder_for(command, mpicc)
    with tempfile.TemporaryDirectory(prefix="mpisim-record-") as logs:
        env = dict(os.environ, MPISIM_TRACE_DIR=logs, MPISIM_TRACE_FORMAT=fmt)
        if not hash_data:
            env["MPISIM_NO_HASH"] = "1"
        env["LD_PRELOAD"] = " ".join(p for p in (str(shim), env.get("LD_PRELOAD", "")) if p)
        started = time.monotonic()
        proc = subprocess.Popen(command, env=env, start_new_session=True)
        watch = StallWatch(logs, stall) if stall else None
        try:
            stopped = _watch(proc, logs, started, timeout, watch)
        except KeyboardInterrupt as e:
            with held_signals():  # a second Ctrl-C waits until the recording is whole
                _stop(proc, logs)
                count = merge_logs(logs, out_path)
            e.kept = (f"kept the recording so far in {out_path} ({_summary(out_path)})"  # type: ignore[attr-defined]
                      if count else None)
            raise
        wall = time.monotonic() - started
        count = merge_logs(logs, out_path)
        if count == 0:
            raise RecordError(_no_log(logs, proc.returncode, cc, shim, launch))
    print(f"mpisim record: wrote {out_path} ({_summary(out_path)}; {wall:.2f} s of wall "
          "time)", file=sys.stderr)
    if (unlogged := unlogged_note(launch.program, shim)) is not None:
        print(unlogged, file=sys.stderr)
    if stopped == "stall":
        _report_blocked(out_path)
        return EXIT_DEADLOCK
    if stopped == "timeout":
        return EXIT_TIMEOUT
    return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode


def _watch(proc: subprocess.Popen, logs: str, started: float, timeout: float | None,
           watch: StallWatch | None) -> str | None:
    """Wait for the run; stop it at its timeout ("timeout") or when the stall watch finds
    every process waiting ("stall"); None when it ended by itself."""
    while True:
        try:
            proc.wait(timeout=POLL)
            return None
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if timeout is not None and now - started >= timeout:
            print(f"mpisim record: stopping the run after {timeout:g} s (SIGTERM)",
                  file=sys.stderr)
            _stop(proc, logs)
            return "timeout"
        if watch is not None and watch.stalled(now):
            print(f"mpisim record: every process has waited inside MPI for {watch.seconds:g} "
                  "s: stopping the run as a likely deadlock (SIGTERM; --stall 0 never stops)",
                  file=sys.stderr)
            _stop(proc, logs)
            return "stall"


def _summary(out_path: Path) -> str:
    try:
        trace = read_trace(out_path, sources=False)
    except TraceError as e:
        return f"incomplete: {e}"
    spawned = len(trace.processes) - trace.size  # (MPI 4.1 §11.8.2: their own logs)
    procs = f"{trace.size} process{'' if trace.size == 1 else 'es'}"
    return (f"{procs}{f' and {spawned} spawned' if spawned else ''}, "
            f"{sum(len(r.calls) for r in trace.processes)} calls, {trace.outcome()}")


def _report_blocked(out_path: Path) -> None:
    """Each process's blocked call (or how it ended), from the stopped recording."""
    try:
        trace = read_trace(out_path)
    except TraceError:
        return
    for rank in trace.processes:
        who = f"spawn {rank.spawn} rank {rank.rank}" if rank.spawn else f"rank {rank.rank}"
        if rank.blocked is None:
            print(f"  {who}: {rank.end_text()}", file=sys.stderr)
            continue
        for call in rank.in_progress:  # (one per thread blocked, MPI 4.1 §11.6)
            args = " ".join(f"{k}={call.args[k]}" for k in ("dest", "src", "tag", "comm")
                            if k in call.args and (k != "comm" or call.args[k] != 0))
            print(f"  {who}: blocked in MPI_{call.name}{' ' + args if args else ''}"
                  f" ({call.where()})", file=sys.stderr)


def _no_log(logs: str, status: int | None, cc: str, shim: Path, launch: Launch) -> str:
    """Why no process wrote a log, as far as the run shows it: the command's exit status,
    which processes the recorder was loaded into, and the library it was built for."""
    loaded: list[str] = []
    for marker in Path(logs).glob("loaded.*"):
        with contextlib.suppress(OSError):
            loaded.append(marker.read_text().strip() or "?")
    ended = ("the command was killed by "
             f"{signal.Signals(-status).name if -status in signal.valid_signals() else -status}"
             if status is not None and status < 0 else f"the command exited with status {status}")
    built = f"the recorder was built with {cc} against {linked_libmpi(shim) or 'its MPI'}"
    program = os.path.realpath(launch.program) if launch.program else None
    if not loaded and status == 127:
        why = ("the command did not start: not found, or the recorder could not be loaded "
               "(the loader's message above says which)")
    elif not loaded:
        why = ("the recorder reached no process: the command or its launcher cleared "
               "LD_PRELOAD (a setuid or sandboxing wrapper), or the processes ran on other "
               "hosts (Open MPI: add -x LD_PRELOAD -x MPISIM_TRACE_DIR; or link the recorder "
               "in: mpisim record --shim)")
    else:
        names = sorted({Path(x).name for x in loaded})
        ours = [x for x in loaded if program and os.path.realpath(x) == program]
        reached = f"it was loaded into {len(loaded)} processes ({', '.join(names)})"
        if ours and status != 0:
            why = (f"{reached}, {len(ours)} of them {Path(program or '').name}, which never "
                   "finished MPI_Init: did they fail inside MPI? (a recorder built for "
                   "another MPI library fails so: give the program's own --mpicc)")
        elif ours:
            why = (f"{reached}, {len(ours)} of them {Path(program or '').name}, which ran "
                   "without calling MPI_Init (is it an MPI program, dynamically linked? a "
                   "static one needs the recorder linked in: mpisim record --shim)")
        else:
            why = (f"{reached}, none of which called MPI_Init (is the program an MPI program, "
                   "dynamically linked? a static one needs the recorder linked in: mpisim "
                   "record --shim)")
    return f"record: no process wrote a log: {ended}; {why}; {built}"
