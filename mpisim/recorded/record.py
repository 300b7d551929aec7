"""``mpisim record -- mpiexec -n 4 ./app``: run a real MPI job with the recorder preloaded.

The recorder is the C source ``shim/mpisim_record.c`` shipped in the package. It is built
once per MPI library with that library's own ``mpicc`` (``--mpicc``, else ``$MPICC``, else
the ``mpicc`` beside the launcher named in the command, else ``mpicc`` on PATH) into
``$XDG_CACHE_HOME/mpisim/recorder/`` (default ``~/.cache``; private to the user, 0700, and
refused otherwise: see :func:`cache_dir`), named by a hash of the source, the wrapper, what
``mpicc -show`` (MPICH) or ``--showme`` (Open MPI) says, the compiler and the MPI library it
names, so another library or a new mpisim builds anew; the build is atomic and the library
is verified by its digest before it is preloaded (:func:`build_shim`). The command runs with
``LD_PRELOAD`` set to it and ``MPISIM_TRACE_DIR`` to a temporary directory (Open MPI's
``mpiexec`` passes the environment to local processes; for remote hosts add
``-x LD_PRELOAD -x MPISIM_TRACE_DIR``); each process writes ``rank.N.log`` there, and the
logs are joined, in rank order, into the ``--out`` file once the command has ended (through
a temporary file and a rename).

``--timeout`` (and SIGINT/SIGTERM sent to ``mpisim record``) stops the run: the launcher and
its helpers are paused while each MPI process (found by the ``#pid`` of its log, flushed at
MPI_Init) gets SIGTERM, on which the recorder flushes its log, so a deadlocking run keeps
every call up to the blocked ones; then the launcher's process group gets SIGTERM (SIGKILL
5 s later if it is still there). See :func:`_stop`.

A statically linked application cannot be preloaded: link the recorder into it before the
MPI library (``mpisim record --shim`` prints the source's path: ``mpicc -c $(mpisim record
--shim) -o rec.o && mpicc app.o rec.o -o app``), then run it with ``MPISIM_TRACE_DIR`` set.
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

from .trace import TraceError, read_trace

__all__ = ["RecordError", "build_key", "build_shim", "cache_dir", "find_mpicc", "merge_logs",
           "record"]

EXIT_TIMEOUT = 5
GRACE = 5.0
"""Seconds between the SIGTERM that stops a run and the SIGKILL if it is still there."""


class RecordError(RuntimeError):
    """The recorder could not be built or the command not run: one line."""


def shim_source() -> Path:
    return Path(str(resources.files(__package__).joinpath("shim/mpisim_record.c")))


def find_mpicc(command: list[str], mpicc: str | None = None) -> str:
    """The MPI C compiler that matches the command's MPI (see the module)."""
    if mpicc:
        found = shutil.which(mpicc)
        if not found:
            raise RecordError(f"--mpicc {mpicc}: not found")
        return found
    if os.environ.get("MPICC"):
        found = shutil.which(os.environ["MPICC"])
        if found:
            return found
    if command:
        launcher = shutil.which(command[0])
        if launcher:
            beside = Path(launcher).resolve().parent / "mpicc"
            unresolved = Path(launcher).parent / "mpicc"
            for candidate in (unresolved, beside):
                if candidate.exists():
                    return str(candidate)
    found = shutil.which("mpicc")
    if not found:
        raise RecordError("no mpicc found: the recorder is built with the MPI library's own "
                          "compiler wrapper (give --mpicc PATH or set MPICC)")
    return found


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


def build_key(source: bytes, mpicc: str) -> str:
    """The recorder's name: a hash of the shim's source, the compiler wrapper (its path and
    content), the flags it adds, the compiler and the MPI library they name."""
    flags = _wrapper_flags(mpicc)
    parts = [source, os.path.realpath(mpicc).encode(), flags.encode(),
             *(p.encode() for p in _tool_identity(flags))]
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


