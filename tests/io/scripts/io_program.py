"""MPI-IO under a real library and under mpisim's stand-in: every access form, a strided
view, the shared pointer's ordered forms; each rank prints what it read, rank 0 the
file's bytes. Argument: the directory to write in; a second argument ``errors`` runs the
error cases instead (each rank prints the error class each bad call raised)."""

import hashlib
import os
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
where = sys.argv[1]
path = os.path.join(where, "data.bin")


def show(what, array):
    print(f"rank {rank}: {what} {' '.join(str(v) for v in np.asarray(array).ravel())}",
          flush=True)


def errors():
    names = {getattr(MPI, n): n for n in dir(MPI) if n.startswith("ERR_")}

    def attempt(what, call):
        try:
            call()
            print(f"rank {rank}: {what} ok", flush=True)
        except MPI.Exception as e:
            print(f"rank {rank}: {what} {names.get(e.Get_error_class())}", flush=True)

    missing = os.path.join(where, "missing.bin")
    attempt("open-missing", lambda: MPI.File.Open(comm, missing, MPI.MODE_RDONLY))
    attempt("amode-rdonly-create",
            lambda: MPI.File.Open(comm, path, MPI.MODE_RDONLY | MPI.MODE_CREATE))
    attempt("amode-none", lambda: MPI.File.Open(comm, path, MPI.MODE_CREATE))
    fh = MPI.File.Open(comm, path, MPI.MODE_WRONLY | MPI.MODE_CREATE)
    attempt("read-wronly", lambda: fh.Read_at(0, np.zeros(1, "i4")))
    fh.Set_view(0, MPI.INT)
    attempt("part-etype", lambda: fh.Write_at(0, [np.zeros(3, "u1"), MPI.BYTE]))
    attempt("seek-negative", lambda: fh.Seek(-1))
    fh.Close()
    fh = MPI.File.Open(comm, path, MPI.MODE_RDONLY)
    attempt("write-rdonly", lambda: fh.Write_at(0, np.zeros(1, "i4")))
    fh.Close()
    comm.Barrier()
    if rank == 0:
        attempt("delete-missing", lambda: MPI.File.Delete(missing))


def accesses():
    fh = MPI.File.Open(comm, path, MPI.MODE_RDWR | MPI.MODE_CREATE)
    fh.Set_size(0)
    # explicit offsets, collective: rank r's 4 ints at ints 4r..4r+3
    fh.Write_at_all(4 * rank * 4, np.arange(4, dtype="i4") + 100 * rank)
    # a strided view: rank r owns every size-th int from int 4*size + r on
    vector = MPI.INT.Create_vector(3, 1, size).Commit()
    tile = vector.Create_resized(0, 3 * size * 4).Commit()
    fh.Set_view(4 * size * 4 + 4 * rank, MPI.INT, tile)
    fh.Write_all(np.arange(6, dtype="i4") + 1000 * (rank + 1))
    fh.Sync()  # sync-barrier-sync: the writes are visible to every read after (§14.6.1)
    comm.Barrier()
    fh.Sync()
    fh.Seek(0, MPI.SEEK_SET)
    got = np.zeros(6, "i4")
    fh.Read(got)
    show("strided", got)
    show("position", [fh.Get_position(), fh.Get_byte_offset(2)])
    # ordered, from the shared pointer (reset to 0 by the view below)
    fh.Set_view(4 * 10 * size * 4, MPI.INT, MPI.INT)
    fh.Write_ordered(np.full(rank + 1, rank, dtype="i4"))
    fh.Seek_shared(0, MPI.SEEK_SET)
    back = np.zeros(rank + 1, "i4")
    fh.Read_ordered(back)
    show("ordered", back)
    show("shared", [fh.Get_position_shared()])
    # nonblocking and split forms
    req = fh.Iwrite_at(100 + rank * 2, np.array([7, rank], "i4"))
    req.Wait()
    fh.Write_at_all_begin(200 + rank, np.array([rank * 11], "i4"))
    fh.Write_at_all_end(np.array([rank * 11], "i4"))
    fh.Sync()
    comm.Barrier()
    fh.Sync()
    neighbour = (rank + 1) % size
    other = np.zeros(2, "i4")
    fh.Iread_at(100 + neighbour * 2, other).Wait()
    show("neighbour", other)
    status = MPI.Status()
    tail = np.full(4, -1, "i4")
    fh.Seek(0, MPI.SEEK_END)
    fh.Read(tail, status)
    show("past-end", [status.Get_count(MPI.INT), fh.Get_position(), *tail])
    show("size", [fh.Get_size()])
    vector.Free()
    tile.Free()
    fh.Close()
    comm.Barrier()
    if rank == 0:
        with open(path, "rb") as f:
            data = f.read()
        print(f"rank 0: file {len(data)} {hashlib.sha256(data).hexdigest()}", flush=True)
        show("ints", np.frombuffer(data, "i4"))


if len(sys.argv) > 2 and sys.argv[2] == "errors":
    errors()
else:
    accesses()
