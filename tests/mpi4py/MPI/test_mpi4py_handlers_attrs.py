"""Error handlers (MPI 4.1 §9.3), errors reported in statuses (§3.7.5, MPI_ERR_IN_STATUS),
attributes of datatypes and windows (§7.7.4, §7.7.3), and scripts whose names YAML would
read as something else: each script prints what it observed, and the test compares it with
what the real library printed for the same script (observed with mpi4py 4.1.2 over MPICH
5.0.2, and Open MPI 5.0.11 where the profile is ``openmpi``)."""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from pathlib import Path

import pytest

import mpisim as ms
from mpisim.cli.main import main

HEADER = ("import json\nfrom mpi4py import MPI\ncomm = MPI.COMM_WORLD\n"
          "def show(*v):\n    if comm.rank == 0:\n        print(json.dumps(v), flush=True)\n"
          "def outcome(f):\n    try:\n        return ['ok', f()]\n"
          "    except MPI.Exception as e:\n        return ['MPI', e.Get_error_class()]\n"
          "    except Exception as e:\n        return [type(e).__name__, str(e)]\n")


def run(tmp_path: Path, body: str, ranks: int = 1, name: str = "prog.py",
        **kw) -> list:
    """Run a script whose rank 0 prints JSON lines; its values."""
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = ms.run_mpi4py(path, ranks=ranks, **kw)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("[")]


# -- error handlers (§9.3) -------------------------------------------------------------------
def test_errhandlers_are_values_a_free_makes_null(tmp_path):
    """§9.3.4: Get_errhandler gives a new handle equal to the one in force; its Free makes
    it MPI_ERRHANDLER_NULL, the constants stay; freeing or setting the null handler is
    MPI_ERR_ERRHANDLER; a non-handler is mpi4py's TypeError; ERRORS_ABORT reads back as
    itself; Call_errhandler under ERRORS_RETURN returns (observed with mpi4py 4.1.2 over
    MPICH 5.0.2)."""
    got = run(tmp_path, """
        e = comm.Get_errhandler()
        show(e == MPI.ERRORS_RETURN, e is MPI.ERRORS_RETURN, bool(e),
             bool(MPI.ERRHANDLER_NULL), e.handle == MPI.ERRORS_RETURN.handle)
        e.Free()
        show(e == MPI.ERRHANDLER_NULL, MPI.ERRORS_RETURN.Free(),
             MPI.ERRORS_RETURN == MPI.ERRHANDLER_NULL)
        show(outcome(MPI.ERRHANDLER_NULL.Free), outcome(
             lambda: comm.Set_errhandler(MPI.ERRHANDLER_NULL))[0],
             outcome(lambda: comm.Set_errhandler(None))[0])
        comm.Set_errhandler(MPI.ERRORS_ABORT)
        show(comm.Get_errhandler() == MPI.ERRORS_ABORT)
        comm.Set_errhandler(MPI.ERRORS_RETURN)
        show([outcome(lambda: comm.Call_errhandler(c)) for c in (MPI.ERR_OTHER, MPI.ERR_ARG)])
        show(MPI.ERRORS_RETURN.toint(), MPI.ERRHANDLER_NULL.toint(),
             MPI.Errhandler() == MPI.ERRHANDLER_NULL)
        import pickle
        show(pickle.loads(pickle.dumps(MPI.ERRORS_RETURN)) is MPI.ERRORS_RETURN)
        w = MPI.Win.Create(None, comm=comm)
        show(w.Get_errhandler() == MPI.ERRORS_RETURN, outcome(lambda: w.Call_errhandler(45)))
        w.Free()
    """)
    assert got == [
        [True, False, True, False, True],
        [True, None, False],
        [["MPI", 80], "MPI", "TypeError"],
        [True],
        [[["ok", None], ["ok", None]]],
        [1409286145, 335544320, True],
        [True],
        [True, ["ok", None]],
    ]


