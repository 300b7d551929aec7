"""Receive blocks that overlap (MPI 4.1 §6.5: "The specification of counts, types, and
displacements should not cause any location on the root to be written more than once.
Such a call is erroneous"; §6.7, §6.8 for the all- forms): a finding names the two blocks."""

from __future__ import annotations

import numpy as np

import mpisim as ms


def run(program, ranks=4):
    result = ms.run(program, ranks=ranks)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result, [f for f in result.findings if f.rule == "collective-overlap"]


def test_6_5_a_gatherv_whose_displacements_write_an_element_twice_is_erroneous():
    """The shape of a public program: each rank sends 2 doubles, the root's displacements
    step by 1 instead of 2, so each block's second element is overwritten."""
    def program(mpi):
        recv = np.zeros(8) if mpi.rank == 0 else None
        yield mpi.gatherv(np.full(2, 10.0 * mpi.rank), datatype=ms.DOUBLE, root=0,
                          recvbuf=recv, recvcounts=[2] * 4, displs=[0, 1, 2, 3])
        return None if recv is None else recv.tolist()

    result, found = run(program)
    assert len(found) == 1 and found[0].kind == "error" and found[0].section == "6.5, 6.7, 6.8"
    assert "blocks of ranks 0 and 1 overlap" in found[0].message
    assert found[0].calls[0].rank == 0 and found[0].calls[0].call == "MPI_Gatherv"
    assert "test_overlap.py" in found[0].calls[0].where
    assert result.erroneous


def test_6_7_allgatherv_and_6_8_alltoallv_and_w_overlaps_are_found_on_every_receiver():
    def program(mpi):
        p = mpi.size
        yield mpi.allgatherv(np.full(1, mpi.rank, "i"), datatype=ms.INT,
                             recvbuf=np.zeros(p, "i"), recvcounts=[1] * p,
                             displs=[0, 1, 1, 3])  # ranks 1 and 2 both at 1
        yield mpi.alltoallv(np.arange(p, dtype="i"), datatype=ms.INT, recvbuf=np.zeros(p, "i"),
                            sendcounts=[1] * p, sdispls=list(range(p)), recvcounts=[1] * p,
                            rdispls=[0, 1, 2, 3])  # fine
        yield mpi.alltoallw(np.arange(p, dtype="i"), [1] * p, [4 * k for k in range(p)],
                            [ms.INT] * p, recvbuf=np.zeros(p, "i"), recvcounts=[1] * p,
                            rdispls=[0, 4, 8, 10], recvtypes=[ms.INT] * p)  # bytes 10-11
        return None

    _, found = run(program)
    calls = sorted({(f.calls[0].call, f.calls[0].rank) for f in found})
    assert calls == sorted([("MPI_Allgatherv", r) for r in range(4)] +
                           [("MPI_Alltoallw", r) for r in range(4)])
    assert all("ranks 2 and 3" in f.message for f in found if "Alltoallw" in f.message)
    assert all("ranks 1 and 2" in f.message for f in found if "Allgatherv" in f.message)


def test_disjoint_blocks_in_any_order_and_empty_blocks_are_no_finding():
    def program(mpi):
        counts = [2, 0, 1, 3]
        recv = np.zeros(6, "i") if mpi.rank == 0 else None
        yield mpi.gatherv(np.full(counts[mpi.rank], mpi.rank, "i"), datatype=ms.INT, root=0,
                          recvbuf=recv, recvcounts=counts, displs=[4, 0, 0, 1])  # 1 is empty
        return None if recv is None else recv.tolist()

    result, found = run(program)
    assert not found and result.returned[0] == [2, 3, 3, 3, 0, 0]