def build_shim(mpicc: str) -> Path:
    """The recorder built with ``mpicc``: from the cache when a verified copy is there, else
    built now. The library is named by :func:`build_key`; it is compiled in a temporary
    directory of the cache, its digest written to ``<name>.sha256``, and both renamed into
    place (atomic), so a failed or interrupted build leaves nothing a later run would load;
    a file whose digest does not match is rebuilt, never preloaded."""
    source = shim_source().read_bytes()
    cache = cache_dir()
    target = cache / f"libmpisim_record-{build_key(source, mpicc)}.so"
    if _verified(target):
        return target
    tmp = tempfile.mkdtemp(prefix=".build-", dir=cache)
    try:
        src = Path(tmp) / "mpisim_record.c"
        src.write_bytes(source)
        out = Path(tmp) / "libmpisim_record.so"
        _compile(mpicc, src, out)
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


def _compile(mpicc: str, src: Path, out: Path) -> None:
    try:
        built = subprocess.run([mpicc, "-shared", "-fPIC", "-O2", "-o", str(out), str(src),
                                "-ldl"], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RecordError(f"cannot build the recorder with {mpicc}: {e}") from None
    if built.returncode != 0 or not out.is_file():
        lines = built.stderr.strip().splitlines() or ["(no message)"]
        first = next((x for x in lines if "error" in x), lines[0])
        raise RecordError(f"building the recorder with {mpicc} failed: {first}")


def merge_logs(directory: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Join the ``rank.N.log`` files of ``directory`` into ``out`` (whole or not at all);
    the number of logs."""
    files = sorted((int(p.name.split(".")[1]), p) for p in Path(directory).glob("rank.*.log")
                   if p.name.split(".")[1].isdigit())
    if not files:
        return 0
    out = Path(out)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            for _, path in files:
                data = path.read_bytes()
                if data and not data.endswith(b"\n"):
                    data = data[:data.rfind(b"\n") + 1]  # a line cut by a kill: dropped
                f.write(data)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    return len(files)


def _stop(proc: subprocess.Popen, logs: str) -> None:
    """Stop a run so that every MPI process flushes its log: the launcher and its helpers
    (MPICH's proxies, Open MPI's daemons) are paused (SIGSTOP) while each MPI process gets
    SIGTERM and writes its last lines, because a launcher answers the first process's death
    by killing the others at once (MPICH's with SIGKILL); then they get SIGCONT, and the
    launcher's group SIGTERM, SIGKILL GRACE seconds later."""
    tree = _descendants(proc.pid)
    ranks = {log: pid for log in Path(logs).glob("rank.*.log")
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
           mpicc: str | None = None) -> int:
    """Run ``command`` with the recorder; write the recording to ``out``. Returns the
    command's exit status (EXIT_TIMEOUT when ``timeout`` stopped it)."""
    if not command:
        raise RecordError("record: no command (mpisim record [--out run.trace] -- mpiexec "
                          "-n 4 ./app)")
    if shutil.which(command[0]) is None:
        raise RecordError(f"record: {command[0]}: command not found")
    out_path = Path(out)
    if not out_path.parent.exists():
        raise RecordError(f"--out {out}: directory {out_path.parent} does not exist")
    shim = build_shim(find_mpicc(command, mpicc))
    with tempfile.TemporaryDirectory(prefix="mpisim-record-") as logs:
        env = dict(os.environ, MPISIM_TRACE_DIR=logs)
        env["LD_PRELOAD"] = " ".join(p for p in (str(shim), env.get("LD_PRELOAD", "")) if p)
        started = time.monotonic()
        proc = subprocess.Popen(command, env=env, start_new_session=True)
        stopped = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stopped = True
            print(f"mpisim record: stopping the run after {timeout:g} s (SIGTERM)",
                  file=sys.stderr)
            _stop(proc, logs)
        except KeyboardInterrupt:
            _stop(proc, logs)
            merge_logs(logs, out_path)
            raise
        wall = time.monotonic() - started
        count = merge_logs(logs, out_path)
    if count == 0:
        raise RecordError("record: no process wrote a log (did the command run an MPI "
                          "program, dynamically linked, that called MPI_Init?)")
    try:
        trace = read_trace(out_path)
        summary = (f"{trace.size} processes, {sum(len(r.calls) for r in trace.ranks)} calls, "
                   f"{trace.outcome()}")
    except TraceError as e:
        summary = f"incomplete: {e}"
    print(f"mpisim record: wrote {out_path} ({summary}; {wall:.2f} s of wall time)",
          file=sys.stderr)
    if stopped:
        return EXIT_TIMEOUT
    return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