def test_call_errhandler_under_errors_are_fatal_ends_the_run(tmp_path):
    """§9.3.5: MPI_Comm_call_errhandler invokes the handler in force; MPI_ERRORS_ARE_FATAL
    ends the job (observed: MPICH 5.0.2 aborts it)."""
    path = tmp_path / "prog.py"
    path.write_text("from mpi4py import MPI\nMPI.COMM_WORLD.Set_errhandler(MPI.ERRORS_ARE_FATAL)\n"
                    "try:\n    MPI.COMM_WORLD.Call_errhandler(MPI.ERR_OTHER)\n"
                    "except Exception:\n    pass\n")
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_OTHER"


# -- errors in statuses (§3.7.5) -------------------------------------------------------------
STATUSES = """
    import numpy as np
    def seen(sts):
        return [(s.source, s.tag, MPI.Get_error_class(s.error) if s.error != 99 else 99,
                 s.Get_count(MPI.BYTE)) for s in sts]
    for call in ("Waitall", "Testall", "Waitsome", "Testsome", "waitall"):
        if comm.rank == 1:
            for t, n in ((0, 1), (1, 4), (2, 1), (3, 4)):
                comm.Send(np.zeros(n, 'i'), 0, t)
            comm.Send(np.zeros(1, 'i'), 0, 9)
        else:
            bufs = [np.zeros(2, 'i') for _ in range(4)]
            reqs = [comm.Irecv(bufs[t], 1, t) for t in range(4)]
            sts = [MPI.Status() for _ in reqs]
            for s in sts:
                s.error = 99
            comm.Recv(np.zeros(1, 'i'), 1, 9)  # the messages before it are received
            show(call, outcome(lambda: getattr(MPI.Request, call)(reqs, sts))[:2] ,
                 seen(sts), [bool(r) for r in reqs])
            show(call, [outcome(r.Wait) for r in reqs if r])
        comm.Barrier()
    for call in ("Wait", "Waitany"):
        if comm.rank == 1:
            comm.Send(np.zeros(4, 'i'), 0, 1)
        else:
            status = MPI.Status()
            status.error = 99
            r = comm.Irecv(np.zeros(2, 'i'), 1, 1)
            f = (lambda: r.Wait(status)) if call == "Wait" else (
                lambda: MPI.Request.Waitany([r], status))
            show(call, outcome(f), seen([status]))
        comm.Barrier()
"""


@pytest.mark.parametrize("profile", ["mpich", "openmpi"])
def test_errors_in_statuses_as_the_profiles_library(tmp_path, profile):
    """§3.7.5 as each library does it: under MPICH 5.0.2 (and the default profile), a
    Waitall stops at the first failing request, the later ones left active with
    MPI_ERR_PENDING, and a later Wait completes each (raising its own truncation); Open
    MPI 5.0.11 completes them all, each status with its error or MPI_SUCCESS. Testall,
    Waitsome and Testsome complete every complete request, each status with its error;
    Wait and Waitany raise MPI_ERR_TRUNCATE and leave the status's error field (99 here)
    as it was. Observed with mpi4py 4.1.2 (statuses as MPICH reports them: the truncated
    count is the buffer's 8 B; Open MPI's is the message's 16 B, which the stand-in does
    not follow)."""
    got = run(tmp_path, STATUSES, ranks=2, mpi={"profile": profile})
    ok, cut = 0, 14  # MPI_SUCCESS, MPI_ERR_TRUNCATE
    filled = [[1, 0, ok, 4], [1, 1, cut, 8], [1, 2, ok, 4], [1, 3, cut, 8]]
    pending = [-2, -1, 18, 0]  # mpi4py's fresh status, MPI_ERR_PENDING
    if profile == "mpich":
        waitall = [["MPI", 17], [*filled[:2], pending, pending], [False, False, True, True]]
        later = [["ok", True], ["MPI", cut]]
    else:
        waitall = [["MPI", 17], filled, [False] * 4]
        later = []
    everything = [["MPI", 17], filled, [False] * 4]
    assert got == [
        ["Waitall", *waitall], ["Waitall", later],
        ["Testall", *everything], ["Testall", []],
        ["Waitsome", *everything], ["Waitsome", []],
        ["Testsome", *everything], ["Testsome", []],
        ["waitall", *waitall], ["waitall", later],
        ["Wait", ["MPI", cut], [[1, 1, 99, 8]]],
        ["Waitany", ["MPI", cut], [[1, 1, 99, 8]]],
    ]


