"""Two threads probe, then receive (MPI 4.1 §11.6.2, §3.8.2): rank 0 sends 10 ints, then
20, with one tag; two threads of rank 1 each probe a message, size a buffer by it and
receive. With MPI_Probe and MPI_Recv both threads can probe the first message, and one of
them then receives the 20 ints into 10: MPI_ERR_TRUNCATE. With the argument ``matched``
they use MPI_Mprobe and MPI_Mrecv: the probe takes the message, and both receive in full,
printing [10, 20] (matched_race.txt beside this file is what MPICH 5.0.2 prints)."""

import sys
import threading

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
matched = sys.argv[1:] == ["matched"]
if comm.rank == 0:
    comm.Send(np.zeros(10, "i"), dest=1, tag=0)
    comm.Send(np.zeros(20, "i"), dest=1, tag=0)
else:
    got = []

    def receive():
        status = MPI.Status()
        if matched:
            message = comm.Mprobe(source=0, tag=0, status=status)
            buf = np.empty(status.Get_count(MPI.INT), "i")
            message.Recv(buf)
        else:
            comm.Probe(source=0, tag=0, status=status)
            buf = np.empty(status.Get_count(MPI.INT), "i")
            comm.Recv(buf, source=0, tag=0)
        got.append(len(buf))

    threads = [threading.Thread(target=receive) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(sorted(got))
