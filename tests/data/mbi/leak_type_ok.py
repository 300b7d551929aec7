# mbi: correct
# A committed derived datatype is freed (MPI 4.1 §5.1.9).
from mpi4py import MPI

t = MPI.INT.Create_contiguous(4).Commit()
t.Free()
