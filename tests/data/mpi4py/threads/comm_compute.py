"""A communication thread beside compute threads (MPI_THREAD_MULTIPLE, MPI 4.1 §11.6).

Each rank starts three compute threads, which sleep 10, 20 and 30 ms and put their part
((rank + 1) * (i + 1)) in a queue, and a communication thread, which takes the three parts,
sums them and exchanges the sum with the other rank. Rank 0 sends 6 and gets 12; rank 1
sends 12 and gets 6. Run it on 2 ranks; comm_compute.txt beside it is what mpi4py 4.1.2
prints on MPICH 5.0.2 (its lines sorted).
"""

import queue
import threading
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
peer = 1 - rank
parts = queue.Queue()
seen = {}


def compute(i):
    time.sleep(0.01 * (i + 1))
    parts.put((i, (rank + 1) * (i + 1)))


def communicate():
    got = sorted(parts.get() for _ in range(3))
    total = sum(value for _, value in got)
    seen["sent"] = total
    seen["got"] = comm.sendrecv(total, dest=peer, sendtag=7, source=peer, recvtag=7)
    seen["comm is main"] = MPI.Is_thread_main()
    seen["comm name"] = threading.current_thread().name


threads = [threading.Thread(target=compute, args=(i,)) for i in range(3)]
threads.append(threading.Thread(target=communicate, name="comm"))
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"rank {rank}: level {MPI.Query_thread()} main {MPI.Is_thread_main()} "
      f"threads after {threading.active_count()} sent {seen['sent']} "
      f"got {seen['got']} comm thread {seen['comm name']} main {seen['comm is main']} "
      f"names {[t.name for t in threads]}", flush=True)
if len(__import__("sys").argv) > 1:
    print(f"rank {rank}: end {MPI.Wtime():.6f}", flush=True)
