"""Which error class each faulty RMA call raises: one case per run, rank 0 prints it.

    mpiexec -n 2 python errors.py CASE [create|allocate]

The window holds 4 doubles on each rank; ``rank 0: <what>: <error class name or ok>``.
"""

import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
case = sys.argv[1]
flavor = sys.argv[2] if len(sys.argv) > 2 else "create"
if flavor == "create":
    win = MPI.Win.Create(np.zeros(4), 8, MPI.INFO_NULL, comm)
else:
    win = MPI.Win.Allocate(32, 8, MPI.INFO_NULL, comm)
src = np.ones(1)
other = 1 - rank


def name(e):
    return next(n for n in dir(MPI) if n.startswith("ERR_") and n != "ERR_LASTCODE"
                and getattr(MPI, n) == e.Get_error_class())


def attempt(label, fn):
    try:
        fn()
        return f"{label}: ok"
    except MPI.Exception as e:
        return f"{label}: {name(e)}"


out = []
if case == "put_no_epoch":
    out.append(attempt("Put outside any epoch", lambda: win.Put(src, other)))
elif case == "get_no_epoch":
    out.append(attempt("Get outside any epoch", lambda: win.Get(src, other)))
elif case == "acc_no_epoch":
    out.append(attempt("Accumulate outside any epoch", lambda: win.Accumulate(src, other)))
elif case == "unlock_unlocked":
    out.append(attempt("Unlock without Lock", lambda: win.Unlock(other)))
elif case == "flush_unlocked":
    out.append(attempt("Flush without Lock", lambda: win.Flush(other)))
elif case == "complete_unstarted":
    out.append(attempt("Complete without Start", win.Complete))
elif case == "wait_unposted":
    out.append(attempt("Wait without Post", win.Wait))
elif case == "lock_twice":  # Open MPI hangs here
    win.Lock(rank)
    out.append(attempt("Lock the same target twice", lambda: win.Lock(rank)))
    win.Unlock(rank)
elif case == "range":
    win.Lock(other)
    out.append(attempt("Put at disp 4", lambda: win.Put(src, other, 4)))
    out.append(attempt("Put at disp 3", lambda: win.Put(src, other, 3)))
    out.append(attempt("Put 2 doubles at disp 3", lambda: win.Put(np.ones(2), other, 3)))
    win.Unlock(other)
elif case == "lock_after_fence":
    win.Fence()
    out.append(attempt("Lock after Fence", lambda: win.Lock(other)))
    win.Unlock(other)
elif case == "lock_in_fence_epoch":
    win.Fence()
    win.Put(src, other)
    out.append(attempt("Lock after Fence and Put", lambda: win.Lock(other)))
    win.Fence()
elif case == "put_after_unlock_after_fence":
    win.Fence()
    win.Lock(other)
    win.Unlock(other)
    out.append(attempt("Put after Fence, Lock, Unlock", lambda: win.Put(src, other)))
    win.Fence()
elif case == "start_in_lock":
    win.Lock(rank)
    out.append(attempt("Start inside a lock epoch",
                       lambda: win.Start(win.Get_group().Incl([other]))))
    win.Unlock(rank)
elif case == "sync_outside":
    out.append(attempt("Sync outside any epoch", win.Sync))
elif case == "put_after_nosucceed":
    win.Fence()
    win.Fence(MPI.MODE_NOSUCCEED)
    out.append(attempt("Put after Fence(NOSUCCEED)", lambda: win.Put(src, other)))
elif case == "lock_all_then_lock":
    win.Lock_all()
    out.append(attempt("Lock inside Lock_all", lambda: win.Lock(other)))
    win.Unlock_all()
elif case == "flush_in_fence":
    win.Fence()
    out.append(attempt("Flush in a fence epoch", lambda: win.Flush(other)))
    win.Fence()
elif case == "free_locked":
    win.Lock(rank)
    out.append(attempt("Free inside a lock epoch", win.Free))
if rank == 0:
    print(f"rank 0: {'; '.join(out)}", flush=True)
comm.Barrier()
