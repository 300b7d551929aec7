"""An MPI call from a second thread under MPI_THREAD_FUNNELED (MPI 4.1 §11.2.1): the
script asks for FUNNELED (mpi4py.rc.thread_level) and then calls MPI_Barrier from a thread
it started. The run completes (MPICH does not check it), with a finding on each rank."""

import mpi4py

mpi4py.rc.thread_level = "funneled"

import threading  # noqa: E402

from mpi4py import MPI  # noqa: E402

comm = MPI.COMM_WORLD


def talk():
    comm.barrier()


t = threading.Thread(target=talk, name="talker")
t.start()
t.join()
print(comm.rank, MPI.Query_thread())
