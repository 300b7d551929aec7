"""``mpisim record`` on an ordinary machine: the recorder is built for the MPI library the
program uses (the launcher found inside wrappers such as ``timeout``; a recorder of another
library refused with both named), a run that leaves no log says why, an interrupted recording
keeps what it wrote, and a run whose every process waits inside MPI for ``--stall`` seconds
is stopped as a likely deadlock and replays as that deadlock.

The first tests need no MPI (stand-in files); the ``real_mpi`` ones need MPICH's ``mpicc``
and ``mpiexec`` in this venv (``pip install mpi4py mpich``) and skip cleanly without them;
the Open MPI case also needs Debian's ``openmpi-bin libopenmpi-dev``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich
from helpers.paths import DATA

import mpisim as ms
from mpisim.cli.main import main
from mpisim.recorded import read_trace, replay, replay_scenario
from mpisim.recorded.record.mpilib import Launch, mismatch, parse_command
from mpisim.recorded.record.recorder import _no_log
from mpisim.recorded.record.stall import StallWatch

HERE = DATA / "replay_c"


# ---- the launcher inside wrappers ---------------------------------------------------------
@pytest.fixture
def tools(tmp_path):
    """An executable stand-in for an MPI launcher and for a program (not ELF: their MPI
    library is unknown)."""
    made = {}
    for name in ("mpiexec", "mpirun.openmpi", "app"):
        path = tmp_path / "bin" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        made[name] = str(path)
    return made


@pytest.mark.parametrize("before", [
    ["timeout", "30"],
    ["timeout", "-s", "KILL", "--preserve-status", "15"],
    ["timeout", "--kill-after=5", "15"],
    ["env", "OMP_NUM_THREADS=1", "nice", "-n", "5"],
    ["env", "-u", "DISPLAY", "X=1"],
    ["numactl", "--interleave=all"],
    ["numactl", "-i", "all"],
    ["stdbuf", "-oL"],
    ["stdbuf", "-o", "L"],
    ["taskset", "-c", "0,1"],
    ["time", "-p"],
    ["nice", "-10", "timeout", "20", "env", "A=B"],
    [],
])
def test_the_launcher_is_found_inside_wrappers(tools, before):
    launch = parse_command([*before, tools["mpiexec"], "-n", "2", tools["app"], "x"])
    assert launch == Launch(tools["mpiexec"], tools["app"])


def test_the_program_is_found_after_the_launchers_options_and_its_own_wrappers(tools):
    assert parse_command([tools["mpirun.openmpi"], "--mca", "btl", "self", "-np", "4",
                          "numactl", "-C", "0", tools["app"]]) == Launch(
        tools["mpirun.openmpi"], tools["app"])
    assert parse_command(["timeout", "10", tools["app"], "1"]) == Launch(None, tools["app"])


def test_a_recorder_outside_the_launchers_prefix_is_refused_when_the_program_is_unknown(
        tmp_path, tools):
    """A Python program loads its MPI at run time: the launcher's installation decides."""
    launch = Launch(tools["mpiexec"], None)  # <tmp>/bin/mpiexec: prefix <tmp>
    inside = tmp_path / "lib" / "libmpi.so.12"
    inside.parent.mkdir()
    inside.write_bytes(b"x")
    assert mismatch(str(inside), launch) is None
    why = mismatch("/elsewhere/lib/libmpi.so.40", launch)
    assert why == f"the launcher {tools['mpiexec']} is installed in {tmp_path}"
    assert mismatch(None, launch) is None  # the recorder's library unknown: not refused


# ---- the stall watch ---------------------------------------------------------------------
def _now(logs: Path, rank: int, seq: int, inside: bool, call: str, size: int = 2,
         pid: int | None = None) -> None:
    (logs / f"rank.{rank}.now").write_bytes(
        struct.pack("=8sQQ40s", b"mpisim1\0", seq, int(inside), call.encode()))
    log = logs / f"rank.{rank}.log"
    if not log.exists():
        log.write_text(f"#mpisim-trace 1\n#rank {rank} {size}\n#pid {pid or os.getpid()}\n")


