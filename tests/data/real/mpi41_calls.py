"""Run under a real mpiexec -n 1: which MPI 4.1 buffer calls the library has. Prints one
``call : result`` line each (ok, NotImplementedError, or the MPI error class)."""
from mpi4py import MPI

CLASSES = {MPI.ERR_ARG: "MPI_ERR_ARG", MPI.ERR_BUFFER: "MPI_ERR_BUFFER",
           MPI.ERR_OTHER: "MPI_ERR_OTHER"}


def attempt(call):
    try:
        call()
        return "ok"
    except NotImplementedError:
        return "NotImplementedError"
    except MPI.Exception as e:
        return CLASSES.get(e.Get_error_class(), e.Get_error_string())


lib = MPI.COMM_WORLD.Dup()
print("version :", MPI.Get_library_version().splitlines()[0])
print("Comm.Attach_buffer :", attempt(lambda: lib.Attach_buffer(bytearray(1000))))
print("MPI.Flush_buffer :", attempt(MPI.Flush_buffer))
print("MPI.Attach_buffer(BUFFER_AUTOMATIC) :",
      attempt(lambda: MPI.Attach_buffer(MPI.BUFFER_AUTOMATIC)))
