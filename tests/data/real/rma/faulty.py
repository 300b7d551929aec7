"""Faulty one-sided programs (MPI 4.1 §12.5): what the real library does with each.

    mpiexec -n N python faulty.py CASE

- ``missing_fence``: rank 1 never makes the fence that closes rank 0's put (hangs);
- ``unreleased_lock`` (3 ranks): rank 0 locks rank 1 and never unlocks; rank 2 then locks
  it to put (hangs: in MPI_Win_lock under MPICH, in MPI_Win_unlock under Open MPI, whose lock
  is asked with the put);
- ``no_epoch``: a put outside any epoch (MPI_ERR_RMA_SYNC, caught and printed);
- ``missing_post``: rank 0 starts an access epoch to rank 1, which never posts (hangs);
- ``missing_complete``: rank 1 waits for rank 0, which started and never completed (hangs).
"""

import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
case = sys.argv[1]
mem = np.zeros(4)
win = MPI.Win.Create(mem, 8, MPI.INFO_NULL, comm)
group = win.Get_group()


def error_name(e):
    return next(n for n in dir(MPI) if n.startswith("ERR_") and getattr(MPI, n)
                == e.Get_error_class() and n != "ERR_LASTCODE")


if case == "missing_fence":
    win.Fence()
    if rank == 0:
        win.Put(np.ones(4), 1)
        win.Fence()
elif case == "unreleased_lock":
    if rank == 0:
        win.Lock(1, MPI.LOCK_EXCLUSIVE)
        win.Put(np.ones(4), 1)
        win.Flush(1)
    comm.Barrier()
    if rank == 2:
        win.Lock(1, MPI.LOCK_EXCLUSIVE)
        win.Put(np.full(4, 2.0), 1)
        win.Unlock(1)
    comm.Barrier()
elif case == "no_epoch":
    try:
        win.Put(np.ones(4), 1 - rank)
        print(f"rank {rank}: the put returned", flush=True)
    except MPI.Exception as e:
        print(f"rank {rank}: {error_name(e)}", flush=True)
elif case == "missing_post":
    if rank == 0:
        win.Start(group.Incl([1]))
        win.Put(np.ones(4), 1)
        win.Complete()
elif case == "missing_complete":
    if rank == 0:
        win.Start(group.Incl([1]))
        comm.Barrier()
    else:
        win.Post(group.Incl([0]))
        win.Wait()
        comm.Barrier()
win.Free()
print(f"rank {rank}: done", flush=True)
