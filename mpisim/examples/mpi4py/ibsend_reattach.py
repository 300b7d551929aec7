"""Ibsend + Wait, then detach, re-attach a smaller buffer and overflow it on purpose:
the second Bsend does not fit and raises MPI_ERR_BUFFER, which the script reports.

    python ibsend_reattach.py [count]
"""

import sys

import numpy as np
from mpi4py import MPI

count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
peer = 1 - rank
data = np.arange(count, dtype=np.float64) + rank
need = MPI.DOUBLE.Pack_size(count, comm) + MPI.BSEND_OVERHEAD
MPI.Attach_buffer(bytearray(need))
req = comm.Ibsend([data, MPI.DOUBLE], dest=peer, tag=0)
req.Wait()
got = np.empty(count, dtype=np.float64)
comm.Recv([got, MPI.DOUBLE], source=peer, tag=0)
MPI.Detach_buffer()
MPI.Attach_buffer(bytearray(need // 2))
try:
    comm.Bsend([data, MPI.DOUBLE], dest=peer, tag=1)
    outcome = "fitted"
except MPI.Exception as e:
    outcome = "MPI_ERR_BUFFER" if e.Get_error_class() == MPI.ERR_BUFFER else str(e)
MPI.Detach_buffer()
comm.Barrier()
if outcome == "fitted":
    comm.Recv([got, MPI.DOUBLE], source=peer, tag=1)
print(f"rank {rank}: first {got[0]:.0f}, second bsend {outcome}")
