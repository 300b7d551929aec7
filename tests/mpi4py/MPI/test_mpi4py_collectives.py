"""The stand-in's collectives (MPI 4.1 §6) as real mpi4py scripts use them: every call, its
nonblocking form, the v and w forms, MPI.IN_PLACE, 0-d buffers, and integer arguments
converted as mpi4py converts them.

``tests/data/real/collectives.py`` checks each result against numpy itself (``ok``/``BAD``)
and prints it; the differential test runs it under the real library too (MPICH 5.0.2 when
the ``oracle`` extra is installed) and requires the same lines.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import real_mpi
from helpers.paths import DATA

import mpisim as ms

COLLECTIVES = DATA / "real" / "collectives.py"
INTEGERS = DATA / "real" / "integers.py"
CASES = len(set(re.findall(r'show\("([^"]+)"', COLLECTIVES.read_text())))
"""Lines collectives.py prints per rank: one per case (a case shown on two branches once)."""


def script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(body))
    return path


def run(path: Path, ranks: int, capsys: pytest.CaptureFixture[str]) -> list[str]:
    result = ms.run_mpi4py(path, ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return real_mpi.lines(capsys.readouterr().out)


# -- issue 27: the silent wrong answer --------------------------------------------------------
PI = """
    import numpy
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    n, rank, size = 1000, comm.Get_rank(), comm.Get_size()
    h = 1.0 / n
    s = sum(4.0 / (1.0 + (h * (i - 0.5)) ** 2) for i in range(rank + 1, n + 1, size))
    mypi = numpy.array(s * h, dtype="d")
    pi = numpy.array(0.0, dtype="d")
    comm.Reduce([mypi, MPI.DOUBLE], [pi, MPI.DOUBLE], op=MPI.SUM, root=0)
    if rank == 0:
        print(f"rank 0: pi {float(pi):.6f}")
"""


@pytest.mark.parametrize("ranks", [1, 3, 4])
def test_6_9_1_reduce_of_0d_arrays_gives_the_sum_not_zero(tmp_path, capsys, ranks):
    """6.9.1: a 0-d array is a buffer of one element; the parallel-pi program's Reduce
    gives the midpoint rule's pi (computed here), not 0."""
    n = 1000
    want = sum(4.0 / (1.0 + ((i - 0.5) / n) ** 2) for i in range(1, n + 1)) / n
    assert run(script(tmp_path, PI), ranks, capsys) == [f"rank 0: pi {want:.6f}"]


JACOBI = """
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    x = np.zeros(4)
    steps = 0
    while True:
        steps += 1
        x = 0.5 * x + 1.0          # converges to 2 on every rank, faster on higher ranks
        done = np.asarray(abs(x[0] - 2.0) < 1e-3 * (rank + 1), dtype="i")
        alldone = np.zeros((), dtype="i")
        comm.Allreduce(done, alldone, op=MPI.LAND)
        if alldone or steps > 100:
            break
    print(f"rank {rank}: steps {steps}")
"""


def test_6_9_6_allreduce_land_of_0d_ints_ends_a_convergence_loop(tmp_path, capsys):
    """6.9.6 with MPI_LAND: the loop stops once every rank has converged, i.e. at the step
    rank 0 (the strictest) reaches |x - 2| < 1e-3: 2 - x_k = 2 / 2^k, so k = 11."""
    want = next(k for k in range(1, 100) if 2.0 / 2 ** k < 1e-3)
    assert run(script(tmp_path, JACOBI), 3, capsys) == [f"rank {r}: steps {want}"
                                                       for r in range(3)]


# -- every collective ------------------------------------------------------------------------
@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
def test_every_collective_gives_numpys_answer_under_the_stand_in(capsys, ranks):
    """§6: every collective, blocking and nonblocking, plain, v and w, IN_PLACE: each line
    of the script says its result equals the definition's, computed by numpy."""
    lines = run(COLLECTIVES, ranks, capsys)
    assert len(lines) == CASES * ranks
    assert [line for line in lines if not line.endswith(" ok")] == []


@pytest.mark.real_mpi
@pytest.mark.parametrize("script, ranks", [(COLLECTIVES, 2), (COLLECTIVES, 3),
                                           (COLLECTIVES, 4), (INTEGERS, 2)])
def test_the_stand_in_agrees_with_the_real_library(script, ranks):
    """The same script under the real library prints the same lines: every collective's
    data, and what each integer argument gives (accepted, or mpi4py's exception)."""
    python = os.environ.get("MPISIM_ORACLE_PYTHON") or sys.executable
    mpiexec = Path(python).parent / "mpiexec"
    probe = subprocess.run([python, "-c", "from mpi4py import MPI; "
                            "print(MPI.Get_library_version())"], capture_output=True,
                           text=True, timeout=60, env=real_mpi.ENV) if mpiexec.exists() else None
    if probe is None or probe.returncode != 0:
        pytest.skip("no real mpi4py with mpiexec (pip install -e '.[oracle]')")
    profile = "openmpi" if "Open MPI" in probe.stdout else "mpich"
    extra = ["--oversubscribe"] if profile == "openmpi" else []
    real_outcome, real_lines = real_mpi.real(
        [str(mpiexec), *extra, "-n", str(ranks), python, str(script)], 60.0)
    sim_outcome, sim_lines = real_mpi.simulated(script, [], ranks, profile)
    assert (sim_outcome, real_outcome) == ("completed", "completed")
    assert sim_lines == real_lines