def test_testall_not_all_complete_reports_a_failed_one_as_mpich(tmp_path):
    """§3.7.5 in MPICH 5.0.2: a Testall while a request is incomplete and a complete one
    failed raises MPI_ERR_IN_STATUS, fills the complete ones' statuses (the error in its),
    marks the incomplete one MPI_ERR_PENDING and completes none; later Waits complete
    them (observed with mpi4py 4.1.2: statuses [(1,0,0,4), (1,1,TRUNCATE,8), (-2,-1,
    PENDING,0)], every request still active)."""
    got = run(tmp_path, """
        import numpy as np, time
        if comm.rank == 1:
            comm.Send(np.zeros(1, 'i'), 0, 0)
            comm.Send(np.zeros(4, 'i'), 0, 1)
            comm.Send(np.zeros(1, 'i'), 0, 9)
            time.sleep(1)
            comm.Send(np.zeros(1, 'i'), 0, 2)
        else:
            reqs = [comm.Irecv(np.zeros(2, 'i'), 1, t) for t in range(3)]
            sts = [MPI.Status() for _ in reqs]
            comm.Recv(np.zeros(1, 'i'), 1, 9)
            show(outcome(lambda: MPI.Request.Testall(reqs, sts)),
                 [(s.source, s.tag, MPI.Get_error_class(s.error), s.Get_count()) for s in sts],
                 [bool(r) for r in reqs])
            show([outcome(r.Wait) for r in reqs])
    """, ranks=2)
    assert got == [[["MPI", 17], [[1, 0, 0, 4], [1, 1, 14, 8], [-2, -1, 18, 0]],
                    [True, True, True]],
                   [[["ok", True], ["MPI", 14], ["ok", True]]]]


# -- attributes of datatypes and windows (§7.7.4, §7.7.3) ------------------------------------
def test_datatype_attributes_copied_by_dup_deleted_by_free(tmp_path):
    """§7.7.4: each kind has its keyvals (another kind's is MPI_ERR_KEYVAL); a predefined
    type takes attributes; Dup and Create_dup copy by copy_fn, Create_contiguous does not,
    Commit keeps them; replacing or Free calls delete_fn; Delete_attr of an attribute not
    set does nothing; a nopython keyval holds C integers (observed with mpi4py 4.1.2 over
    MPICH 5.0.2)."""
    got = run(tmp_path, """
        kc, kt = MPI.Comm.Create_keyval(), MPI.Datatype.Create_keyval()
        t = MPI.INT.Dup()
        show(outcome(lambda: t.Set_attr(kc, 1)), outcome(lambda: comm.Set_attr(kt, 1)),
             outcome(lambda: t.Get_attr(kt)), outcome(lambda: t.Delete_attr(kt)),
             outcome(lambda: MPI.DATATYPE_NULL.Get_attr(kt)),
             outcome(lambda: t.Get_attr(MPI.KEYVAL_INVALID)))
        MPI.INT.Set_attr(kt, 5)
        show(MPI.INT.Get_attr(kt), MPI.INT.Dup().Get_attr(kt))
        MPI.INT.Delete_attr(kt)
        deleted = []
        k = MPI.Datatype.Create_keyval(True, lambda o, key, v: deleted.append(v))
        t.Set_attr(k, "a")
        t.Set_attr(k, "b")
        t.Commit()
        u = t.Dup()
        show(deleted, t.Get_attr(k), u.Get_attr(k), t.Create_dup().Get_attr(k),
             t.Create_contiguous(2).Get_attr(k))
        t.Free()
        show(deleted)
        kn = MPI.Datatype.Create_keyval(nopython=True)
        show(outcome(lambda: u.Set_attr(kn, "s")),
             outcome(lambda: (u.Set_attr(kn, -7), u.Get_attr(kn))[1]))
        show(MPI.Datatype.Free_keyval(kt) == MPI.KEYVAL_INVALID)
    """)
    assert got == [
        [["MPI", 48], ["MPI", 48], ["ok", None], ["ok", None], ["MPI", 3], ["MPI", 48]],
        [5, None],
        [["a"], "b", "b", "b", None],
        [["a", "b"]],
        [["TypeError", "an integer is required"], ["ok", 2**64 - 7]],
        [True],
    ]


