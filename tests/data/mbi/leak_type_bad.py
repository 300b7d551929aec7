# mbi: leak leak-datatype
# A committed derived datatype is never freed.
from mpi4py import MPI

t = MPI.INT.Create_contiguous(4).Commit()
