"""Held-out: wrap-around and holes. Rank 0 attaches room for three entries as the
standard advises (3 * (M + MPI.BSEND_OVERHEAD)) and bsends three messages of M bytes that
stay pending; rank 1 receives the one named WHICH (0: the head, 1: the middle, 2: the
last); then rank 0 tries two more bsends of M bytes. Each bsend on its own communicator.
Rank 1 sleeps SLEEP seconds before it receives the rest; rank 0 says which of its calls
after the receive waited.

    python wrap.py M WHICH SLEEP
"""

import sys
import time

from mpi4py import MPI
from timing import Timer

m, which, sleep = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
timer = Timer(sleep)
world = MPI.COMM_WORLD
rank = world.Get_rank()
comms = [world.Dup() for _ in range(5)]
buf = bytearray(m)
if rank == 0:
    MPI.Attach_buffer(bytearray(3 * (m + MPI.BSEND_OVERHEAD)))
    for c in comms[:3]:
        c.Bsend([buf, MPI.BYTE], dest=1, tag=1)
    world.send(None, dest=1, tag=7)
    world.recv(source=1, tag=8)  # rank 1 has received entry WHICH
    time.sleep(sleep / 10)  # the sleeper is surely asleep: no race with its leaving MPI
    more = []
    for c in comms[3:]:
        try:
            timer(f"bsend {3 + len(more)}", c.Bsend, [buf, MPI.BYTE], dest=1, tag=1)
            more.append("ok")
        except MPI.Exception:
            more.append("MPI_ERR_BUFFER")
            break
    timer("send", world.send, more.count("ok"), dest=1, tag=9)
    timer("detach", MPI.Detach_buffer)
    print(f"rank 0: after receiving entry {which}: {' '.join(more)}; {timer.line()}",
          flush=True)
else:
    world.recv(source=0, tag=7)
    comms[which].Recv([buf, MPI.BYTE], source=0, tag=1)
    world.send(None, dest=0, tag=8)
    time.sleep(sleep)
    extra = world.recv(source=0, tag=9)
    for i in [i for i in range(3) if i != which] + [3, 4][:extra]:
        comms[i].Recv([buf, MPI.BYTE], source=0, tag=1)
    print("rank 1: received all", flush=True)
