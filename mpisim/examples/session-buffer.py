"""MPI 4.1 session buffers (§3.6), written as a Python scenario (the scenario language has no
session ops).

A library initialises its own MPI session (MPI_Session_init), makes its communicator from
the session's process set (MPI_Comm_create_from_group over "mpi://WORLD") and attaches a
buffer to the session (MPI_Session_attach_buffer). A bsend on a communicator uses that
communicator's buffer, else its session's, else the process's: the library's bsends land in
the session buffer, the application's in the process buffer it attached for itself, and
neither can take the other's room.
"""

import mpisim as ms

SCENARIO = {
    "name": "session-buffer",
    "description": (
        "MPI 4.1 session buffers (§3.6): a library makes its communicator from its own MPI "
        "session and attaches a buffer to the session; the application attaches a process "
        "buffer. Each rank bsends two messages on each communicator to its right neighbour, "
        "which is busy for 20 µs: the library's land in the session buffer, the "
        "application's in the process buffer, and the run completes with every bsend "
        "buffered."
    ),
    "ranks": 3,
    "params": {"count": 256, "busy": 20e-6},
    "network": {"latency": "1us", "bandwidth": "10 GB/s", "eager_limit": "512 B"},
    "mpi": {"profile": "standard", "allocator": "circular"},
    "expect": {"outcome": "completed"},
}


def main(mpi, count=256, busy=20e-6):
    right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1) % mpi.size
    entry = mpi.pack_size(count, ms.INT) + mpi.BSEND_OVERHEAD
    session = yield mpi.session_init()                        # the library's session
    lib = yield mpi.comm_create_from_group(session, "mpisim.example.library")
    yield mpi.session_attach_buffer(2 * entry, session)      # for the library's two bsends
    yield mpi.buffer_attach(2 * entry)                        # the application's own
    for tag in range(2):
        yield mpi.bsend(count=count, datatype=ms.INT, dest=right, tag=tag, comm=lib)
        yield mpi.bsend(count=count, datatype=ms.INT, dest=right, tag=tag)
    yield mpi.compute(busy)
    for tag in range(2):
        yield mpi.recv(count=count, datatype=ms.INT, source=left, tag=tag, comm=lib)
        yield mpi.recv(count=count, datatype=ms.INT, source=left, tag=tag)
    yield mpi.buffer_detach()
    yield mpi.session_detach_buffer(session)
    yield mpi.comm_free(lib)
