"""Held-out: an overflow burst. Rank 0 attaches ATTACH bytes and bsends up to COUNT
messages of M bytes to rank 1, which receives none until rank 0 is done; each bsend on its
own communicator (a library may stall a pair's communicator after a failed bsend).

    python burst.py M COUNT ATTACH
"""

import sys

from mpi4py import MPI

m, count, attach = (int(a) for a in sys.argv[1:4])
world = MPI.COMM_WORLD
rank = world.Get_rank()
comms = [world.Dup() for _ in range(count)]
buf = bytearray(m)
if rank == 0:
    MPI.Attach_buffer(bytearray(attach))
    accepted, error = 0, "none"
    for c in comms:
        try:
            c.Bsend([buf, MPI.BYTE], dest=1, tag=1)
        except MPI.Exception as e:
            error = "MPI_ERR_BUFFER" if e.Get_error_class() == MPI.ERR_BUFFER else "other"
            break
        accepted += 1
    print(f"rank 0: accepted {accepted} of {count}, then {error}", flush=True)
    world.send(accepted, dest=1, tag=7)
    MPI.Detach_buffer()
else:
    accepted = world.recv(source=0, tag=7)
    for c in comms[:accepted]:
        c.Recv([buf, MPI.BYTE], source=0, tag=1)
    print(f"rank 1: received {accepted}", flush=True)
