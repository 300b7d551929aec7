"""MPI_Comm_create over an intercommunicator (MPI 4.1 §7.4.2): "the output communicator is
also an intercommunicator where the local group consists only of those processes contained
in group"; MPI_COMM_NULL for the others, and for all when either side's group is empty.
MPICH's test harness makes one in MTestGetIntercomm, so a recording of its tests needs it."""

from __future__ import annotations

import subprocess
import sys

import mpisim as ms

SCRIPT = """\
from mpi4py import MPI
world = MPI.COMM_WORLD
low = world.rank < 2
half = world.Split(0 if low else 1, world.rank)
inter = half.Create_intercomm(0, world, 2 if low else 0, tag=1)
group = inter.Get_group()
keep = group if low else group.Excl([inter.Get_size() - 1])
sub = inter.Create(keep)
if sub == MPI.COMM_NULL:
    print(world.rank, "null")
else:
    print(world.rank, sub.Is_inter(), sub.Get_size(), sub.Get_remote_size(),
          sub.allreduce(world.rank))
"""
MPICH = ["0 True 2 2 5", "1 True 2 2 5", "2 True 2 2 1", "3 True 2 2 1", "4 null"]
"""What SCRIPT prints on 5 processes under mpi4py 4.1.2 and MPICH 5.0.2 (sorted)."""


def halves(mpi):
    low = mpi.rank < 2
    half = yield mpi.comm_split(0 if low else 1, mpi.rank)
    inter = yield mpi.intercomm_create(half, 0, None, 2 if low else 0, tag=1)
    return low, inter


def test_7_4_2_comm_create_on_an_intercommunicator_joins_the_two_subgroups():
    def program(mpi):
        low, inter = yield from halves(mpi)
        group = mpi.comm_group(inter)
        keep = group if low else mpi.group_excl(group, [mpi.comm_size(inter) - 1])
        sub = yield mpi.comm_create(keep, comm=inter)
        if sub is None:
            return None
        total = yield mpi.allreduce(mpi.rank, comm=sub)  # the other side's ranks
        return mpi.comm_test_inter(sub), mpi.comm_size(sub), mpi.comm_remote_size(sub), total

    result = ms.run(program, ranks=5)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.returned == [(True, 2, 2, 5), (True, 2, 2, 5), (True, 2, 2, 1),
                               (True, 2, 2, 1), None]


def test_7_4_2_an_empty_group_on_either_side_gives_comm_null_to_all():
    def program(mpi):
        low, inter = yield from halves(mpi)
        group = mpi.comm_group(inter)
        keep = group if low else mpi.group_excl(group, list(range(mpi.comm_size(inter))))
        return (yield mpi.comm_create(keep, comm=inter))

    result = ms.run(program, ranks=4)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert result.returned == [None] * 4


def test_7_4_2_a_group_outside_the_local_group_is_mpi_err_group():
    def program(mpi):
        _low, inter = yield from halves(mpi)
        remote = mpi.comm_remote_group(inter)
        try:
            yield mpi.comm_create(remote, comm=inter)
        except ms.MPIError as e:
            return e.error_class

    result = ms.run(program, ranks=4)
    assert result.returned == ["MPI_ERR_GROUP"] * 4


def test_the_stand_ins_intercomm_create_prints_what_mpich_prints(tmp_path):
    script = tmp_path / "intercomm_create.py"
    script.write_text(SCRIPT)
    run = subprocess.run([sys.executable, "-m", "mpisim", "mpi4py", "-n", "5", str(script)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert sorted(run.stdout.splitlines()) == MPICH
