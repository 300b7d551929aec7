"""Run under a real mpiexec -n 1: what a refused MPI_Buffer_attach (below
MPI_BSEND_OVERHEAD) leaves behind. Prints one ``step : result`` line each (ok with the
detached size, or the MPI error class)."""
from mpi4py import MPI

CLASSES = {MPI.ERR_ARG: "MPI_ERR_ARG", MPI.ERR_BUFFER: "MPI_ERR_BUFFER",
           MPI.ERR_OTHER: "MPI_ERR_OTHER", MPI.ERR_UNKNOWN: "MPI_ERR_UNKNOWN"}
SMALL = MPI.BSEND_OVERHEAD - 1


def attempt(call):
    try:
        got = call()
        return "ok" if got is None else f"ok {len(got)}"
    except MPI.Exception as e:
        return CLASSES.get(e.Get_error_class(), e.Get_error_string())


print("version :", MPI.Get_library_version().splitlines()[0])
print("1 attach small :", attempt(lambda: MPI.Attach_buffer(bytearray(SMALL))))
print("2 attach 4096 :", attempt(lambda: MPI.Attach_buffer(bytearray(4096))))
print("3 bsend 8 B :", attempt(lambda: MPI.COMM_WORLD.Bsend(bytearray(8), 0, 0)))
print("4 detach :", attempt(MPI.Detach_buffer))
print("5 attach 4096 :", attempt(lambda: MPI.Attach_buffer(bytearray(4096))))
print("6 detach :", attempt(MPI.Detach_buffer))
