"""MPI initialized by the script itself (MPI 4.1 §11.2.1): with mpi4py.rc.initialize =
False mpi4py leaves MPI uninitialized at import, MPI.Init_thread() asks for
MPI_THREAD_MULTIPLE and gets it, and a second initialization is MPI_ERR_OTHER (15).
init_deferred.txt beside this file is what mpi4py 4.1.2 prints on MPICH 5.0.2."""

import mpi4py

mpi4py.rc.initialize = False

from mpi4py import MPI  # noqa: E402

print(MPI.Is_initialized())
print(MPI.Init_thread(), MPI.Query_thread(), MPI.Is_initialized(), MPI.Is_thread_main())
try:
    MPI.Init()
except MPI.Exception as e:
    print("again", e.Get_error_class())
MPI.COMM_WORLD.Barrier()