# -- integer arguments (mpi4py's conversions) --------------------------------------------------
def test_a_root_is_converted_as_mpi4py_converts_a_c_int(tmp_path, capsys):
    """mpi4py passes ``root`` to a C int through Cython, which takes numpy integers and
    bools and truncates floats (observed with mpi4py 4.1.2, facts-collectives.md); a str,
    None or an ``__index__``-only object is TypeError 'an integer is required', beyond a C
    int OverflowError."""
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        class OnlyIndex:
            def __index__(self):
                return 0
        for root in (np.int64(1), np.uint8(1), np.bool_(True), True, 1.9, np.float32(1.2)):
            got = comm.bcast(comm.rank, root=root)
            print(f"rank {comm.rank}: {type(root).__name__} -> {got}")
        for root in ("0", None, OnlyIndex(), 2**31):
            try:
                comm.bcast(0, root=root)
            except (TypeError, OverflowError) as e:
                print(f"rank {comm.rank}: {type(root).__name__} {type(e).__name__}: {e}")
    """)
    lines = run(path, 2, capsys)
    for r in (0, 1):
        for kind in ("int64", "uint8", "bool", "float", "float32"):
            assert f"rank {r}: {kind} -> 1" in lines
        assert f"rank {r}: str TypeError: an integer is required" in lines
        assert f"rank {r}: NoneType TypeError: an integer is required" in lines
        assert f"rank {r}: OnlyIndex TypeError: an integer is required" in lines
        assert f"rank {r}: int OverflowError: value too large to convert to int" in lines


def test_split_color_and_key_take_numpy_integers_and_a_bad_root_is_err_root(tmp_path, capsys):
    """6.4.2 MPI_Comm_split: color and key are C ints (numpy integers welcome); 6.4: a root
    outside the communicator is MPI_ERR_ROOT, raised as MPI.Exception on every rank."""
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        sub = comm.Split(np.int32(comm.rank % 2), np.int64(-comm.rank))
        print(f"rank {comm.rank}: sub rank {sub.rank} of {sub.size}")
        try:
            comm.bcast(1, root=np.int64(comm.size))
        except MPI.Exception as e:
            print(f"rank {comm.rank}: {e.Get_error_class() == MPI.ERR_ROOT}")
    """)
    lines = run(path, 4, capsys)
    # key -rank orders each color's members backwards: ranks 0, 2 -> sub ranks 1, 0
    assert {"rank 0: sub rank 1 of 2", "rank 2: sub rank 0 of 2", "rank 1: sub rank 1 of 2",
            "rank 3: sub rank 0 of 2"} <= set(lines)
    assert [line for line in lines if line.endswith(("True", "False"))] == [
        f"rank {r}: True" for r in range(4)]


def test_counts_in_buffer_specs_are_read_with_operator_index(tmp_path, capsys):
    """A count of a buffer spec takes numpy integers; a float or a numpy bool is mpi4py's
    TypeError "'float' object cannot be interpreted as an integer"."""
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        buf = np.arange(4, dtype="i") if comm.rank == 0 else np.zeros(4, "i")
        comm.Bcast([buf, np.int64(2), MPI.INT], root=0)
        print(f"rank {comm.rank}: {buf.tolist()}")
        for count in (2.0, np.bool_(True)):
            try:
                comm.Bcast([buf, count, MPI.INT], root=0)
            except TypeError as e:
                print(f"rank {comm.rank}: {e}")
    """)
    lines = run(path, 2, capsys)
    assert "rank 1: [0, 1, 0, 0]" in lines
    assert "rank 1: 'float' object cannot be interpreted as an integer" in lines
    assert "rank 1: 'numpy.bool' object cannot be interpreted as an integer" in lines


# -- MPI_IN_PLACE where it is not allowed -------------------------------------------------------
def test_in_place_at_a_non_root_is_err_buffer(tmp_path, capsys):
    """6.9.1: MPI_IN_PLACE is the root's option of MPI_Reduce; elsewhere it is erroneous
    (MPICH 5.0.2 hangs; mpisim says MPI_ERR_BUFFER at the call)."""
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        try:
            comm.Reduce(MPI.IN_PLACE, np.zeros(2), root=0)
        except MPI.Exception as e:
            print(f"rank {comm.rank}: {e.Get_error_class() == MPI.ERR_BUFFER}")
    """)
    result = ms.run_mpi4py(path, ranks=2)
    assert "rank 1: True" in capsys.readouterr().out
    assert result.outcome is ms.Outcome.DEADLOCK  # the root waits for rank 1's part


# -- a topology communicator's plain collectives -------------------------------------------------
def test_8_6_a_cartesian_communicators_alltoall_is_the_full_exchange(tmp_path, capsys):
    """8.6: a communicator with a topology is an intracommunicator; its MPI_Alltoall and
    MPI_Alltoallw exchange with every process (§6.8), not only with the neighbours (the
    neighbourhood collectives of §8.6 are other calls)."""
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        n = comm.size
        cart = comm.Create_cart([n], periods=[False])
        send = np.arange(n, dtype="i") + 10 * comm.rank
        recv = np.zeros(n, dtype="i")
        cart.Alltoall(send, recv)
        print(f"rank {comm.rank}: alltoall {recv.tolist()}")
        recv[:] = 0
        size = MPI.INT.Get_size()
        displs = [k * size for k in range(n)]
        cart.Alltoallw([send, [1] * n, displs, [MPI.INT] * n],
                       [recv, [1] * n, displs, [MPI.INT] * n])
        print(f"rank {comm.rank}: alltoallw {recv.tolist()}")
    """)
    lines = run(path, 4, capsys)
    for rank in range(4):
        full = [rank + 10 * k for k in range(4)]
        assert f"rank {rank}: alltoall {full}" in lines
        assert f"rank {rank}: alltoallw {full}" in lines
