"""Every collective of MPI 4.1 §6 through mpi4py, as scripts use them: blocking and
nonblocking, plain, v and w forms, MPI.IN_PLACE, 0-d arrays and numpy scalars, pair types.

Each case prints ``rank R: NAME RESULT ok`` (or ``BAD`` when the result is not what numpy
computes from every rank's input, written here from the definitions of §6); the tests run
it under the stand-in (every line ``ok``) and under the real library (the same lines).
Run: mpiexec -n 3 python collectives.py
"""

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
p, r = comm.Get_size(), comm.Get_rank()
lines = []


def show(name, got, want):
    got = np.asarray(got)
    same = got.shape == np.asarray(want).shape and bool(np.all(got == want))
    lines.append(f"rank {r}: {name} {got.tolist()} {'ok' if same else 'BAD'}")


def mine(k, n=2, dtype="i"):
    """Rank k's contribution: n elements."""
    return (np.arange(n) * (k + 1) + k).astype(dtype)


everyone = [mine(k) for k in range(p)]
total = np.sum(everyone, axis=0)

# -- barrier, broadcast (6.3, 6.4) ----------------------------------------------------------
comm.Barrier()
comm.Ibarrier().Wait()
b = mine(0) if r == 0 else np.zeros(2, "i")
comm.Bcast(b, root=0)
show("Bcast", b, mine(0))
b = np.asarray(7.5 if r == p - 1 else 0.0)
comm.Ibcast(b, root=np.int64(p - 1)).Wait()
show("Ibcast-0d-numpy-root", b, 7.5)

# -- reductions (6.9, 6.11) ----------------------------------------------------------------
out = np.zeros(2, "i")
comm.Reduce(mine(r), out, op=MPI.SUM, root=0)
show("Reduce", out, total if r == 0 else np.zeros(2, "i"))
out = np.zeros(2, "i")
comm.Ireduce(mine(r), out, op=MPI.MAX, root=p - 1).Wait()
show("Ireduce-MAX", out, np.max(everyone, axis=0) if r == p - 1 else np.zeros(2, "i"))
acc = mine(r)
if r == 0:
    comm.Reduce(MPI.IN_PLACE, acc, root=0)
else:
    comm.Reduce(acc, None, root=0)
show("Reduce-IN_PLACE", acc, total if r == 0 else mine(r))
out = np.zeros(2, "i")
comm.Allreduce(mine(r), out)
show("Allreduce", out, total)
out = np.zeros(2, "i")
comm.Iallreduce(mine(r), out, op=MPI.PROD).Wait()
show("Iallreduce-PROD", out, np.prod(everyone, axis=0, dtype="i"))
acc = mine(r)
comm.Allreduce(MPI.IN_PLACE, acc, op=MPI.MIN)
show("Allreduce-IN_PLACE-MIN", acc, np.min(everyone, axis=0))
flag, both = np.asarray(r >= 0, dtype="i"), np.zeros((), "i")
comm.Allreduce(flag, both, op=MPI.LAND)
show("Allreduce-0d-LAND", both, 1)
pi = np.zeros(1)
comm.Allreduce(np.float64(r + 0.5), pi)
show("Allreduce-numpy-scalar", pi, [sum(k + 0.5 for k in range(p))])
bits = np.zeros(1, "i")
comm.Allreduce(np.array([1 << r], "i"), bits, op=MPI.BOR)
show("Allreduce-BOR", bits, [(1 << p) - 1])
pair_t = np.dtype([("v", "f8"), ("i", "i4")], align=True)
pair, best = np.array([(float(r % 2), r)], pair_t), np.zeros(1, pair_t)
comm.Allreduce([pair, MPI.DOUBLE_INT], [best, MPI.DOUBLE_INT], op=MPI.MAXLOC)
show("Allreduce-MAXLOC-DOUBLE_INT", [best["v"][0], best["i"][0]], [float(p > 1), 1 % p])
two, low = np.array([[r % 2, r]], "i"), np.zeros((1, 2), "i")
comm.Allreduce([two, MPI.INT_INT], [low, MPI.INT_INT], op=MPI.MINLOC)
show("Allreduce-MINLOC-INT_INT", low, [[0, 0]])
out = np.zeros(2, "i")
comm.Scan(mine(r), out)
show("Scan", out, np.sum(everyone[:r + 1], axis=0))
out = np.zeros(2, "i")
comm.Iscan(mine(r), out).Wait()
show("Iscan", out, np.sum(everyone[:r + 1], axis=0))
acc = mine(r)
comm.Scan(MPI.IN_PLACE, acc)
show("Scan-IN_PLACE", acc, np.sum(everyone[:r + 1], axis=0))
out = np.full(2, -1, "i")
comm.Exscan(mine(r), out)
show("Exscan", out, np.sum(everyone[:r], axis=0) if r else [-1, -1])
out = np.full(2, -1, "i")
comm.Iexscan(mine(r), out).Wait()
show("Iexscan", out, np.sum(everyone[:r], axis=0) if r else [-1, -1])
acc = mine(r)
comm.Exscan(MPI.IN_PLACE, acc)
show("Exscan-IN_PLACE", acc, np.sum(everyone[:r], axis=0) if r else mine(0))

