"""Run under a real mpiexec -n 2: does a bsend whose communicator buffer is full fall back
to the process buffer (which has room)? Prints the answer on rank 0."""
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
N = 10000
OV = MPI.BSEND_OVERHEAD
lib = comm.Dup()
buf = bytearray(N)
if comm.Get_rank() == 0:
    MPI.Attach_buffer(bytearray(10 * (N + OV)))
    lib.Attach_buffer(bytearray(N + OV))
    lib.Bsend([buf, MPI.BYTE], dest=1, tag=1)
    try:
        lib.Bsend([buf, MPI.BYTE], dest=1, tag=2)
        res = "ok (fell back?)"
    except MPI.Exception as e:
        res = "MPI_ERR_BUFFER" if e.Get_error_class() == MPI.ERR_BUFFER else e.Get_error_string()
    print("comm buffer full, process buffer has room ->", res, flush=True)
    comm.send(res.startswith("ok"), dest=1, tag=99)
    lib.Detach_buffer()
    MPI.Detach_buffer()
else:
    sent2 = comm.recv(source=0, tag=99)
    time.sleep(0.2)
    lib.Recv([buf, MPI.BYTE], source=0, tag=1)
    if sent2:
        lib.Recv([buf, MPI.BYTE], source=0, tag=2)
