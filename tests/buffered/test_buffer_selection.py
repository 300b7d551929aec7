"""MPI 4.1 §3.6: which attached buffer a bsend uses, chosen when it starts: its
communicator's, else its session's, else the process's."""

from __future__ import annotations

import mpisim as ms

N = 100  # bytes per message


def test_3_6_the_communicators_buffer_comes_before_its_sessions():
    """With both a session buffer and a communicator buffer attached, bsends on the
    communicator fill the communicator's: the session's stays empty (its detach returns at
    once, and its peak is 0), the communicator's holds the entries."""
    def prog(mpi):
        session = yield mpi.session_init()
        comm = yield mpi.comm_create_from_group(session, "app")
        if mpi.rank == 0:
            yield mpi.session_attach_buffer(10_000, session)
            yield mpi.comm_attach_buffer(10_000, comm)
            for tag in range(3):
                yield mpi.bsend(count=N, dest=1, tag=tag, comm=comm)
            yield mpi.session_detach_buffer(session)
            yield mpi.comm_detach_buffer(comm)
            return None
        yield mpi.compute(1e-3)
        for tag in range(3):
            yield mpi.recv(count=N, source=0, tag=tag, comm=comm)
        return None

    r = ms.run(prog, ranks=2)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    named = r.ranks[0].buffers
    session = next(v for k, v in named.items() if "session" in k.lower())
    comm = next(v for k, v in named.items() if "session" not in k.lower())
    assert session.bsends == 0 and session.peak_used == 0
    assert comm.bsends == 3 and comm.peak_entries == 3