# -- reduce-scatter (6.10) -----------------------------------------------------------------
blocks = [np.arange(2 * p) * (k + 1) for k in range(p)]
whole = np.sum(blocks, axis=0).astype("i")
out = np.zeros(2, "i")
comm.Reduce_scatter_block(blocks[r].astype("i"), out)
show("Reduce_scatter_block", out, whole[2 * r:2 * r + 2])
out = np.zeros(2, "i")
comm.Ireduce_scatter_block(blocks[r].astype("i"), out).Wait()
show("Ireduce_scatter_block", out, whole[2 * r:2 * r + 2])
acc = blocks[r].astype("i")
comm.Reduce_scatter_block(MPI.IN_PLACE, acc)
show("Reduce_scatter_block-IN_PLACE", acc[:2], whole[2 * r:2 * r + 2])
counts = [k + 1 for k in range(p)]
starts = np.concatenate(([0], np.cumsum(counts)))
vsend = [np.arange(sum(counts)) * (k + 1) for k in range(p)]
vwhole = np.sum(vsend, axis=0).astype("i")
mine_v = vwhole[starts[r]:starts[r + 1]]
out = np.zeros(counts[r], "i")
comm.Reduce_scatter(vsend[r].astype("i"), out, counts)
show("Reduce_scatter", out, mine_v)
out = np.zeros(counts[r], "i")
comm.Reduce_scatter(vsend[r].astype("i"), out)  # counts gathered from the buffers
show("Reduce_scatter-inferred", out, mine_v)
out = np.zeros(counts[r], "i")
comm.Ireduce_scatter(vsend[r].astype("i"), out, np.array(counts)).Wait()
show("Ireduce_scatter", out, mine_v)
acc = vsend[r].astype("i")
comm.Reduce_scatter(MPI.IN_PLACE, acc, counts)
show("Reduce_scatter-IN_PLACE", acc[:counts[r]], mine_v)

# -- gathers (6.5, 6.7) --------------------------------------------------------------------
flat = np.concatenate(everyone)
rb = np.zeros(2 * p, "i") if r == 0 else None
comm.Gather(mine(r), rb, root=0)
show("Gather", rb if r == 0 else [], flat if r == 0 else [])
rb = np.zeros(2 * p, "i")
comm.Igather(mine(r), rb, root=p - 1).Wait()
show("Igather", rb, flat if r == p - 1 else np.zeros(2 * p, "i"))
rb = np.zeros(2 * p, "i")
if r == 0:
    rb[:2] = mine(0)
    comm.Gather(MPI.IN_PLACE, rb, root=0)
else:
    comm.Gather(mine(r), None, root=0)
