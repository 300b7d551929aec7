"""Every conversion of a user argument that mpi4py makes, tried with each kind of value: one
line per (argument, kind), ``ARGUMENT | KIND: OUTCOME``, the outcome ``ok VALUE`` (what the
call gave) or the exception: its type and message, or for an MPI error ``MPI.Exception`` and
its error class (the message is the library's). Run on one process
(``mpiexec -n 1 python conversions.py``, or ``mpisim mpi4py -n 1 conversions.py``).

The lines mpi4py 4.1.2 printed on MPICH 5.0.2 are conversions.txt beside this file;
``python -m bench.mpi4py_conversions`` (from the project's root, where mpi4py and MPICH
are installed) observes them again. Covered: the collectives' roots, ops and vector blocks
(counts, displacements), Comm.Split's color and key, Create_group's tag, a Group's ranks,
windows (sizes, disp_unit, a target rank and target spec, lock types), files (amode,
offsets, views, seeks, sizes), Info keys, values and items, a Status's fields, request lists,
the datatype constructors' counts, blocklengths, displacements, sizes and orders, and
Spawn's maxprocs and args. Point-to-point buffer specs and int arguments are in
msgspec_cases.py, topology arguments in topology_conversions.py.
"""
import contextlib
import os
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
HERE = os.path.dirname(os.path.abspath(__file__))
ERR_NAMES = {getattr(MPI, n): n for n in dir(MPI) if n.startswith("ERR_") and n != "ERR_LASTCODE"}


def ints(b):
    """Each kind of value standing for the int ``b``."""
    return {"int": b, "float": float(b), "bool": bool(b), "numpy int": np.int64(b),
            "numpy float": np.float64(b), "None": None, "str": str(b), "list": [b],
            "tuple": (b,), "range": range(b, b + 1), "numpy array": np.array([b])}


def seqs(values):
    """Each kind of value standing for the int sequence ``values`` (consecutive ints)."""
    first = values[0]
    return {"int": first, "float": float(first), "bool": True, "numpy int": np.int64(first),
            "numpy float": np.float64(first), "None": None,
            "str": ",".join(str(x) for x in values), "list": list(values),
            "tuple": tuple(values), "range": range(first, first + len(values)),
            "numpy array": np.array(values), "list of floats": [float(x) for x in values],
            "list of bools": [bool(x) for x in values],
            "list of numpy ints": [np.int32(x) for x in values],
            "list of numpy floats": [np.float64(x) for x in values],
            "list of str": [str(x) for x in values], "list with None": [None] * len(values)}


def strs(s):
    """Each kind of value standing for the str ``s``."""
    return {"str": s, "numpy str": np.str_(s), "bytes": s.encode(), "int": 1, "float": 1.0,
            "None": None, "list": [s], "tuple": (s,)}


def ops():
    return {"MPI.SUM": MPI.SUM, "MPI.OP_NULL": MPI.OP_NULL, "int": 0, "None": None,
            "str": "SUM", "function": lambda a, b: a + b, "list": [MPI.SUM]}


# -- collectives -----------------------------------------------------------------------
def ivec(n=2):
    return np.zeros(n, "i")


def bcast_root(v):
    buf = np.array([7], "i")
    comm.Bcast(buf, root=v)
    return buf.tolist()


def reduce_root(v):
    out = ivec(1)
    comm.Reduce(np.array([3], "i"), out, op=MPI.SUM, root=v)
    return out.tolist()


def gatherv_root(v):
    out = ivec()
    comm.Gatherv(np.array([5], "i"), [out, [1], [1], MPI.INT], root=v)
    return out.tolist()


def gatherv_counts(v):
    out = ivec()
    comm.Gatherv(np.array([5], "i"), [out, v, [0], MPI.INT])
    return out.tolist()


def gatherv_displs(v):
    out = ivec()
    comm.Gatherv(np.array([5], "i"), [out, [1], v, MPI.INT])
    return out.tolist()


def scatterv_counts(v):
    out = ivec(1)
    comm.Scatterv([np.array([5, 6], "i"), v, [0], MPI.INT], out)
    return out.tolist()


def scatterv_displs(v):
    out = ivec(1)
    comm.Scatterv([np.array([5, 6], "i"), [1], v, MPI.INT], out)
    return out.tolist()


def allgatherv_counts(v):
    out = ivec()
    comm.Allgatherv(np.array([5], "i"), [out, v, [0], MPI.INT])
    return out.tolist()