def test_window_attributes_beside_the_predefined_ones(tmp_path):
    """§7.7.3: a window takes attributes under Win keyvals (a communicator's is
    MPI_ERR_KEYVAL); the predefined WIN_* keys are read, never set or deleted
    (MPI_ERR_KEYVAL); Free calls the delete callbacks (observed with mpi4py 4.1.2 over
    MPICH 5.0.2)."""
    got = run(tmp_path, """
        kc, kw = MPI.Comm.Create_keyval(), MPI.Win.Create_keyval()
        deleted = []
        kd = MPI.Win.Create_keyval(None, lambda o, key, v: deleted.append(v))
        win = MPI.Win.Create(MPI.BOTTOM, 1, MPI.INFO_NULL, MPI.COMM_SELF)
        show(outcome(lambda: win.Set_attr(kc, 1)), win.Get_attr(kw),
             outcome(lambda: win.Set_attr(MPI.WIN_BASE, 1)),
             outcome(lambda: win.Delete_attr(MPI.WIN_BASE)), win.Get_attr(MPI.WIN_SIZE))
        win.Set_attr(kw, [1])
        win.Set_attr(kd, "wv")
        show(win.Get_attr(kw), deleted)
        win.Free()
        show(deleted)
    """)
    assert got == [[["MPI", 48], None, ["MPI", 48], ["MPI", 48], 0], [[1], []], [["wv"]]]


def test_comm_attribute_not_set_deletes_quietly_and_nopython_holds_integers(tmp_path):
    """§7.7.2: deleting an attribute not set does nothing (MPICH 5.0.2; Open MPI 5.0.11
    raises MPI_ERR_OTHER); a keyval that is none is MPI_ERR_KEYVAL; a nopython keyval holds
    C integers, read back unsigned (observed with mpi4py 4.1.2)."""
    got = run(tmp_path, """
        d = comm.Dup()
        k, kn = MPI.Comm.Create_keyval(), MPI.Comm.Create_keyval(nopython=True)
        show(outcome(lambda: d.Delete_attr(k)), outcome(lambda: d.Get_attr(12345)),
             outcome(lambda: d.Delete_attr(MPI.TAG_UB)), outcome(lambda: d.Set_attr(kn, "s")),
             outcome(lambda: (d.Set_attr(kn, -7), d.Get_attr(kn))[1]))
        d.Free()
    """)
    assert got == [[["ok", None], ["MPI", 48], ["MPI", 48],
                    ["TypeError", "an integer is required"], ["ok", 2**64 - 7]]]


# -- a script's name stays text ---------------------------------------------------------------
@pytest.mark.parametrize("stem", ["null", "true", "yes", "1", "0x10", "~", "on", "1e3"])
def test_a_script_named_like_a_yaml_value_runs_under_its_name(tmp_path, capsys, stem):
    """A script's name is text whatever YAML would read in it (null.py, yes.py, 1.py...):
    ``mpisim mpi4py`` runs it and names the run after it, as mpiexec runs any file (it
    was ``<settings>:1: name: expected text, got null``)."""
    path = tmp_path / f"{stem}.py"
    path.write_text("from mpi4py import MPI\nMPI.COMM_WORLD.Barrier()\n")
    assert main(["mpi4py", "-n", "2", str(path)]) == 0
    assert capsys.readouterr().err.startswith(f"{stem}: COMPLETED")  # (the report: stderr)
