"""Collective calls compare type signatures, not type names (MPI 4.1 §3.3.1, §6.1): a
derived type made of one basic type matches that basic type (MPICH's Scatterv test sends
``contiguous(80, DOUBLE)`` to receivers of 80 doubles; the receive buffers hold 160, room for
the strided receive type too), and a different basic type of the
same size still does not."""

from __future__ import annotations

import numpy as np
import pytest

import mpisim as ms


def findings(recv_type, recv_count, ranks=3):
    block = ms.DOUBLE.create_contiguous(80).commit()

    def program(mpi):
        p = mpi.size
        root = mpi.rank == 0
        send = np.arange(80.0 * p) if root else None
        yield mpi.scatterv(send, datatype=block if root else recv_type, root=0,
                           recvbuf=np.zeros(160), count=1 if root else recv_count,
                           sendcounts=[1] * p if root else None,
                           displs=list(range(p)) if root else None)

    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return [f.rule for f in result.findings]


def test_3_3_1_a_contiguous_type_of_doubles_matches_doubles():
    assert findings(ms.DOUBLE, 80) == []


def test_3_3_1_a_vector_of_doubles_matches_doubles_whatever_its_holes():
    assert findings(ms.DOUBLE.create_vector(80, 1, 2).commit(), 1) == []


@pytest.mark.parametrize("other", ["INT64_T", "LONG"])
def test_6_1_the_same_size_of_another_basic_type_is_still_a_mismatch(other):
    assert findings(getattr(ms, other), 80) == ["collective-type"]
