"""Which call waits for a target that computes outside MPI (the evidence of the profiles'
``rma_lock``, ``rma_progress`` and ``rma_lock_progress``; docs/guide/facts-rma.md).

    mpiexec -n 2 python sleeping_target.py SCENARIO FLAVOR

Rank 1 (the target) sleeps SLEEP seconds outside MPI after a barrier; rank 0 times each of
its calls and prints ``rank 0: <call> <seconds>, ...``. FLAVOR is ``create`` (MPI_Win_create
over a numpy array) or ``allocate`` (MPI_Win_allocate). Run under mpisim with
``mpisim mpi4py -n 2 --set mpi.profile=mpich-5.0 sleeping_target.py ...``: time.sleep is
simulated there, so the same lines come out in simulated seconds.
"""

import sys
import time

import numpy as np
from mpi4py import MPI

SLEEP = 0.5
SCENARIOS = ("lock_put", "lock_shared_put", "lock_get", "lock_acc", "lock_all_put",
             "lock_put_flush", "lock_put_flush_local", "lock_nocheck_put", "lock_only",
             "fence_put", "pscw_late_post", "pscw_sleep_after_post")

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
scenario, flavor = sys.argv[1], sys.argv[2]
if flavor == "create":
    mem = np.zeros(1)
    win = MPI.Win.Create(mem, 8, MPI.INFO_NULL, comm)
else:
    win = MPI.Win.Allocate(8, 8, MPI.INFO_NULL, comm)
src = np.full(1, 7.0)
times = []


def timed(name, fn, *args):
    t0 = MPI.Wtime()
    fn(*args)
    times.append(f"{name} {MPI.Wtime() - t0:.2f}")


comm.Barrier()
if scenario.startswith("lock"):
    if rank == 1:
        time.sleep(SLEEP)
    else:
        kind = MPI.LOCK_SHARED if scenario == "lock_shared_put" else MPI.LOCK_EXCLUSIVE
        if scenario == "lock_all_put":
            timed("Lock_all", win.Lock_all)
        elif scenario == "lock_nocheck_put":
            timed("Lock", win.Lock, 1, kind, MPI.MODE_NOCHECK)
        else:
            timed("Lock", win.Lock, 1, kind)
        if scenario == "lock_get":
            timed("Get", win.Get, np.zeros(1), 1)
        elif scenario == "lock_acc":
            timed("Accumulate", win.Accumulate, src, 1)
        elif scenario != "lock_only":
            timed("Put", win.Put, src, 1)
        if scenario == "lock_put_flush":
            timed("Flush", win.Flush, 1)
        if scenario == "lock_put_flush_local":
            timed("Flush_local", win.Flush_local, 1)
        timed("Unlock_all" if scenario == "lock_all_put" else "Unlock",
              win.Unlock_all if scenario == "lock_all_put" else lambda: win.Unlock(1))
    comm.Barrier()
elif scenario == "fence_put":
    win.Fence()
    if rank == 1:
        time.sleep(SLEEP)
        win.Fence()
    else:
        timed("Put", win.Put, src, 1)
        timed("Fence", win.Fence)
elif scenario == "pscw_late_post":
    group = win.Get_group()
    if rank == 1:
        time.sleep(SLEEP)
        win.Post(group.Incl([0]))
        win.Wait()
    else:
        timed("Start", win.Start, group.Incl([1]))
        timed("Put", win.Put, src, 1)
        timed("Complete", win.Complete)
elif scenario == "pscw_sleep_after_post":
    group = win.Get_group()
    if rank == 1:
        win.Post(group.Incl([0]))
        time.sleep(SLEEP)
        win.Wait()
    else:
        timed("Start", win.Start, group.Incl([1]))
        timed("Put", win.Put, src, 1)
        timed("Complete", win.Complete)
comm.Barrier()
if rank == 0:
    print(f"rank 0: {', '.join(times)}", flush=True)
win.Free()
