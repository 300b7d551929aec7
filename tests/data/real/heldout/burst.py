"""Held-out: an overflow burst. Rank 0 attaches ATTACH bytes and bsends up to COUNT
messages of M bytes to rank 1, which receives none until rank 0 is done; each bsend on its
own communicator (a library may stall a pair's communicator after a failed bsend). Rank 1
sleeps SLEEP seconds first; rank 0 says which of its calls waited.

    python burst.py M COUNT ATTACH SLEEP
"""

import sys
import time

from mpi4py import MPI
from timing import Timer

m, count, attach = (int(a) for a in sys.argv[1:4])
sleep = float(sys.argv[4])
timer = Timer(sleep)
world = MPI.COMM_WORLD
rank = world.Get_rank()
comms = [world.Dup() for _ in range(count)]
buf = bytearray(m)
world.Barrier()
if rank == 0:
    time.sleep(sleep / 10)  # the sleeper is surely asleep: no race with its leaving MPI
    MPI.Attach_buffer(bytearray(attach))
    accepted, error = 0, "none"
    for c in comms:
        try:
            timer(f"bsend {accepted}", c.Bsend, [buf, MPI.BYTE], dest=1, tag=1)
        except MPI.Exception as e:
            error = "MPI_ERR_BUFFER" if e.Get_error_class() == MPI.ERR_BUFFER else "other"
            break
        accepted += 1
    timer("send", world.send, accepted, dest=1, tag=7)
    timer("detach", MPI.Detach_buffer)
    print(f"rank 0: accepted {accepted} of {count}, then {error}; {timer.line()}", flush=True)
else:
    time.sleep(sleep)
    accepted = world.recv(source=0, tag=7)
    for c in comms[:accepted]:
        c.Recv([buf, MPI.BYTE], source=0, tag=1)
    print(f"rank 1: received {accepted}", flush=True)
