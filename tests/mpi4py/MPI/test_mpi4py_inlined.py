"""The stand-in's inlined buffer call against the general path it copies: ``Send``,
``Bsend``, ``Rsend``, ``Recv``... go through ``_buf_call``, which inlines ``c_int``, the
common case of the buffer-spec reader ``p2p``, ``current``, the world communicator's
``_c``/``_key``, ``RankContext.start`` on a line seen before and ``RankContext.wait`` on an
event that has already happened. Run with ``_buf_call`` replaced by those originals called
in turn, a script must print the same lines and give the same result and trace."""

from __future__ import annotations

import importlib
import json
import textwrap
from typing import Any

import pytest

import mpisim as ms


def _module_of_pt2pt() -> Any:
    """The stand-in's point-to-point module (``mpi4py/MPI/pt2pt.py`` once the stand-in's
    folder is split by role; ``mpi4py/pt2pt.py`` before)."""
    for name in ("mpisim.mpi4py.MPI.pt2pt", "mpisim.mpi4py.pt2pt"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise AssertionError("the stand-in's pt2pt module is not where it was")


pt2pt = _module_of_pt2pt()

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    right, left = (rank + 1) % size, (rank - 1) % size
    sub = comm.Split(rank % 2, rank)

    def attempt(what, f):
        try:
            f()
        except (MPI.Exception, BufferError, TypeError, ValueError, OverflowError) as e:
            print(rank, what, type(e).__name__, e)

    a = np.arange(8, dtype="d") + rank
    b = np.zeros(8, dtype="d")
    for spec_out, spec_in in [([a, MPI.DOUBLE], [b, MPI.DOUBLE]),      # the common case
                              (a, b),                                # bare arrays
                              ([a, 4, MPI.DOUBLE], [b, 4, MPI.DOUBLE]),
                              ([a, "d"], [b, "d"]),                  # a typecode
                              (a.reshape(2, 4), b.reshape(2, 4)),
                              ([a.reshape(2, 4), MPI.DOUBLE], [b.reshape(2, 4), MPI.DOUBLE]),
                              ([a[::2].copy(), MPI.DOUBLE], [b[:4], MPI.DOUBLE])]:
        comm.Send(spec_out, dest=right, tag=1)
        comm.Recv(spec_in, source=left, tag=1)
        print(rank, "got", b.tolist())
        a += 100  # each round's data its own
        b[:] = 0
    MPI.Attach_buffer(bytearray(4096))
    comm.Bsend([a, MPI.DOUBLE], dest=right, tag=np.int64(2))   # a numpy integer tag
    st = MPI.Status()
    comm.Recv([b, MPI.DOUBLE], source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=st)
    print(rank, "status", st.Get_source(), st.Get_tag(), st.Get_count(MPI.DOUBLE))
    MPI.Detach_buffer()
    comm.Send([a, MPI.DOUBLE], dest=MPI.PROC_NULL)
    comm.Recv([b, MPI.DOUBLE], source=MPI.PROC_NULL)
    if sub.Get_size() > 1:
        sub.Send([a, MPI.DOUBLE], dest=(sub.Get_rank() + 1) % sub.Get_size(), tag=3)
        sub.Recv([b, MPI.DOUBLE], source=(sub.Get_rank() - 1) % sub.Get_size(), tag=3)
        print(rank, "sub got", b[0])
    ro = np.frombuffer(bytes(64), dtype="d")
    comm.Send([a, MPI.DOUBLE], dest=right, tag=5)
    attempt("read-only", lambda: comm.Recv([ro, MPI.DOUBLE], source=left, tag=5))
    comm.Recv([b, MPI.DOUBLE], source=left, tag=5)
    attempt("huge rank", lambda: comm.Send([a, MPI.DOUBLE], dest=2**40))
    attempt("bad rank", lambda: comm.Send([a, MPI.DOUBLE], dest=size))
    attempt("mismatch", lambda: comm.Send([a, MPI.INT], dest=MPI.PROC_NULL))
    comm.Barrier()
    if rank == 0 and "rsend" in sys.argv:
        comm.Rsend([a, MPI.DOUBLE], dest=1, tag=9)   # 3.4: no receive posted yet
    if rank == 1 and "rsend" in sys.argv:
        import time
        time.sleep(0.001)
        comm.Recv([b, MPI.DOUBLE], source=0, tag=9)
''')


def _general_buf_call(self: Any, call: str, buf: Any, peer: Any, tag: Any, frame: Any,
                      sending: bool) -> Any:
    """``_buf_call`` as its originals: each helper it inlines, called in turn."""
    peer, tag = pt2pt.c_int(peer), pt2pt.c_int(tag)
    arr, count, dt = pt2pt.p2p(buf, peer, sending)
    ctx = pt2pt.current()
    mpi = ctx.mpi
    comm, key = self._c(mpi), self._key()
    ctx.start(frame)
    return ctx.wait(getattr(mpi, call)(arr, count, dt, peer, tag, comm), key)


def _owner() -> type:
    """The stand-in's class that holds ``_buf_call`` (whatever its name)."""
    owners = [c for c in vars(pt2pt).values()
              if isinstance(c, type) and "_buf_call" in vars(c)]
    assert len(owners) == 1
    return owners[0]


def _run(path: Any, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple:
    result = ms.run_mpi4py(path, ranks=4, args=args)
    printed = sorted(capsys.readouterr().out.splitlines())
    trace = json.dumps([result.trace.messages.tolist(), result.trace.calls.tolist(),
                        result.trace.buffer.tolist()])
    return result.outcome, printed, result.to_json(), trace


@pytest.mark.parametrize("args", [[], ["rsend"]], ids=["sends", "rsend-too-early"])
def test_the_inlined_buffer_call_runs_a_script_as_its_originals_do(args, tmp_path, capsys,
                                                                    monkeypatch):
    path = tmp_path / "buffers.py"
    path.write_text(SCRIPT)
    fast = _run(path, args, capsys)
    with monkeypatch.context() as m:
        m.setattr(_owner(), "_buf_call", _general_buf_call)
        general = _run(path, args, capsys)
    assert general == fast
    assert fast[0] is (ms.Outcome.ERROR if args else ms.Outcome.COMPLETED)
    assert sum(line.split()[1] == "got" for line in fast[1]) == 4 * 7
    assert any("read-only" in line for line in fast[1])
