"""The end of a rank's script as the end of a real process (Python's atexit and module
teardown, then mpi4py's MPI_Finalize): atexit handlers and finalizers that call MPI work
and print what a real run prints; a Python exception ends the run as ERROR with a note that
a real job would often hang there instead.

``tests/data/mpi4py/script_end.py`` registers two handlers (one makes a Barrier) and keeps
an object whose ``__del__`` makes an allreduce. The expected lines are those of the real
run (mpiexec -n 2, MPICH 5.0.2 and Open MPI 5.0.11 alike): each rank prints "end of
script", then its handlers, the last registered first, then its finalizer.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import real_mpi
from helpers.paths import DATA

import mpisim as ms
from mpisim.mpi4py.run.script import HANGS

SCRIPT = DATA / "mpi4py" / "script_end.py"

EXPECTED = sorted(f"rank {r}: {what}" for r in (0, 1) for what in (
    "end of script", "atexit second after a barrier", "atexit first registered, runs last",
    "finalizer saw 2 ranks"))


def simulated(script: Path, args: list[str], ranks: int = 2) -> tuple[ms.Result, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        result = ms.run_mpi4py(script, ranks=ranks, args=args)
    return result, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("args", [[], ["exit"], ["raise"]])
def test_atexit_handlers_then_finalizers_run_before_finalize(args):
    """Python runs atexit handlers (last registered first: atexit's documentation) before
    tearing __main__ down, and mpi4py calls MPI_Finalize after both, so their MPI calls
    (a Barrier, an allreduce) complete; sys.exit(0) ends the script the same way."""
    result, out, _ = simulated(SCRIPT, args)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert real_mpi.lines(out) == EXPECTED
    for rank in (0, 1):
        mine = [line for line in out.splitlines() if line.startswith(f"rank {rank}:")]
        assert mine == [f"rank {rank}: end of script", f"rank {rank}: atexit second after a "
                        "barrier", f"rank {rank}: atexit first registered, runs last",
                        f"rank {rank}: finalizer saw 2 ranks"]


def test_a_failing_handler_is_reported_and_the_others_still_run():
    """As Python's atexit: "Exception ignored in atexit callback", the traceback, and the
    remaining handlers run."""
    result, out, err = simulated(SCRIPT, ["raise"])
    assert result.outcome is ms.Outcome.COMPLETED
    assert err.count("Exception ignored in atexit callback: <function broken") == 2
    assert err.count("RuntimeError: a handler that fails") == 2
    assert "atexit first registered, runs last" in out


def test_a_python_exception_ends_the_run_as_error_noting_a_real_run_would_hang(tmp_path):
    """A rank that raises: ERROR naming the exception and its line; the report says a real
    job would not end there (MPICH's mpiexec hangs, observed: the other rank waits in
    MPI_Recv; Open MPI's aborts)."""
    script = tmp_path / "raises.py"
    script.write_text("from mpi4py import MPI\ncomm = MPI.COMM_WORLD\n"
                      "if comm.rank == 1:\n    raise ValueError('bad input')\n"
                      "comm.recv(source=1)\n")
    result, _, _ = simulated(script, [])
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "ValueError" and result.error.rank == 1
    assert result.error.where == "raises.py:4 (<module>)"
    assert HANGS in result.report()


def test_a_library_registering_at_import_uses_the_real_atexit(tmp_path, monkeypatch):
    """Only the script's own code (its file, its directory's modules) registers for the
    rank; an installed library imported by the script keeps the process's atexit."""
    registered = []
    monkeypatch.setattr(atexit, "register", lambda f, *a, **k: registered.append(f) or f)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "somelib.py").write_text("import atexit\n\ndef cleanup():\n    pass\n\n"
                                    "atexit.register(cleanup)\n")
    app = tmp_path / "app"
    app.mkdir()
    script = app / "main.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(lib)!r})\nimport somelib\n"
                      "import atexit\natexit.register(print, 'rank handler')\n")
    sys.modules.pop("somelib", None)
    try:
        result, out, _ = simulated(script, [], ranks=1)
    finally:
        sys.modules.pop("somelib", None)
    assert result.outcome is ms.Outcome.COMPLETED
    assert [f.__name__ for f in registered] == ["cleanup"]
    assert out.splitlines()[0] == "rank handler"


@pytest.mark.real_mpi
@pytest.mark.parametrize("args", [[], ["exit"], ["raise"]])
def test_the_real_run_prints_the_same_lines(args):
    """mpiexec -n 2 with the real mpi4py (MPICH): the same lines as the stand-in."""
    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists():
        pytest.skip("no real mpi4py with mpiexec (pip install -e '.[oracle]')")
    try:
        outcome, lines = real_mpi.real([str(mpiexec), "-n", "2", sys.executable,
                                        str(SCRIPT), *args], 30.0)
    except subprocess.SubprocessError as e:  # pragma: no cover - a broken launcher
        pytest.skip(f"mpiexec failed: {e}")
    assert outcome == "completed"
    assert lines == EXPECTED