show("Gather-IN_PLACE", rb, flat if r == 0 else np.zeros(2 * p, "i"))
rb = np.zeros(2 * p, "i")
comm.Allgather(mine(r), rb)
show("Allgather", rb, flat)
rb = np.zeros(2 * p, "i")
comm.Iallgather(mine(r), rb).Wait()
show("Iallgather", rb, flat)
rb = np.zeros(2 * p, "i")
rb[2 * r:2 * r + 2] = mine(r)
comm.Allgather(MPI.IN_PLACE, rb)
show("Allgather-IN_PLACE", rb, flat)
ragged = [np.full(k + 1, 10 * k, "i") for k in range(p)]
displs = [int(2 * s) for s in starts[:-1]]  # a gap after each block
span = displs[-1] + counts[-1]
want_v = np.full(span, -1, "i")
for k in range(p):
    want_v[displs[k]:displs[k] + counts[k]] = ragged[k]
rb = np.full(span, -1, "i")
comm.Gatherv(ragged[r], [rb, counts, displs, MPI.INT] if r == 0 else None, root=0)
show("Gatherv", rb, want_v if r == 0 else np.full(span, -1, "i"))
rb = np.full(sum(counts), -1, "i")
comm.Igatherv(ragged[r], [rb, counts] if r == 0 else None, root=0).Wait()
show("Igatherv", rb, np.concatenate(ragged) if r == 0 else np.full(sum(counts), -1, "i"))
rb = np.full(span, -1, "i")
if r == 0:
    rb[:1] = ragged[0]
    comm.Gatherv(MPI.IN_PLACE, [rb, (counts, displs), MPI.INT], root=0)
else:
    comm.Gatherv(ragged[r], None, root=0)
show("Gatherv-IN_PLACE", rb, want_v if r == 0 else np.full(span, -1, "i"))
rb = np.full(span, -1, "i")
comm.Allgatherv(ragged[r], [rb, counts, displs, MPI.INT])
show("Allgatherv", rb, want_v)
rb = np.full(span, -1, "i")
comm.Iallgatherv(ragged[r], [rb, counts, displs, MPI.INT]).Wait()
show("Iallgatherv", rb, want_v)
rb = np.full(span, -1, "i")
rb[displs[r]:displs[r] + counts[r]] = ragged[r]
comm.Allgatherv(MPI.IN_PLACE, [rb, counts, displs, MPI.INT])
show("Allgatherv-IN_PLACE", rb, want_v)

# -- scatters (6.6) ------------------------------------------------------------------------
source = np.arange(2 * p, dtype="d") + 100
out = np.zeros(2)
comm.Scatter(source if r == 0 else None, out, root=0)
show("Scatter", out, source[2 * r:2 * r + 2])
out = np.zeros(2)
comm.Iscatter([source, MPI.DOUBLE] if r == 1 % p else None, out, root=1 % p).Wait()
show("Iscatter", out, source[2 * r:2 * r + 2])
if r == 0:
    keep = source.copy()
    comm.Scatter(keep, MPI.IN_PLACE, root=0)
    show("Scatter-IN_PLACE", keep, source)
else:
    out = np.zeros(2)
    comm.Scatter(None, out, root=0)
    show("Scatter-IN_PLACE", out, source[2 * r:2 * r + 2])
vsource = np.arange(span, dtype="d")
out = np.zeros(counts[r])
comm.Scatterv([vsource, counts, displs, MPI.DOUBLE] if r == 0 else None, out, root=0)
show("Scatterv", out, vsource[displs[r]:displs[r] + counts[r]])
out = np.zeros(counts[r])
comm.Iscatterv([vsource, (counts, displs), MPI.DOUBLE] if r == 0 else None, out,
               root=0).Wait()
show("Iscatterv", out, vsource[displs[r]:displs[r] + counts[r]])
out = np.zeros(counts[r])
if r == 0:
    comm.Scatterv([vsource, counts, displs, MPI.DOUBLE], MPI.IN_PLACE, root=0)
    show("Scatterv-IN_PLACE", vsource, np.arange(span, dtype="d"))
else:
    comm.Scatterv(None, out, root=0)
    show("Scatterv-IN_PLACE", out, vsource[displs[r]:displs[r] + counts[r]])