def test_the_stall_watch_stops_only_when_every_process_waits_in_one_call(tmp_path):
    watch = StallWatch(str(tmp_path), 2.0)
    _now(tmp_path, 0, 5, True, "Send")
    assert not watch.stalled(100.0)  # rank 1 has not reached MPI_Init: not judged
    _now(tmp_path, 1, 7, True, "Recv")
    assert not watch.stalled(100.0)  # first seen there
    assert not watch.stalled(101.5)
    assert watch.stalled(102.0)  # both in the same call for 2 s
    _now(tmp_path, 1, 8, True, "Recv")  # rank 1 made progress: a new call
    assert not watch.stalled(103.0)
    assert not watch.stalled(104.9)
    assert watch.stalled(105.0)
    _now(tmp_path, 0, 5, False, "Send")  # rank 0 returned: computing outside MPI
    assert not watch.stalled(110.0)


def test_a_process_that_has_ended_cannot_free_the_others(tmp_path):
    """Rank 0 exited (its pid is gone); rank 1 waits in MPI_Recv: stalled."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    _now(tmp_path, 0, 9, False, "Finalize", pid=dead.pid)
    _now(tmp_path, 1, 3, True, "Recv")
    watch = StallWatch(str(tmp_path), 1.0)
    assert not watch.stalled(0.0)
    assert watch.stalled(1.0)


def test_the_stall_watch_never_judges_a_run_it_cannot_see_whole(tmp_path):
    """Processes on another host write no file here: fewer files than the world's size."""
    watch = StallWatch(str(tmp_path), 1.0)
    _now(tmp_path, 0, 1, True, "Barrier", size=3)
    _now(tmp_path, 1, 1, True, "Barrier", size=3)
    assert not watch.stalled(0.0)
    assert not watch.stalled(100.0)


# ---- a run that writes no log says why ---------------------------------------------------
def test_no_log_names_the_exit_status_where_the_recorder_went_and_the_mpicc(tmp_path):
    app = tmp_path / "app"
    app.write_text("")
    launch = Launch("/opt/mpi/bin/mpiexec", str(app))
    text = _no_log(str(tmp_path), 1, "/usr/bin/mpicc", tmp_path / "rec.so", launch)
    assert text.startswith("record: no process wrote a log: the command exited with "
                           "status 1; the recorder reached no process")
    assert "built with /usr/bin/mpicc" in text
    for pid, exe in ((1, "/opt/mpi/bin/mpiexec"), (2, str(app)), (3, str(app))):
        (tmp_path / f"loaded.{pid}").write_text(exe + "\n")
    text = _no_log(str(tmp_path), -15, "/usr/bin/mpicc", tmp_path / "rec.so", launch)
    assert "killed by SIGTERM" in text
    assert ("loaded into 3 processes (app, mpiexec), 2 of them app, which never finished "
            "MPI_Init: did they fail inside MPI?") in text
    text = _no_log(str(tmp_path), 0, "/usr/bin/mpicc", tmp_path / "rec.so", launch)
    assert "2 of them app, which ran without calling MPI_Init" in text


def test_a_negative_stall_is_a_usage_error(capsys):
    assert main(["record", "--stall", "-1", "--", "true"]) == 2
    assert "--stall -1: must be 0 (never) or more seconds" in capsys.readouterr().err


