"""A script's ``time.sleep`` under the mpi4py stand-in: simulated time outside MPI on the
rank that sleeps (as ``mpi.compute``), real everywhere else."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mpisim as ms
from mpisim.mpi4py.run.clock import sleep as script_sleep


def script(tmp_path: Path, body: str, name: str = "prog.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def printed(capsys: pytest.CaptureFixture[str]) -> dict[int, str]:
    out = capsys.readouterr().out
    return {int(line.split(":")[0].split()[1]): line.split(": ", 1)[1]
            for line in out.splitlines() if line.startswith("rank ")}


@given(st.lists(st.floats(min_value=0, max_value=1e3, allow_subnormal=False), max_size=5))
def test_sleeps_advance_wtime_by_exactly_their_sum(tmp_path_factory, seconds):
    """MPI.Wtime (8.6) after sleeping s1, s2... is the sum of the sleeps, the wall clock not
    having waited for them."""
    path = script(tmp_path_factory.mktemp("sleep"), f"""
        import time
        from time import sleep
        from mpi4py import MPI
        for i, s in enumerate({seconds!r}):
            (sleep if i % 2 else time.sleep)(s)
        assert MPI.Wtime() == sum({seconds!r}), (MPI.Wtime(), {seconds!r})
    """)
    wall = time.perf_counter()
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.sim_time == sum(seconds)
    assert time.perf_counter() - wall < 5


SLEEPING_RECEIVER = """
    import sys
    import time
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    n = int(sys.argv[1])
    data = np.zeros(n, dtype=np.uint8)
    if comm.rank == 0:
        t0 = MPI.Wtime()
        comm.Send([data, MPI.BYTE], dest=1)
        print(f"rank 0: send returned after {MPI.Wtime() - t0!r}")
    else:
        time.sleep(0.5)
        t0 = MPI.Wtime()
        comm.Recv([data, MPI.BYTE], source=0)
        print(f"rank 1: woke at {t0!r}")
"""


def test_a_sleeping_receiver_makes_a_rendezvous_send_wait_that_long(tmp_path, capsys):
    """3.4: a standard send above the eager limit completes only once the receive is posted:
    a receiver that sleeps 0.5 s first keeps the sender in MPI_Send for 0.5 s (plus the
    handshake and the transfer); below the limit the send returns at once."""
    path = script(tmp_path, SLEEPING_RECEIVER)
    net = {"eager_limit": 4096, "latency": 1e-6, "bandwidth": 1e9}
    result = ms.run_mpi4py(path, ranks=2, args=["100000"], network=net)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    lines = printed(capsys)
    assert lines[1] == "woke at 0.5"
    waited = float(lines[0].split()[-1])
    assert 0.5 < waited < 0.5 + 1e-3
    ms.run_mpi4py(path, ranks=2, args=["100"], network=net)
    assert float(printed(capsys)[0].split()[-1]) < 1e-5


def test_sleep_outside_the_run_is_real_and_time_is_never_patched(tmp_path):
    """Only the script sees the simulated sleep: after the run ``sys.modules['time']`` is the
    real module with the real sleep, and the script's sleep, called outside a simulated rank
    (a function it left behind), sleeps for real."""
    path = script(tmp_path, """
        import builtins
        import time
        from mpi4py import MPI
        builtins._mpisim_test_kept_sleep = time.sleep
        time.sleep(3600)
    """)
    real_time = sys.modules["time"]
    real_sleep = time.sleep
    try:
        wall = time.perf_counter()
        result = ms.run_mpi4py(path, ranks=2)
        assert result.outcome is ms.Outcome.COMPLETED and result.sim_time == 3600
        assert time.perf_counter() - wall < 60
        assert sys.modules["time"] is real_time and real_time.sleep is real_sleep
        kept = __import__("builtins")._mpisim_test_kept_sleep
        assert kept is script_sleep
        wall = time.perf_counter()
        kept(0.05)
        assert time.perf_counter() - wall >= 0.05
    finally:
        del __import__("builtins")._mpisim_test_kept_sleep


@pytest.mark.parametrize(("value", "error"), [
    ("-1", "ValueError: sleep length must be non-negative"), ("'1'", "TypeError"),
    ("float('nan')", "ValueError: Invalid value NaN"), ("float('inf')", "OverflowError"),
    ("1e300", "OverflowError"), ("10**30", "OverflowError")])
def test_bad_sleep_lengths_raise_as_the_real_sleep(tmp_path, capsys, value, error):
    """A length the real time.sleep refuses raises the same error in the script."""
    path = script(tmp_path, f"""
        import time
        try:
            time.sleep({value})
        except Exception as e:
            print(f"rank 0: {{type(e).__name__}}: {{e}}")
    """)
    try:
        real_sleep = time.sleep
        real_sleep(eval(value))
    except Exception as e:
        expected = f"{type(e).__name__}: {e}"
    assert expected.startswith(error)
    ms.run_mpi4py(path, ranks=1)
    assert printed(capsys)[0] == expected
