"""Calibration against a missing, broken or hanging MPI: a clear one-line error within the
probe's timeout, and nothing half-written (no profile file, no observations file)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from mpisim.calibrate.suite import CalibrationError, Launcher, observe

BROKEN = {
    "missing mpiexec": ("{tmp}/no/such/mpiexec -n 2", sys.executable, "cannot run"),
    "mpiexec exits 0": ("true", sys.executable, "printed nothing"),
    "mpiexec fails": ("{tmp}/fails", sys.executable, "printed nothing"),
    "missing python": ("{tmp}/direct", "{tmp}/no/python", "printed nothing|cannot run"),
    "wrong python": ("{tmp}/direct", "/bin/false", "printed nothing"),
    "python without mpi4py": ("{tmp}/direct", "{tmp}/bare-python", "printed nothing|mpi4py"),
}


def _scripts(tmp) -> None:
    (tmp / "fails").write_text("#!/bin/sh\necho 'cannot start: no hosts' >&2\nexit 3\n")
    (tmp / "direct").write_text('#!/bin/sh\nshift 0\nexec "$@"\n')  # runs the probe once
    (tmp / "hangs").write_text("#!/bin/sh\nexec sleep 60\n")
    (tmp / "bare-python").write_text(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
    for name in ("fails", "direct", "hangs", "bare-python"):
        (tmp / name).chmod(0o755)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_mpi_is_a_one_line_error_and_writes_nothing(tmp_path, case):
    _scripts(tmp_path)
    mpiexec, python, words = (s.format(tmp=tmp_path) if isinstance(s, str) else s
                              for s in BROKEN[case])
    out, obs = tmp_path / "my-mpi.yaml", tmp_path / "obs.json"
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "mpisim", "calibrate", "--mpiexec", mpiexec,
                        "--python", python, "--out", str(out), "--observations", str(obs)],
                       capture_output=True, text=True, timeout=120)
    assert time.perf_counter() - start < 60
    assert p.returncode == 2, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("mpisim: calibrate: ") and "Traceback" not in p.stderr
    import re
    assert re.search(words, last), last
    assert not out.exists() and not obs.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted(
        ["fails", "direct", "hangs", "bare-python"])


def test_a_hanging_mpi_is_an_error_within_the_probe_timeout(tmp_path):
    """A launcher that never returns: each probe is stopped at its timeout; with nothing
    measured, calibration fails saying so (here a 1 s timeout)."""
    _scripts(tmp_path)
    launcher = Launcher(str(tmp_path / "hangs"), sys.executable, timeout=1.0)
    start = time.perf_counter()
    with pytest.raises(CalibrationError) as info:
        observe(launcher, progress=lambda _line: None)
    assert time.perf_counter() - start < 10
    assert "\n" not in str(info.value).strip()