# ---- with a real MPI ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A private recorder cache, so the tests build it as a first-time user would."""
    return dict(os.environ, XDG_CACHE_HOME=str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    mpicc, _ = oracle_mpich()
    out = tmp_path_factory.mktemp("apps") / "example_3_10"
    subprocess.run([mpicc, "-g", "-O1", "-o", str(out), str(HERE / "example_3_10.c")],
                   check=True, timeout=120)
    return out


def _default_sigint() -> None:
    """SIGINT as a terminal gives it (a background job's shell starts it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _record(env, cwd: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpisim", "record", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, cwd=cwd)


def _wrong_mpiccs() -> list[str]:
    kinds = ["fake"]
    show = shutil.which("mpicc.openmpi") or "/usr/bin/mpicc"
    if os.path.exists(show):
        out = subprocess.run([show, "--showme"], capture_output=True, text=True)
        if out.returncode == 0 and "openmpi" in out.stdout:
            kinds.append("openmpi")
    return kinds


def _stub_dir(tmp_path: Path, kind: str) -> Path:
    """A directory with ``timeout`` and, beside it, an ``mpicc`` that builds for another
    library: Open MPI's, or (always available) MPICH's headers linked against a different
    libmpi.so.12."""
    mpicc, _ = oracle_mpich()
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "timeout").symlink_to(shutil.which("timeout"))
    if kind == "openmpi":
        wrapper = shutil.which("mpicc.openmpi") or "/usr/bin/mpicc"
        (stub / "mpicc").write_text(f'#!/bin/sh\nexec {wrapper} "$@"\n')
    else:
        lib = stub / "lib"
        lib.mkdir()
        (lib / "other.c").write_text("int other_mpi_library = 1;\n")
        subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libmpi.so.12", "-o",
                        str(lib / "libmpi.so.12"), str(lib / "other.c")], check=True)
        (lib / "libmpi.so").symlink_to("libmpi.so.12")
        include = Path(mpicc).parent.parent / "include"
        (stub / "mpicc").write_text(
            f'#!/bin/sh\nif [ "$1" = "-show" ]; then echo "cc -I{include} -L{lib} -lmpi"; '
            f'exit 0; fi\nexec cc -I{include} "$@" -L{lib} -Wl,-rpath,{lib} -Wl,--no-as-needed '
            f'-lmpi\n')
    (stub / "mpicc").chmod(0o755)
    return stub


@pytest.mark.real_mpi
@pytest.mark.timeout(400)  # builds the recorder twice and records twice: slow on a busy machine
@pytest.mark.parametrize("kind", _wrong_mpiccs())
def test_a_wrong_mpicc_beside_the_wrapper_is_passed_over_or_refused(app, env, tmp_path, kind):
    """``timeout 30 mpiexec -n 2 ./app`` with another library's mpicc beside ``timeout``
    (the old rule built with it, and every process failed in MPI_Comm_rank): the recorder
    is built with the mpicc of the program's MPICH; that mpicc, named with --mpicc, is
    refused with both libraries and the --mpicc to pass, and nothing is written."""
    mpicc, mpiexec = oracle_mpich()
    stub = _stub_dir(tmp_path, kind)
    env = dict(env, PATH=f"{stub}{os.pathsep}{Path(mpiexec).parent}{os.pathsep}"
                         f"{env.get('PATH', '')}")
    env.pop("MPICC", None)
    trace = tmp_path / "ok.trace"
    run = _record(env, tmp_path, "--out", str(trace), "--", "timeout", "30", "mpiexec", "-n",
                  "2", str(app), "send", "100")
    assert run.returncode == 0, run.stderr
    recorded = read_trace(trace)
    assert recorded.outcome() == "completed"
    assert "MPICH" in recorded.library
    bad = tmp_path / "bad.trace"
    run = _record(env, tmp_path, "--mpicc", str(stub / "mpicc"), "--out", str(bad), "--",
                  "timeout", "30", "mpiexec", "-n", "2", str(app), "send", "100")
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    program_lib = os.path.realpath(Path(mpicc).parent.parent / "lib" / "libmpi.so.12")
    assert f"the recorder built with --mpicc {stub / 'mpicc'} links " in lines[0]
    assert f"but {app} uses {program_lib}" in lines[0]
    assert lines[0].endswith(f"--mpicc {mpicc}")
    assert not bad.exists()


@pytest.mark.real_mpi
@pytest.mark.timeout(400)
def test_a_launcher_linked_in_beside_a_wrong_mpicc_passes_it_over_and_says_so(app, env,
                                                                               tmp_path):
    """``stub/mpiexec`` a link to MPICH's, beside another library's mpicc: that mpicc (the
    first tried) is passed over for the one in the launcher's real directory."""
    mpicc, mpiexec = oracle_mpich()
    stub = _stub_dir(tmp_path, "fake")
    for name in ("mpiexec", "hydra_pmi_proxy"):  # Hydra starts its proxy from its own dir
        (stub / name).symlink_to(Path(mpiexec).parent / name)
    program_lib = os.path.realpath(Path(mpicc).parent.parent / "lib" / "libmpi.so.12")
    linked = tmp_path / "linked.trace"
    run = _record(env, tmp_path, "--out", str(linked), "--", str(stub / "mpiexec"), "-n", "2",
                  str(app), "send", "100")
    assert run.returncode == 0, run.stderr
    assert (f"mpisim record: passed over {stub / 'mpicc'}, which builds for another MPI "
            f"library; the recorder is built with {mpicc} ({program_lib})") in run.stderr
    assert read_trace(linked).outcome() == "completed"


@pytest.mark.real_mpi
def test_a_deadlock_recorded_without_timeout_is_stopped_by_the_stall_watch(app, env,
                                                                           tmp_path):
    """Example 3.10 with 40000 B standard sends: MPICH's rendezvous deadlocks (MPI 4.1
    §3.5: an unsafe program). Recorded with --stall 2 and no --timeout, the run ends by
    itself, names each blocked call, exits 3, and replays as the same deadlock."""
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "stall.trace"
    started = time.monotonic()
    run = _record(env, tmp_path, "--stall", "2", "--out", str(trace), "--", mpiexec, "-n",
                  "2", str(app), "send", "10000")
    assert run.returncode == 3, run.stderr
    wall = float(run.stderr.split(" s of wall time")[0].rsplit("; ", 1)[1])
    assert 2 <= wall < 2 + 10, run.stderr  # stopped within its stall time (and a stop)
    assert time.monotonic() - started < 120
    assert "stopping the run as a likely deadlock" in run.stderr
    assert "rank 0: blocked in MPI_Send dest=1 tag=0 (call 2" in run.stderr
    assert "rank 1: blocked in MPI_Send dest=0 tag=0 (call 2" in run.stderr
    assert [(r, c.name) for r, c in read_trace(trace).blocked()] == [(0, "Send"), (1, "Send")]
    sc = replay_scenario(trace)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert sc.compare(result).startswith("agrees with the recording: the same calls")


@pytest.mark.real_mpi
def test_an_interrupted_recording_keeps_and_names_what_it_wrote(app, env, tmp_path):
    """Ctrl-C during a deadlocked run (--stall 0: never stopped by itself): exit 130, one
    line naming the kept recording, which replays as the deadlock."""
    _, mpiexec = oracle_mpich()
    trace = tmp_path / "kept.trace"
    proc = subprocess.Popen([sys.executable, "-m", "mpisim", "record", "--stall", "0", "--out",
                             str(trace), "--", mpiexec, "-n", "2", str(app), "send", "10000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path, preexec_fn=_default_sigint)
    try:
        _wait_for_blocked(app, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.rstrip().endswith(f"mpisim: interrupted by SIGINT; kept the recording so far "
                                 f"in {trace} (2 processes, 4 calls, killed)"), err
    assert "Traceback" not in err
    assert replay(trace).outcome is ms.Outcome.DEADLOCK


def _wait_for_blocked(app: Path, proc: subprocess.Popen) -> None:
    """Until both processes of the run are inside their MPI_Send (their logs, in the
    recorder's temporary directory, are not visible here: wait on the processes' state)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None
        out = subprocess.run(["pgrep", "-f", f"^{re.escape(str(app))} send"],
                             capture_output=True, text=True)
        pids = out.stdout.split()
        if len(pids) >= 2:
            time.sleep(3)  # past MPI_Init and into the sends
            return
        time.sleep(0.2)
    pytest.fail("the run did not start")


@pytest.mark.real_mpi
def test_a_deadlock_with_one_process_in_finalize_is_stopped_and_replayed(env, tmp_path):
    """Rank 1 waits in MPI_Recv for a message never sent; rank 0 waits in MPI_Finalize,
    collective in MPICH (MPI 4.1 §11.2.2): every process waits inside MPI, so --stall stops
    the run, and the replay names the same deadlock."""
    mpicc, mpiexec = oracle_mpich()
    app = tmp_path / "finalize_waits"
    subprocess.run([mpicc, "-g", "-o", str(app), str(HERE / "finalize_waits.c")], check=True,
                   timeout=120)
    trace = tmp_path / "fin.trace"
    run = _record(env, tmp_path, "--stall", "2", "--out", str(trace), "--", mpiexec, "-n",
                  "2", str(app))
    assert run.returncode == 3, run.stderr
    assert "rank 0: blocked in MPI_Finalize (call 2" in run.stderr
    assert "rank 1: blocked in MPI_Recv src=0 tag=0 (call 2" in run.stderr
    sc = replay_scenario(trace)
    result = sc.run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert sc.compare(result).startswith("agrees with the recording: the same calls")
