"""Integer arguments as mpi4py converts them: a collective's root and Split's color and key
(C ints, through Cython), and counts in buffer specs (operator.index). Prints rank 0's line
for each value: "ok" and the result, or the exception's type and message.
Run: mpiexec -n 2 python integers.py (and mpisim mpi4py -n 2 integers.py: the same lines)
"""

from decimal import Decimal
from fractions import Fraction

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD


class OnlyIndex:
    def __index__(self):
        return 0

    def __repr__(self):
        return "OnlyIndex()"


def show(label, call):
    try:
        got = f"ok {call()!r}"
    except (TypeError, OverflowError, ValueError) as e:
        got = f"{type(e).__name__}: {e}"
    if comm.rank == 0:
        print(f"rank 0: {label} -> {got}", flush=True)


for root in (0.7, 1.5, np.float64(0.0), np.int8(0), np.uint64(0), np.bool_(True), True,
             OnlyIndex(), Fraction(0), Decimal(0), "0", None, [0], 2**31, -2**31 - 1):
    show(f"bcast root={root!r}", lambda root=root: comm.bcast(1, root=root))
for value in (1.5, np.float32(1), np.bool_(True), OnlyIndex(), None, "1"):
    show(f"Split color={value!r}", lambda v=value: comm.Split(v, 0).Get_size())
    show(f"Split key={value!r}", lambda v=value: comm.Split(0, v).Get_size())
buf = np.zeros(4, "i")
for count in (2, np.int64(2), 2.0, np.bool_(True), "2", None):
    show(f"Bcast count={count!r}", lambda c=count: comm.Bcast([buf, c, MPI.INT], root=0))