def alltoallv_counts(v):
    out = ivec()
    comm.Alltoallv([np.array([5], "i"), v, [0], MPI.INT], [out, [1], [0], MPI.INT])
    return out.tolist()


def alltoallv_rdispls(v):
    out = ivec()
    comm.Alltoallv([np.array([5], "i"), [1], [0], MPI.INT], [out, [1], v, MPI.INT])
    return out.tolist()


def allgather_count(v):
    out = ivec()
    comm.Allgather(np.array([5, 6], "i"), [out, v, MPI.INT])
    return out.tolist()


def reduce_scatter_counts(v):
    out = ivec(1)
    comm.Reduce_scatter(np.array([4], "i"), out, recvcounts=v, op=MPI.SUM)
    return out.tolist()


def allreduce_op(v):
    out = ivec(1)
    comm.Allreduce(np.array([4], "i"), out, op=v)
    return out.tolist()


# -- communicators and groups ----------------------------------------------------------
def split(color, key):
    made = comm.Split(color, key)
    try:
        return made.Get_size() if made != MPI.COMM_NULL else "COMM_NULL"
    finally:
        if made != MPI.COMM_NULL:
            made.Free()


def create_group_tag(v):
    group = comm.Get_group()
    try:
        made = comm.Create_group(group, v)
    finally:
        group.Free()
    size = made.Get_size()
    made.Free()
    return size


def group_call(name):
    def call(v):
        group = comm.Get_group()
        try:
            if name == "Translate_ranks":
                return group.Translate_ranks(v, group)
            made = getattr(group, name)(v)
            size = made.Get_size()
            with contextlib.suppress(MPI.Exception):  # MPI.GROUP_EMPTY itself
                made.Free()
            return size
        finally:
            group.Free()
    return call


# -- windows -----------------------------------------------------------------------------
def win_create_unit(v):
    win = MPI.Win.Create(np.zeros(4, "i"), disp_unit=v, comm=comm)
    try:
        return win.Get_attr(MPI.WIN_DISP_UNIT)
    finally:
        win.Free()


def win_allocate(size=16, unit=4, shared=False):
    make = MPI.Win.Allocate_shared if shared else MPI.Win.Allocate
    win = make(size, unit, comm=comm)
    try:
        return win.Get_attr(MPI.WIN_SIZE), win.Get_attr(MPI.WIN_DISP_UNIT)
    finally:
        win.Free()


def win_put(rank=0, target=1):
    memory = np.zeros(3, "i")
    win = MPI.Win.Create(memory, disp_unit=4, comm=comm)
    try:
        win.Fence()
        try:
            win.Put(np.array([9], "i"), rank, target)
        finally:
            win.Fence()
        return memory.tolist()
    finally:
        win.Free()


def win_lock(rank=0, kind=MPI.LOCK_EXCLUSIVE):
    win = MPI.Win.Create(np.zeros(1, "i"), disp_unit=4, comm=comm)
    try:
        win.Lock(rank, kind)
        win.Unlock(rank)
        return "locked"
    finally:
        win.Free()


def targets():
    return {"int": 1, "float": 1.0, "bool": True, "numpy int": np.int64(1),
            "numpy float": np.float64(1), "None": None, "str": "1", "list": [1],
            "tuple": (1,), "tuple (disp, count)": (1, 1), "tuple (disp, count, type)":
            (1, 1, MPI.INT), "list (disp, count, type)": [1, 1, MPI.INT],
            "range": range(1, 2), "numpy array": np.array([1]), "list of floats": [1.0]}


# -- files -------------------------------------------------------------------------------
PATH = "conversions.tmp"


def file_call(step, amode=MPI.MODE_RDWR | MPI.MODE_CREATE):
    fh = MPI.File.Open(comm, PATH, amode)
    try:
        return step(fh)
    finally:
        fh.Close()
        if os.path.exists(PATH):
            os.remove(PATH)


def write_at(v):
    return file_call(lambda fh: (fh.Write_at(v, np.array([1, 2], "i")), fh.Get_size())[1])


def read_at(v):
    def step(fh):
        fh.Write_at(0, np.array([1, 2, 3], "i"))
        out = ivec(1)
        fh.Read_at(v, out)
        return out.tolist()
    return file_call(step)


def set_view_disp(v):
    def step(fh):
        fh.Set_view(v, MPI.INT, MPI.INT)
        return fh.Get_view()[0]
    return file_call(step)


