"""Run under a real mpiexec -n 2: which buffer MPI 4.1 bsends use, what a full one does,
how long Comm.Detach_buffer waits, what it returns for an automatic buffer."""
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
r = comm.Get_rank()
N = 10000
OV = MPI.BSEND_OVERHEAD
out = {}
lib = comm.Dup()
other = comm.Dup()
buf = bytearray(N)

def err(e):
    return "MPI_ERR_BUFFER" if e.Get_error_class() == MPI.ERR_BUFFER else e.Get_error_string()

if r == 0:
    print("version", MPI.Get_library_version().splitlines()[0], "BSEND_OVERHEAD", OV, flush=True)
    MPI.Attach_buffer(bytearray(N + OV))
    lib.Attach_buffer(bytearray(N + OV))
    lib.Bsend([buf, MPI.BYTE], dest=1, tag=1)          # lib's buffer
    comm.Bsend([buf, MPI.BYTE], dest=1, tag=2)         # the process buffer
    try:
        lib.Bsend([buf, MPI.BYTE], dest=1, tag=3)
        out["lib 2nd bsend (lib buffer full)"] = "ok"
    except MPI.Exception as e:
        out["lib 2nd bsend (lib buffer full)"] = err(e)
    try:
        other.Bsend([buf, MPI.BYTE], dest=1, tag=4)
        out["bsend on a dup without buffer, world buffer full"] = "ok"
    except MPI.Exception as e:
        out["bsend on a dup without buffer, world buffer full"] = err(e)
    sent = {k: v == "ok" for k, v in out.items()}
    comm.send(list(sent.values()), dest=1, tag=99)
    t = time.time()
    lib.Detach_buffer()
    out["lib Detach_buffer waited (s)"] = round(time.time() - t, 2)
    MPI.Detach_buffer()
    lib.Attach_buffer(MPI.BUFFER_AUTOMATIC)
    for k in range(20):
        lib.Bsend([buf, MPI.BYTE], dest=1, tag=10 + k)
    d = lib.Detach_buffer()
    out["automatic: Comm.Detach_buffer returns"] = repr(d)
    out["... is MPI.BUFFER_AUTOMATIC"] = d is MPI.BUFFER_AUTOMATIC
    for k, v in out.items():
        print(k, ":", v, flush=True)
else:
    sent3, sent4 = comm.recv(source=0, tag=99)
    time.sleep(0.5)
    lib.Recv([buf, MPI.BYTE], source=0, tag=1)
    comm.Recv([buf, MPI.BYTE], source=0, tag=2)
    if sent3:
        lib.Recv([buf, MPI.BYTE], source=0, tag=3)
    if sent4:
        other.Recv([buf, MPI.BYTE], source=0, tag=4)
    for k in range(20):
        lib.Recv([buf, MPI.BYTE], source=0, tag=10 + k)
