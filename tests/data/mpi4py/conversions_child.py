"""The child conversions.py spawns: it disconnects from its parent."""
from mpi4py import MPI

MPI.Comm.Get_parent().Disconnect()
