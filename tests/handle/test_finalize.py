"""MPI_Finalize at the end of a rank's program, however the program is written: collective
over all processes (MPI 4.1 §11.2.2), so a rank that has finalized while another is blocked
forever is named in the deadlock, waiting in MPI_Finalize for it; a profile whose
``finalize`` is ``local`` lets it go. A completed run is unchanged: each rank's
``end_time`` is when its own program and buffered messages were done."""

from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import real_mpi

import mpisim as ms
from mpisim.profiles.library import get_profile
from mpisim.scenario import load


def _wrong_tag(mpi):
    if mpi.rank == 0:
        yield mpi.send(count=1, datatype=ms.INT, dest=1, tag=0)
    else:
        yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=1)


def _blocked(result: ms.Result) -> list[tuple[int, str, list[int]]]:
    return [(b.rank, b.call, b.waits_for) for b in result.deadlock.blocked]


def test_11_2_2_a_finalized_rank_waits_for_a_blocked_one_and_both_are_named():
    result = ms.run(_wrong_tag, ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK
    assert _blocked(result) == [(1, "MPI_Recv", [0]), (0, "MPI_Finalize", [1])]
    finalize = result.deadlock.blocked[1]
    assert "collective over all processes (MPI 4.1 §11.2.2)" in finalize.reason
    assert result.deadlock.cycles == [[0, 1]]
    text = result.report()
    assert "2 ranks blocked forever" in text and "rank 0: MPI_Finalize()" in text


def test_11_2_2_every_finalized_rank_waits_for_every_rank_that_never_gets_there():
    def program(mpi):
        if mpi.rank == 2:
            yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=0)

    result = ms.run(program, ranks=4)
    assert _blocked(result) == [(2, "MPI_Recv", [0]), (0, "MPI_Finalize", [2]),
                                (1, "MPI_Finalize", [2]), (3, "MPI_Finalize", [2])]
    assert result.deadlock.cycles == [[0, 2]]


def test_a_local_finalize_profile_names_only_the_blocked_rank():
    local = replace(get_profile("standard"), name="local-finalize", finalize="local")
    result = ms.run(_wrong_tag, ranks=2, mpi={"profile": local})
    assert result.outcome is ms.Outcome.DEADLOCK
    assert _blocked(result) == [(1, "MPI_Recv", [0])]


@pytest.mark.parametrize("profile", ["standard", "mpich-5.0", "openmpi-5.0", "mpich-4.0",
                                     "openmpi-4.1"])
def test_every_built_in_profile_finalizes_collectively(profile):
    """Measured on MPICH 5.0.2 and Open MPI 5.0.11 (tests/data/deadlock_c/finalize_recv.c):
    a process in MPI_Finalize does not return while another never calls it."""
    assert get_profile(profile).finalize == "collective"


def test_a_completed_run_keeps_each_ranks_own_end_time():
    """Nothing waits on a finished rank: its end_time is when its program ended."""
    def program(mpi):
        yield mpi.compute(f"{mpi.rank + 1}us")

    result = ms.run(program, ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED
    assert [r.end_time for r in result.ranks] == pytest.approx([1e-6, 2e-6, 3e-6])
    assert all(r.finished for r in result.ranks)


def test_a_scenario_rank_without_ops_waits_in_mpi_finalize(tmp_path):
    path = tmp_path / "finalize.yaml"
    path.write_text(textwrap.dedent("""\
        name: finalize-vs-recv
        ranks: 2
        programs:
          - ranks: 1
            ops:
              - recv: {source: 0, count: 1, datatype: INT, tag: 1}
        """))
    result = load(path).run()
    assert result.outcome is ms.Outcome.DEADLOCK
    assert _blocked(result) == [(1, "MPI_Recv", [0]), (0, "MPI_Finalize", [1])]


def test_an_mpi4py_script_whose_rank_ends_waits_in_mpi_finalize(tmp_path):
    script = tmp_path / "wrong_tag.py"
    script.write_text(textwrap.dedent("""\
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.send(1, dest=1, tag=0)
        else:
            comm.recv(source=0, tag=1)
        """))
    result = ms.run_mpi4py(script, ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK
    assert _blocked(result) == [(1, "MPI_Recv", [0]), (0, "MPI_Finalize", [1])]


def test_the_wait_for_graph_through_mpi_finalize_keeps_its_cycles_and_knots():
    """Rank 0 in MPI_Finalize waits for ranks 1-3 (AND): the cycle 0 -> 1 -> 0 through it,
    2 <-> 3 without it; only {2, 3} is a knot (rank 0 also waits for 2 and 3, outside
    {0, 1})."""
    def program(mpi):
        if mpi.rank == 1:
            yield mpi.recv(count=1, datatype=ms.INT, source=0, tag=0)
        elif mpi.rank in (2, 3):
            yield mpi.recv(count=1, datatype=ms.INT, source=5 - mpi.rank, tag=0)

    result = ms.run(program, ranks=4)
    assert _blocked(result)[-1] == (0, "MPI_Finalize", [1, 2, 3])
    assert result.deadlock.cycles == [[0, 1], [2, 3]]
    assert result.deadlock.knots == [[2, 3]]


# -- the libraries observed (a real MPI) ------------------------------------------------------
WAITS_IN_FINALIZE = textwrap.dedent("""\
    import sys
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    if comm.rank == 1:
        comm.recv(source=0, tag=99)  # never sent: rank 1 never reaches MPI_Finalize
    print(f"rank {comm.rank}: finalizing", flush=True)
    MPI.Finalize()
    print(f"rank {comm.rank}: returned from MPI_Finalize", flush=True)
    """)


@pytest.mark.real_mpi
@pytest.mark.parametrize("env, flags, profile", [
    ("MPISIM_ORACLE_PYTHON", [], "mpich-5.0"),
    ("MPISIM_ORACLE_OMPI_PYTHON", ["--allow-run-as-root", "--oversubscribe"], "openmpi-5.0")],
    ids=["mpich", "openmpi"])
def test_11_2_2_the_library_keeps_a_process_in_mpi_finalize_as_its_profile_says(
        env, flags, profile, tmp_path):
    """MPICH 5.0.2 and Open MPI 5.0.11: rank 0 enters MPI_Finalize and does not return
    while rank 1 waits forever in a receive (the job is stopped after 5 s), as their
    profiles' ``finalize: collective`` has it; mpisim's run of the script names both."""
    python = os.environ.get(env) or (sys.executable if env == "MPISIM_ORACLE_PYTHON" else "")
    mpiexec = Path(python).parent / "mpiexec" if python else None
    if mpiexec is None or not mpiexec.exists():
        pytest.skip(f"no real MPI: set {env} to a Python with mpi4py and mpiexec beside it")
    script = tmp_path / "finalize.py"
    script.write_text(WAITS_IN_FINALIZE)
    outcome, lines = real_mpi.real([str(mpiexec), *flags, "-n", "2", python, str(script)], 5.0)
    if not any("finalizing" in line for line in lines):
        pytest.skip(f"the library printed nothing ({outcome})")
    library = real_mpi.oracle()
    if env == "MPISIM_ORACLE_PYTHON" and (library is None or library[2] != "mpich"):
        pytest.skip("MPISIM_ORACLE_PYTHON is not MPICH")
    assert outcome == "deadlock"
    assert lines == ["rank 0: finalizing"]
    assert get_profile(profile).finalize == "collective"
    result = ms.run_mpi4py(script, ranks=2, mpi={"profile": profile})
    assert _blocked(result)[-1] == (0, "MPI_Finalize", [1])