def seek(offset=1, whence=MPI.SEEK_SET):
    def step(fh):
        fh.Write_at(0, np.array([1, 2, 3], "i"))
        fh.Seek(offset, whence)
        return fh.Get_position()
    return file_call(step)


def set_size(v):
    return file_call(lambda fh: (fh.Set_size(v), fh.Get_size())[1])


# -- info, status, requests ------------------------------------------------------------
def info_set(key="k", value="v"):
    info = MPI.Info.Create()
    try:
        info.Set(key, value)
        return info.items()
    finally:
        info.Free()


def info_get(key):
    info = MPI.Info.Create({"k": "v"})
    try:
        return info.Get(key)
    finally:
        info.Free()


def info_create(v):
    info = MPI.Info.Create(v)
    try:
        return info.items()
    finally:
        info.Free()


def infos():
    return {"dict": {"k": "v"}, "list of pairs": [("k", "v")], "tuple of pairs": (("k", "v"),),
            "None": None, "str": "k", "int": 1, "list": ["k"], "MPI.INFO_NULL": MPI.INFO_NULL}


def status_set(name, v):
    status = MPI.Status()
    getattr(status, f"Set_{name}")(v)
    return getattr(status, f"Get_{name}")()


def status_cancelled(v):
    status = MPI.Status()
    status.Set_cancelled(v)
    return status.Is_cancelled()


def status_elements(v):
    status = MPI.Status()
    status.Set_elements(MPI.INT, v)
    return status.Get_elements(MPI.INT)


def status_property(name, v):
    status = MPI.Status()
    setattr(status, name, v)
    return getattr(status, name)


def request_call(name):
    def call(make):
        got = getattr(MPI.Request, name)(make())
        return "done" if got is None or isinstance(got, bool) else got
    return call


def request_kinds():
    def request():
        return comm.Isend(np.array([1], "i"), MPI.PROC_NULL)
    return {"list": lambda: [request()], "tuple": lambda: (request(),),
            "one request": request, "None": lambda: None, "list with None": lambda: [None],
            "empty list": lambda: [], "REQUEST_NULL list": lambda: [MPI.REQUEST_NULL],
            "generator": lambda: (r for r in [request()]), "int": lambda: 1,
            "str": lambda: "x", "list of int": lambda: [1]}


# -- datatypes ---------------------------------------------------------------------------
def made(t):
    t.Commit()
    try:
        return t.Get_size(), t.Get_extent()[1]
    finally:
        t.Free()


def struct(blocklengths=(1,), displacements=(0,), datatypes=(MPI.INT,)):
    return made(MPI.Datatype.Create_struct(blocklengths, displacements, datatypes))


def subarray(sizes=(2,), subsizes=(1,), starts=(0,), order=MPI.ORDER_C):
    return made(MPI.INT.Create_subarray(sizes, subsizes, starts, order=order))


def typelists():
    return {"list": [MPI.INT], "tuple": (MPI.INT,), "one datatype": MPI.INT, "None": None,
            "str": "i", "int": 1, "list of str": ["i"], "list with None": [None],
            "list of numpy dtypes": [np.dtype("i")]}


def set_view_type(v):
    def step(fh):
        fh.Set_view(0, v, v)
        return fh.Get_view()[1].Get_size()
    return file_call(step)


def win_accumulate_op(v):
    memory = np.array([1], "i")
    win = MPI.Win.Create(memory, disp_unit=4, comm=comm)
    try:
        win.Fence()
        try:
            win.Accumulate(np.array([2], "i"), 0, op=v)
        finally:
            win.Fence()
        return memory.tolist()
    finally:
        win.Free()


def win_get_target(v):
    memory = np.array([4, 5, 6], "i")
    out = ivec(1)
    win = MPI.Win.Create(memory, disp_unit=4, comm=comm)
    try:
        win.Fence()
        try:
            win.Get(out, 0, v)
        finally:
            win.Fence()
        return out.tolist()
    finally:
        win.Free()


def split_type(v):
    made = comm.Split_type(v)
    try:
        return made.Get_size() if made != MPI.COMM_NULL else "COMM_NULL"
    finally:
        if made != MPI.COMM_NULL:
            made.Free()


def ranges():
    return {"list of triples": [(0, 0, 1)], "tuple of triples": ((0, 0, 1),),
            "list of lists": [[0, 0, 1]], "one triple": (0, 0, 1), "None": None,
            "int": 0, "list of pairs": [(0, 0)], "triple of floats": [(0.0, 0.0, 1.0)],
            "triple with None": [(0, None, 1)], "numpy array": np.array([[0, 0, 1]])}


