"""mpi4py's buffer specifications with a displacement: ``[buf, (count, displ), datatype]``
starts ``displ`` extents of the datatype into the buffer, on both sides (as mpi4py's
message_simple reads it)."""

from __future__ import annotations

import mpisim as ms

SCRIPT = """\
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
if comm.rank == 0:
    data = np.arange(10, dtype='i')
    comm.Send([data, (2, 3), MPI.INT], dest=1)
    comm.Send([data, (3, 1), MPI.INT], dest=1, tag=1)
else:
    got = np.full(6, -1, dtype='i')
    comm.Recv([got, (2, 4), MPI.INT], source=0)
    more = np.full(4, -1, dtype='i')
    comm.Recv([more, (3, 1)], source=0, tag=1)
    print(got.tolist(), more.tolist())
"""


def test_a_displacement_counts_extents_on_both_sides(tmp_path, capsys):
    path = tmp_path / "displ.py"
    path.write_text(SCRIPT)
    result = ms.run_mpi4py(path, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert capsys.readouterr().out.strip() == "[-1, -1, -1, -1, 3, 4] [-1, 1, 2, 3]"
