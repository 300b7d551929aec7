"""Two threads take two locks in opposite orders, giving their turn up (time.sleep(0))
between the two: in the simulator's own order each takes its first lock, then waits for
the other's (a deadlock); in another thread order (seed 1) one takes both before the
other starts, and the script completes. Run it on 1 rank."""

import threading
import time

from mpi4py import MPI

a, b = threading.Lock(), threading.Lock()


def one():
    with a:
        time.sleep(0)
        with b:
            pass


def two():
    with b:
        time.sleep(0)
        with a:
            pass


threads = [threading.Thread(target=one, name="one"),
           threading.Thread(target=two, name="two")]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("done", MPI.COMM_WORLD.rank)
