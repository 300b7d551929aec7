"""A lock-order deadlock between two threads that also wait in MPI (run on 2 ranks).

On rank 0, thread "alpha" takes lock a, then receives from rank 1, then wants lock b;
thread "beta" takes lock b, sends to rank 1, then wants lock a. Rank 1 receives beta's
message and only then sends alpha's. So alpha holds a and waits for b, which beta holds
while it waits for a: neither ever goes on (a real run hangs here).
"""

import threading

from mpi4py import MPI

comm = MPI.COMM_WORLD
a, b = threading.Lock(), threading.Lock()


def alpha():
    with a:
        comm.recv(source=1, tag=1)
        with b:
            pass


def beta():
    with b:
        comm.send("to 1", dest=1, tag=2)
        with a:
            pass


if comm.Get_rank() == 0:
    threads = [threading.Thread(target=alpha, name="alpha"),
               threading.Thread(target=beta, name="beta")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
else:
    comm.recv(source=0, tag=2)
    comm.send("to 0", dest=0, tag=1)
