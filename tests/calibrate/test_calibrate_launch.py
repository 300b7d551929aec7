"""How ``mpisim calibrate`` launches its probes (no MPI needed): a stand-in ``mpiexec`` that
fails as a real launcher does, or whose rank raises, or that prints its records.

A launch that started nothing and says no Python error is the launcher's own failure and is
tried again; a probe that raised is reported at once; either way the error is one line
with the exit status and the reason in the launcher's or the exception's own words."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from helpers import real_mpi

from mpisim.calibrate import suite
from mpisim.calibrate.suite import CalibrationError, Launcher, LaunchError, headline
from mpisim.cli.main import main

OPEN_MPI_BOX = """\
--------------------------------------------------------------------------
The PMIx server's listener thread failed to start. We cannot
continue.
--------------------------------------------------------------------------
"""
RANK_RAISED = """\
Traceback (most recent call last):
  File "probes.py", line 12, in <module>
mpi4py.MPI.Exception: MPI_ERR_BUFFER: invalid buffer pointer
--------------------------------------------------------------------------
prterun detected that one or more processes exited with non-zero status,
thus causing the job to be terminated. The first process to do so was:

   Process name: [prterun-vm-13316@1,1]
   Exit code:    1
--------------------------------------------------------------------------
"""

FAKE = """\
import json, sys
from pathlib import Path
counter, fails, stderr = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
launch = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(launch))
if launch <= fails:
    sys.stderr.write(stderr.read_text())
    sys.exit(1)
spec = json.loads(sys.argv[-1])
print("a line that is not a record")
print(json.dumps({"probe": spec["probe"], "launch": launch}))
"""


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch):
    monkeypatch.setattr(suite, "RETRY_PAUSE", 0.0)


def fake_mpiexec(tmp_path: Path, fails: int, stderr: str = OPEN_MPI_BOX) -> tuple[str, Path]:
    """A command line standing for ``mpiexec -n 2`` whose first ``fails`` launches print
    ``stderr`` and exit 1; the counter file holds how many launches there were."""
    script, said, counter = tmp_path / "fake_mpiexec.py", tmp_path / "stderr", tmp_path / "n"
    script.write_text(FAKE)
    said.write_text(stderr)
    return shlex.join([sys.executable, str(script), str(counter), str(fails), str(said)]), counter


def test_the_launchers_own_failure_is_tried_again_and_said(tmp_path):
    mpiexec, counter = fake_mpiexec(tmp_path, fails=suite.RETRIES)
    said: list[str] = []
    launcher = Launcher(mpiexec, sys.executable, log=said.append)
    records, timed_out = launcher.run({"probe": "info"})
    assert records == [{"probe": "info", "launch": suite.RETRIES + 1}]
    assert not timed_out
    assert launcher.launches == int(counter.read_text()) == suite.RETRIES + 1
    assert said == ["probe info: mpiexec started nothing (exit 1: The PMIx server's listener "
                    "thread failed to start. We cannot continue.); launching again"] * 2


def test_a_launcher_that_keeps_failing_is_one_line_naming_its_reason(tmp_path):
    mpiexec, counter = fake_mpiexec(tmp_path, fails=suite.RETRIES + 1)
    launcher = Launcher(mpiexec, sys.executable)
    with pytest.raises(LaunchError) as e:
        launcher.run({"probe": "errors"})
    assert int(counter.read_text()) == suite.RETRIES + 1
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith("probe errors printed nothing (exit 1: The PMIx server's "
                              "listener thread failed to start. We cannot continue.)")
    assert message.endswith(f"'<spec>' (launched {suite.RETRIES + 1} times)")


def test_a_probe_that_raised_is_reported_at_once_with_its_exception(tmp_path):
    mpiexec, counter = fake_mpiexec(tmp_path, fails=1, stderr=RANK_RAISED)
    with pytest.raises(CalibrationError) as e:
        Launcher(mpiexec, sys.executable).run({"probe": "holes"})
    assert not isinstance(e.value, LaunchError)
    assert counter.read_text() == "1"
    assert "(exit 1: mpi4py.MPI.Exception: MPI_ERR_BUFFER: invalid buffer pointer)" in str(
        e.value)


@pytest.mark.parametrize(("stderr", "expected"), [
    (OPEN_MPI_BOX, "The PMIx server's listener thread failed to start. We cannot continue."),
    (RANK_RAISED, "mpi4py.MPI.Exception: MPI_ERR_BUFFER: invalid buffer pointer"),
    ("Traceback (most recent call last):\n  File \"x\", line 1\nKeyboardInterrupt: \n",
     "KeyboardInterrupt:"),
    ("[proxy:0@vm] HYD_spawn (lib/utils/spawn.c:125): execvp error on file nope (No such "
     "file or directory)\n", "[proxy:0@vm] HYD_spawn (lib/utils/spawn.c:125): execvp error "
                             "on file nope (No such file or directory)"),
    ("", "no output"),
])
def test_headline_is_the_exception_or_the_launchers_first_paragraph(stderr, expected):
    assert headline(stderr) == expected


def test_calibrate_from_the_command_line_stops_with_one_line_and_writes_nothing(
        tmp_path, capsys):
    mpiexec, counter = fake_mpiexec(tmp_path, fails=99)
    out = tmp_path / "mine.yaml"
    assert main(["calibrate", "--mpiexec", mpiexec, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[:2] == ["probe info: mpiexec started nothing (exit 1: The PMIx server's "
                       "listener thread failed to start. We cannot continue.); launching "
                       "again"] * 2
    assert len(err) == 3 and err[2].startswith("mpisim: calibrate: probe info printed nothing")
    assert int(counter.read_text()) == suite.RETRIES + 1
    assert not out.exists()


def test_the_differential_tests_launch_again_too_and_skip_a_library_that_cannot_start(
        tmp_path):
    """tests/helpers/real_mpi.py, which runs the oracle and held-out programs, follows the
    same rule."""
    mpiexec, counter = fake_mpiexec(tmp_path, fails=suite.RETRIES)
    cmd = [*shlex.split(mpiexec), "python", "script.py", '{"probe": "ring"}']
    outcome, out, _err = real_mpi.launch(cmd, deadlock_after=60)
    assert (outcome, int(counter.read_text())) == ("completed", suite.RETRIES + 1)
    assert '"probe": "ring"' in out
    counter.unlink()
    mpiexec, counter = fake_mpiexec(tmp_path, fails=99)
    with pytest.raises(pytest.skip.Exception, match="listener thread failed to start"):
        real_mpi.launch([*shlex.split(mpiexec), "python", "script.py", "{}"], 60)
    assert int(counter.read_text()) == suite.RETRIES + 1
    mpiexec, counter = fake_mpiexec(tmp_path, fails=1, stderr=RANK_RAISED)
    counter.unlink()
    assert real_mpi.launch([*shlex.split(mpiexec), "python", "s.py", "{}"], 60)[0] == \
        "error MPI_ERR_BUFFER"
    assert counter.read_text() == "1"
