"""MPI_THREAD_SERIALIZED kept (MPI 4.1 §11.2.1): two threads of each rank call MPI_Barrier
three times each, one at a time under a lock, giving their turn up (time.sleep(0)) between
calls. No two calls of a rank overlap, so the run completes with no finding."""

import mpi4py

mpi4py.rc.thread_level = "serialized"

import threading  # noqa: E402
import time  # noqa: E402

from mpi4py import MPI  # noqa: E402

comm = MPI.COMM_WORLD
lock = threading.Lock()


def work():
    for _ in range(3):
        with lock:
            comm.Barrier()
        time.sleep(0)


threads = [threading.Thread(target=work) for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("ok", MPI.Query_thread())