# -- all-to-all (6.8) ----------------------------------------------------------------------
send = np.arange(2 * p, dtype="i") + 100 * r
want = np.concatenate([np.arange(2 * r, 2 * r + 2) + 100 * k for k in range(p)])
rb = np.zeros(2 * p, "i")
comm.Alltoall(send, rb)
show("Alltoall", rb, want)
rb = np.zeros(2 * p, "i")
comm.Ialltoall(send, rb).Wait()
show("Ialltoall", rb, want)
rb = send.copy()
comm.Alltoall(MPI.IN_PLACE, rb)
show("Alltoall-IN_PLACE", rb, want)
# Alltoallv: rank r sends k + 1 elements to rank k, from a buffer laid out per peer
sc = [k + 1 for k in range(p)]
sd = [int(s) for s in np.concatenate(([0], np.cumsum(sc)))[:-1]]
vbuf = np.concatenate([np.full(k + 1, 10 * r + k, "i") for k in range(p)])
rc = [r + 1] * p
rd = [k * (r + 1) for k in range(p)]
want = np.concatenate([np.full(r + 1, 10 * k + r, "i") for k in range(p)])
rb = np.zeros(p * (r + 1), "i")
comm.Alltoallv([vbuf, sc, sd, MPI.INT], [rb, rc, rd, MPI.INT])
show("Alltoallv", rb, want)
rb = np.zeros(p * (r + 1), "i")
comm.Ialltoallv([vbuf, (sc, sd), MPI.INT], [rb, (rc, rd), MPI.INT]).Wait()
show("Ialltoallv", rb, want)
sq = np.arange(p, dtype="i") + 10 * r
rb = sq.copy()
comm.Alltoallv(MPI.IN_PLACE, [rb, [1] * p, list(range(p)), MPI.INT])
show("Alltoallv-IN_PLACE", rb, [10 * k + r for k in range(p)])
# Alltoallw: ints out, received into every other int of a double-width buffer
wide = np.zeros(2 * p, "i")
comm.Alltoallw([sq, [1] * p, [4 * k for k in range(p)], [MPI.INT] * p],
               [wide, [1] * p, [8 * k for k in range(p)], [MPI.INT] * p])
show("Alltoallw", wide[::2], [10 * k + r for k in range(p)])
wide = np.zeros(2 * p, "i")
comm.Ialltoallw([sq, [1] * p, [4 * k for k in range(p)], [MPI.INT] * p],
                [wide, [1] * p, [8 * k for k in range(p)], [MPI.INT] * p]).Wait()
show("Ialltoallw", wide[::2], [10 * k + r for k in range(p)])
rb = sq.copy()
comm.Alltoallw(MPI.IN_PLACE, [rb, [1] * p, [4 * k for k in range(p)], [MPI.INT] * p])
show("Alltoallw-IN_PLACE", rb, [10 * k + r for k in range(p)])

# -- lowercase (objects) -------------------------------------------------------------------
show("bcast", [comm.bcast({"k": 1} if r == 0 else None, root=0)["k"]], [1])
show("reduce", [comm.reduce(r, root=np.int32(0)) or 0], [sum(range(p)) if r == 0 else 0])
show("allreduce-MAXLOC", list(comm.allreduce((r % 2, r), op=MPI.MAXLOC)), [int(p > 1), 1 % p])
show("gather", comm.gather(r * r, root=0) or [], [k * k for k in range(p)] if r == 0 else [])
show("allgather", comm.allgather(r), list(range(p)))
show("scatter", [comm.scatter([10 * k for k in range(p)] if r == 0 else None, root=0)],
     [10 * r])
show("alltoall", comm.alltoall([(r, k) for k in range(p)]), [(k, r) for k in range(p)])
show("scan", [comm.scan(r + 1)], [sum(range(1, r + 2))])
show("exscan", [comm.exscan(r + 1) or 0], [sum(range(1, r + 1))])

for line in lines:
    print(line, flush=True)
