"""Puts, gets and accumulates in the three kinds of epoch; each rank prints what its window
holds and what its gets and fetches brought back (the differential test compares them with
the real library's).

    mpiexec -n N python epochs.py MODE     (MODE: fence | pscw | lock | lock_all)
"""

import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
mode = sys.argv[1]
right, left = (rank + 1) % size, (rank - 1) % size
mem = np.zeros(8)
win = MPI.Win.Create(mem, 8, MPI.INFO_NULL, comm)
got = np.full(2, -1.0)
old = np.full(1, -1.0)
group = win.Get_group()


def operations():
    """Each rank puts to its right and adds to rank 0's slot 6."""
    win.Put(np.array([rank + 1.0, rank + 2.0]), right, 1)
    win.Accumulate(np.array([10.0 ** rank]), 0, 6, MPI.SUM)


def reads():
    """Each rank gets from its left and fetches-and-adds to its left's slot 7."""
    win.Get(got, left, 1)
    win.Fetch_and_op(np.array([rank + 1.0]), old, left, 7, MPI.SUM)


# who accesses whom: the groups of post (the origins that access this rank) and start
exposure = sorted({left, right} | (set(range(size)) if rank == 0 else set()))
access = sorted({left, right, 0})


if mode == "fence":
    win.Fence()
    operations()
    win.Fence()
    reads()
    win.Fence()
elif mode == "pscw":
    for step in (operations, reads):
        win.Post(group.Incl(exposure))
        win.Start(group.Incl(access))
        step()
        win.Complete()
        win.Wait()
elif mode in ("lock", "lock_all"):
    for step in (operations, reads):
        if mode == "lock_all":
            win.Lock_all()
            step()
            win.Unlock_all()
        else:
            for target in access:
                win.Lock(target, MPI.LOCK_SHARED)
            step()
            for target in access:
                win.Unlock(target)
        comm.Barrier()
comm.Barrier()
print(f"rank {rank}: window {mem.tolist()} got {got.tolist()} fetched {old.tolist()}",
      flush=True)
win.Free()
