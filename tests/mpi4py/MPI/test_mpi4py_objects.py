"""The stand-in's Message, Status, Request, Datatype and mpi4py.util objects, rule by rule,
without a real library: each script prints what it observed and the test compares it with
what mpi4py 4.1 gives (observed with mpi4py 4.1.2 over MPICH 5.0.2, and worked out by hand
from the rule the test names)."""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from pathlib import Path

import mpisim as ms


def run(tmp_path: Path, body: str, ranks: int = 1, **kw) -> tuple[ms.Result, list]:
    """Run a script whose ranks print JSON lines; (result, rank 0's values)."""
    path = tmp_path / "prog.py"
    path.write_text("import json\nfrom mpi4py import MPI\ncomm = MPI.COMM_WORLD\n"
                    "def show(*v):\n    if comm.rank == 0:\n"
                    "        print(json.dumps(v), flush=True)\n" + textwrap.dedent(body))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(path, ranks=ranks, **kw)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return result, [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_message_is_received_once_and_no_proc_stays_itself(tmp_path):
    """3.8.2-3.8.3 and mpi4py's Message: after Recv a Message is MESSAGE_NULL; a probe of
    PROC_NULL gives MESSAGE_NO_PROC, whose receive leaves the constant as it is and makes a
    copy null; a receive of MESSAGE_NULL is MPI_ERR_REQUEST; an active Message does not
    pickle (ValueError) and the constants pickle as themselves."""
    _, seen = run(tmp_path, """
        import pickle
        import numpy as np
        req = comm.Isend(np.array([7], "i"), 0, 3)
        msg = comm.Mprobe(0, 3)
        try:
            pickle.dumps(msg)
        except ValueError:
            show("active message refused")
        buf = np.zeros(1, "i")
        msg.Recv(buf)
        req.Wait()
        show(int(buf[0]), msg == MPI.MESSAGE_NULL, bool(msg))
        noproc = comm.mprobe(MPI.PROC_NULL)
        show(noproc == MPI.MESSAGE_NO_PROC, noproc.recv(), bool(MPI.MESSAGE_NO_PROC))
        copy = MPI.Message(MPI.MESSAGE_NO_PROC)
        copy.recv()
        show(copy == MPI.MESSAGE_NULL)
        try:
            MPI.MESSAGE_NULL.Recv(buf)
        except MPI.Exception as e:
            show(e.Get_error_class() == MPI.ERR_REQUEST)
        show(pickle.loads(pickle.dumps(MPI.MESSAGE_NO_PROC)) is MPI.MESSAGE_NO_PROC)
    """)
    assert seen == [["active message refused"], [7, True, False], [True, None, True],
                    [True], [True], [True]]


def test_a_matched_message_is_not_seen_by_another_rank_thread_probe(tmp_path):
    """3.8.2: rank 1's two messages of one tag: Improbe takes the first, a plain recv then
    gets the second, and the Message's recv the first."""
    _, seen = run(tmp_path, """
        if comm.rank == 1:
            comm.send("first", 0, 5)
            comm.send("second", 0, 5)
        else:
            msg = None
            while msg is None:
                msg = comm.improbe(1, 5)
            show(comm.recv(source=1, tag=5), msg.recv())
    """, ranks=2)
    assert seen == [["second", "first"]]


def test_status_counts_and_elements_of_a_derived_type(tmp_path):
    """3.2.5 and 5.1.11: a vector of 2 blocks of 3 ints (size 24 B) received 20 B: not a
    whole element (Get_count UNDEFINED) but 5 basic elements; Set_elements(INT, 7) makes
    the count 28 B."""
    _, seen = run(tmp_path, """
        import numpy as np
        vec = MPI.INT.Create_vector(2, 3, 4).Commit()
        st = MPI.Status()
        req = comm.Isend(np.arange(5, dtype="i"), 0)
        comm.Recv([np.zeros(8, "i"), 1, vec], 0, status=st)
        req.Wait()
        show(st.Get_count(MPI.BYTE), st.Get_count(vec) == MPI.UNDEFINED,
             st.Get_elements(vec), st.Get_elements(MPI.INT))
        st.Set_elements(MPI.INT, 7)
        show(st.count, list(st.tomemory())[2:], st.Get_source(), st.Get_tag())
    """)
    assert seen == [[20, True, 5, 5], [28, [0, 0, 0], 0, 0]]


def test_request_get_status_any_all_some_complete_nothing(tmp_path):
    """MPI 4.1 §3.7.6: MPI_Request_get_status_any/all/some report completion and leave
    the requests as they are (a wait afterwards still completes them)."""
    _, seen = run(tmp_path, """
        import numpy as np
        a = comm.Isend(np.zeros(1), 0, 1)
        b = comm.Irecv(np.zeros(1), 0, 1)
        reqs = [a, b]
        flag = False
        while not flag:
            flag = MPI.Request.Get_status_all(reqs)
        show(MPI.Request.Get_status_any(reqs)[1], MPI.Request.Get_status_some(reqs),
             [bool(r) for r in reqs])
        MPI.Request.Waitall(reqs)
        show([bool(r) for r in reqs], MPI.Request.Get_status_any(reqs))
    """)
    assert seen == [[True, [0, 1], [True, True]], [[False, False], [-32766, True]]]


def test_datatype_envelope_decode_and_pickle(tmp_path):
    """5.1.13 (envelope and contents, MPICH's large-count form) and mpi4py's decode and
    pickling: a vector's counts are its count, blocklength and stride; pickled, it is made
    again from them; a named type pickles as itself."""
    _, seen = run(tmp_path, """
        import pickle
        vec = MPI.DOUBLE.Create_vector(3, 2, 5)
        old, name, params = vec.decode()
        show(vec.Get_envelope(), vec.Get_contents()[:3], old == MPI.DOUBLE, name, params)
        again = pickle.loads(pickle.dumps(vec))
        show(again.decode()[1:], again.extent, again.size)
        show(pickle.loads(pickle.dumps(MPI.INT)) is MPI.INT, MPI.Datatype.fromcode("d") is
             MPI.DOUBLE, MPI.LONG_LONG.Get_name(), MPI.LOGICAL1 == MPI.DATATYPE_NULL)
    """)
    assert seen == [
        [[0, 0, 3, 1, 4], [[], [], [3, 2, 5]], True, "VECTOR",
         {"count": 3, "blocklength": 2, "stride": 5}],
        [["VECTOR", {"count": 3, "blocklength": 2, "stride": 5}], 96, 48],  # (2*5+2)*8
        [True, True, "MPI_LONG_LONG_INT", True]]


def test_pkl5_sends_a_header_then_the_stream_then_each_large_buffer(tmp_path):
    """mpi4py.util.pkl5's wire format: a header of int64 lengths, the protocol-5 stream,
    then each out-of-band buffer (256 KiB or more): an object holding one 1 MiB array is 3
    messages, the header 16 B (two lengths), the array 1 MiB; a small object is 2."""
    result, seen = run(tmp_path, """
        import numpy as np
        from mpi4py.util import pkl5
        world = pkl5.Intracomm(comm)
        if comm.rank == 0:
            world.send({"big": np.ones(1 << 17)}, 1, 9)
            world.send("small", 1, 9)
        else:
            status = MPI.Status()
            big = world.recv(None, 0, 9, status)
            print(json.dumps([float(big["big"].sum()), status.Get_count(MPI.BYTE) > 1 << 20,
                              world.recv(None, 0, 9)]))
    """, ranks=2)
    rows = result.trace.messages
    sizes = [int(n) for n in rows["bytes"]]
    assert len(sizes) == 5
    assert sizes[0] == 16 and sizes[2] == 1 << 20 and sizes[3] == 8
    assert seen == [[131072.0, True, "small"]]  # (printed by rank 1)


def test_dtlib_round_trips_a_structured_dtype(tmp_path):
    """mpi4py.util.dtlib: a structured numpy dtype becomes a struct resized to its itemsize,
    and back the same layout, its fields named f0, f1 (as mpi4py 4.1.2 gives)."""
    _, seen = run(tmp_path, """
        import numpy as np
        from mpi4py.util.dtlib import from_numpy_dtype, to_numpy_dtype
        dt = np.dtype([("a", "i4"), ("b", "f8")], align=True)
        mt = from_numpy_dtype(dt)
        back = np.dtype([("f0", "i4"), ("f1", "f8")], align=True)  # fields renamed, as
        show(mt.size, mt.extent, to_numpy_dtype(mt) == back,  # mpi4py's dtlib does
             to_numpy_dtype(MPI.DOUBLE_INT).itemsize)
    """)
    assert seen == [[12, 16, True, 16]]


def test_darray_owns_the_elements_of_its_block_and_cycle(tmp_path):
    """5.1.4: a 4 x 6 array of ints on a 2 x 3 grid, BLOCK rows (2 each) and CYCLIC
    columns: rank 3 (coordinates 1, 0) owns rows 2-3 and columns 0 and 3, elements 12, 15,
    18, 21 in C order (as MPICH 5.0.2 gives); the type spans the whole array (96 B)."""
    _, seen = run(tmp_path, """
        import numpy as np
        t = MPI.INT.Create_darray(6, 3, [4, 6], [MPI.DISTRIBUTE_BLOCK,
                                  MPI.DISTRIBUTE_CYCLIC], [MPI.DISTRIBUTE_DFLT_DARG] * 2,
                                  [2, 3]).Commit()
        got = np.zeros(4, "i")
        comm.Sendrecv([np.arange(24, dtype="i"), 1, t], 0, 0, got, 0, 0)
        show(t.size, t.extent, got.tolist(), t.decode()[1], t.Get_envelope())
    """)
    assert seen == [[16, 96, [12, 15, 18, 21], "DARRAY", [10, 0, 2, 1, 14]]]  # 3 + 3 x 2 + 1


def test_idup_gives_a_communicator_usable_once_its_request_completes(tmp_path):
    """MPI 4.1 §7.4.2 MPI_Comm_idup: the new communicator must not be used before the
    request completes (using it is MPI_ERR_COMM here), it is not MPI_COMM_NULL (MPICH's
    handle is set at once, observed with mpi4py 4.1.2 over MPICH 5.0.2); after the wait it
    has this one's group and class, and its own context."""
    _, seen = run(tmp_path, """
        new, req = comm.Idup()
        show(new == MPI.COMM_NULL, type(new).__name__)
        try:
            new.Get_size()
        except MPI.Exception as e:
            show("early", e.Get_error_class() == MPI.ERR_COMM)
        if comm.rank == 1:
            comm.send("on the old one", dest=0, tag=5)
        req.Wait()
        if comm.rank == 1:
            new.send("on the new one", dest=0, tag=5)
        if comm.rank == 0:
            show(new.Get_size(), new.recv(source=1, tag=5), comm.recv(source=1, tag=5))
        new2, req2 = comm.Idup_with_info(MPI.INFO_NULL)
        MPI.Request.Waitall([req2])
        show(MPI.Comm.Compare(comm, new2) == MPI.CONGRUENT)
        """, ranks=2)
    assert seen == [[False, "Intracomm"], ["early", True],
                    [2, "on the new one", "on the old one"], [True]]


def test_lowercase_scatter_and_alltoall_take_none_and_iterators_as_mpi4py_does(tmp_path):
    """mpi4py's lowercase scatter/alltoall: None is a None for every process, any iterable
    is listed, and a wrong length is ValueError "expecting N items, got M" (mpi4py 4.1.2's
    own test_util_pkl5 TestMPIWorld checks the same)."""
    _, seen = run(tmp_path, """
        show(comm.scatter(None, root=1), comm.alltoall(None))
        show(comm.scatter(iter(["a", "b"]), root=0), comm.alltoall(iter([comm.rank] * 2)))
        try:
            comm.alltoall([1, 2, 3])
        except ValueError as e:
            show(str(e))
        """, ranks=2)
    assert seen == [[None, [None, None]], ["a", [0, 1]], ["expecting 2 items, got 3"]]