def datatype_kinds():
    return {"MPI.INT": MPI.INT, "None": None, "str": "i", "int": 1, "numpy dtype":
            np.dtype("i"), "list": [MPI.INT]}


# -- spawn -------------------------------------------------------------------------------
CHILD = os.path.join(HERE, "conversions_child.py")


def spawn(maxprocs=1, args=(CHILD,)):
    child = MPI.COMM_SELF.Spawn(sys.executable, args, maxprocs=maxprocs)
    size = child.Get_remote_size()
    child.Disconnect()
    return size


def spawn_args():
    return {"list": [CHILD], "tuple": (CHILD,), "str": CHILD, "int": 1,
            "list of int": [1], "list with None": [None], "bytes list": [CHILD.encode()]}


SITES = [
    ("Comm.Bcast root", ints(0), bcast_root),
    ("Comm.bcast root", ints(0), lambda v: comm.bcast(7, root=v)),
    ("Comm.Reduce root", ints(0), reduce_root),
    ("Comm.reduce root", ints(0), lambda v: comm.reduce(3, op=MPI.SUM, root=v)),
    ("Comm.Gatherv root", ints(0), gatherv_root),
    ("Comm.Gatherv recvcounts", seqs([1]), gatherv_counts),
    ("Comm.Gatherv displs", seqs([1]), gatherv_displs),
    ("Comm.Scatterv sendcounts", seqs([1]), scatterv_counts),
    ("Comm.Scatterv displs", seqs([1]), scatterv_displs),
    ("Comm.Allgatherv recvcounts", seqs([1]), allgatherv_counts),
    ("Comm.Alltoallv sendcounts", seqs([1]), alltoallv_counts),
    ("Comm.Alltoallv rdispls", seqs([1]), alltoallv_rdispls),
    ("Comm.Allgather recv count", ints(2), allgather_count),
    ("Comm.Reduce_scatter recvcounts", seqs([1]), reduce_scatter_counts),
    ("Comm.Allreduce op", ops(), allreduce_op),
    ("Comm.allreduce op", ops(), lambda v: comm.allreduce(4, op=v)),
    ("Comm.Split color", ints(0), lambda v: split(v, 0)),
    ("Comm.Split key", ints(0), lambda v: split(0, v)),
    ("Comm.Create_group tag", ints(0), create_group_tag),
    ("Group.Incl ranks", seqs([0]), group_call("Incl")),
    ("Group.Excl ranks", seqs([0]), group_call("Excl")),
    ("Group.Translate_ranks ranks", seqs([0]), group_call("Translate_ranks")),
    ("Win.Create disp_unit", ints(4), win_create_unit),
    ("Win.Allocate size", ints(16), lambda v: win_allocate(size=v)),
    ("Win.Allocate disp_unit", ints(4), lambda v: win_allocate(unit=v)),
    ("Win.Allocate_shared size", ints(16), lambda v: win_allocate(size=v, shared=True)),
    ("Win.Put target_rank", ints(0), lambda v: win_put(rank=v)),
    ("Win.Put target", targets(), lambda v: win_put(target=v)),
    ("Win.Lock rank", ints(0), lambda v: win_lock(rank=v)),
    ("Win.Lock lock_type", ints(MPI.LOCK_EXCLUSIVE), lambda v: win_lock(kind=v)),
    ("File.Open amode", ints(MPI.MODE_RDWR | MPI.MODE_CREATE),
     lambda v: file_call(lambda fh: fh.Get_amode(), amode=v)),
    ("File.Write_at offset", ints(1), write_at),
    ("File.Read_at offset", ints(4), read_at),
    ("File.Set_view disp", ints(4), set_view_disp),
    ("File.Seek offset", ints(1), lambda v: seek(offset=v)),
    ("File.Seek whence", ints(MPI.SEEK_SET), lambda v: seek(whence=v)),
    ("File.Set_size size", ints(8), set_size),
    ("Info.Set key", strs("k"), lambda v: info_set(key=v)),
    ("Info.Set value", strs("v"), lambda v: info_set(value=v)),
    ("Info.Create items", infos(), info_create),
    ("Status.Set_source", ints(1), lambda v: status_set("source", v)),
    ("Status.Set_tag", ints(1), lambda v: status_set("tag", v)),
    ("Status.Set_error", ints(0), lambda v: status_set("error", v)),
    ("Status.Set_elements count", ints(1), status_elements),
    ("Status.source =", ints(1), lambda v: status_property("source", v)),
    ("Status.tag =", ints(1), lambda v: status_property("tag", v)),
    ("Request.Waitall requests", request_kinds(), request_call("Waitall")),
    ("Request.Testall requests", request_kinds(), request_call("Testall")),
    ("Request.Waitany requests", request_kinds(), request_call("Waitany")),
    ("Request.Waitsome requests", request_kinds(), request_call("Waitsome")),
    ("Datatype.Create_contiguous count", ints(2), lambda v: made(MPI.INT.Create_contiguous(v))),
    ("Datatype.Create_vector count", ints(2), lambda v: made(MPI.INT.Create_vector(v, 1, 2))),
    ("Datatype.Create_vector blocklength", ints(1),
     lambda v: made(MPI.INT.Create_vector(2, v, 2))),
    ("Datatype.Create_vector stride", ints(2), lambda v: made(MPI.INT.Create_vector(2, 1, v))),
    ("Datatype.Create_hvector stride", ints(8),
     lambda v: made(MPI.INT.Create_hvector(2, 1, v))),
    ("Datatype.Create_indexed blocklengths", seqs([1]),
     lambda v: made(MPI.INT.Create_indexed(v, [1]))),
    ("Datatype.Create_indexed displacements", seqs([1]),
     lambda v: made(MPI.INT.Create_indexed([1], v))),
    ("Datatype.Create_hindexed displacements", seqs([4]),
     lambda v: made(MPI.INT.Create_hindexed([1], v))),
    ("Datatype.Create_indexed_block blocklength", ints(1),
     lambda v: made(MPI.INT.Create_indexed_block(v, [1]))),
    ("Datatype.Create_indexed_block displacements", seqs([1]),
     lambda v: made(MPI.INT.Create_indexed_block(1, v))),
    ("Datatype.Create_struct blocklengths", seqs([1]), lambda v: struct(blocklengths=v)),
    ("Datatype.Create_struct displacements", seqs([4]), lambda v: struct(displacements=v)),
    ("Datatype.Create_struct datatypes", typelists(), lambda v: struct(datatypes=v)),
    ("Datatype.Create_subarray sizes", seqs([2]), lambda v: subarray(sizes=v)),
    ("Datatype.Create_subarray starts", seqs([1]), lambda v: subarray(starts=v)),
    ("Datatype.Create_subarray order", ints(MPI.ORDER_C), lambda v: subarray(order=v)),
    ("Datatype.Create_resized lb", ints(0), lambda v: made(MPI.INT.Create_resized(v, 8))),
    ("Datatype.Create_resized extent", ints(8), lambda v: made(MPI.INT.Create_resized(0, v))),
    ("Comm.scatter root", ints(0), lambda v: comm.scatter([7], root=v)),
    ("Comm.gather root", ints(0), lambda v: comm.gather(7, root=v)),
    ("Comm.Split_type split_type", ints(MPI.COMM_TYPE_SHARED), split_type),
    ("Group.Range_incl ranks", ranges(), group_call("Range_incl")),
    ("Group.Range_excl ranks", ranges(), group_call("Range_excl")),
    ("Win.Get target", targets(), win_get_target),
    ("Win.Accumulate op", ops(), win_accumulate_op),
    ("File.Set_view etype and filetype", datatype_kinds(), set_view_type),
    ("Info.Get key", strs("k"), lambda v: info_get(v)),
    ("Status.Set_cancelled flag", ints(1), status_cancelled),
    ("Datatype.Create_subarray subsizes", seqs([1]), lambda v: subarray(subsizes=v)),
    ("Datatype.Create_hindexed_block displacements", seqs([4]),
     lambda v: made(MPI.INT.Create_hindexed_block(1, v))),
    ("Comm.Spawn maxprocs", ints(1), lambda v: spawn(maxprocs=v)),
    ("Comm.Spawn args", spawn_args(), lambda v: spawn(args=v)),
]


def outcome(call, value):
    try:
        return f"ok {call(value)!r}"
    except MPI.Exception as e:
        return f"MPI.Exception {ERR_NAMES.get(e.Get_error_class(), e.Get_error_class())}"
    except Exception as e:  # every outcome is the table's
        return f"{type(e).__name__}: {e}"


if __name__ == "__main__":
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    for label, kinds, call in SITES:
        if only and not label.startswith(only):
            continue
        for kind, value in kinds.items():
            print(f"{label} | {kind}: {outcome(call, value)}", flush=True)
