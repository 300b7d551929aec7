"""The mpi4py stand-in: unmodified mpi4py scripts run as simulated ranks."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from helpers.paths import SCENARIOS

import mpisim as ms
from mpisim.cli.main import main

SCRIPTS = SCENARIOS / "mpi4py"


def script(tmp_path: Path, body: str, name: str = "prog.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def line_of(path: Path, text: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(text)


# -- point-to-point, the standard's Example 3.10 --------------------------------------------
def test_example_3_10_send_completes_below_the_eager_limit_with_the_data(capsys):
    """3.5: standard sends of messages under the eager limit complete before the receive."""
    result = ms.run_mpi4py(SCRIPTS / "exchange.py", ranks=2, args=["send", "100"])
    assert result.outcome is ms.Outcome.COMPLETED
    out = capsys.readouterr().out
    assert "rank 0: received 100 floats from 1, sum 100" in out
    assert "rank 1: received 100 floats from 0, sum 0" in out


def test_example_3_10_send_deadlocks_above_the_eager_limit_naming_the_script_line():
    """3.5 Example 3.10 is unsafe: rendezvous sends block both ranks; the report names the
    script's file:line of each blocked call."""
    path = SCRIPTS / "exchange.py"
    result = ms.run_mpi4py(path, ranks=2, args=["send", "2000"],
                           network={"eager_limit": "4 KiB"})
    assert result.outcome is ms.Outcome.DEADLOCK
    line = line_of(path, "getattr(comm, mode.capitalize())")
    blocked = {b.rank: b for b in result.deadlock.blocked}
    assert set(blocked) == {0, 1}
    for b in blocked.values():
        assert b.call == "MPI_Send"
        assert b.where.startswith(f"exchange.py:{line}")


def test_ssend_always_deadlocks_and_bsend_completes_with_an_exact_buffer():
    """3.6: an attached buffer of pack_size + BSEND_OVERHEAD holds one message."""
    ssend = ms.run_mpi4py(SCRIPTS / "exchange.py", ranks=2, args=["ssend", "10"])
    assert ssend.outcome is ms.Outcome.DEADLOCK
    bsend = ms.run_mpi4py(SCRIPTS / "exchange.py", ranks=2, args=["bsend", "2000"])
    assert bsend.outcome is ms.Outcome.COMPLETED
    assert [r.buffer.bsends for r in bsend.ranks] == [1, 1]
    small = ms.run_mpi4py(SCRIPTS / "exchange.py", ranks=2, args=["bsend", "2000", "8000"])
    assert small.outcome is ms.Outcome.ERROR
    assert small.error.error_class == "MPI_ERR_BUFFER"
    assert small.error.call == "MPI_Bsend"


def test_pickled_objects_travel_as_their_pickle_and_arrive_as_copies(tmp_path):
    path = script(tmp_path, """
        import pickle
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        shared = {"k": [1, 2, 3]}
        if comm.rank == 0:
            comm.send(shared, dest=1, tag=5)
            status = MPI.Status()
            back = comm.recv(source=1, tag=6, status=status)
            assert back == {"k": [1, 2, 3, 4]}, back
            assert shared == {"k": [1, 2, 3]}  # the receiver changed its own copy
            assert status.Get_source() == 1 and status.Get_tag() == 6
            assert status.Get_count() == len(pickle.dumps(back, pickle.HIGHEST_PROTOCOL))
        else:
            got = comm.recv(source=0, tag=5)
            got["k"].append(4)
            req = comm.isend(got, dest=0, tag=6)
            assert req
            assert req.wait() is None
            assert not req
    """)
    result = ms.run_mpi4py(path, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_nonblocking_families_wait_and_test_any_all_some(tmp_path):
    path = script(tmp_path, """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        me = comm.rank
        reqs = [comm.irecv(source=me, tag=t) for t in (1, 2, 3)]
        index, flag, obj = MPI.Request.testany(reqs)
        assert (index, flag, obj) == (MPI.UNDEFINED, False, None)
        comm.send("two", dest=me, tag=2)
        index, obj = MPI.Request.waitany(reqs)
        assert (index, obj) == (1, "two") and not reqs[1]
        comm.send("one", dest=me, tag=1)
        comm.send("three", dest=me, tag=3)
        assert MPI.Request.waitall(reqs) == ["one", None, "three"]
        assert MPI.Request.waitany(reqs) == (MPI.UNDEFINED, None)
        buf = bytearray(8)
        r = comm.Irecv([buf, MPI.BYTE], source=me, tag=9)
        s = comm.Isend([b"abcdefgh", MPI.BYTE], dest=me, tag=9)
        statuses = []
        assert MPI.Request.Waitall([r, s], statuses) is True
        assert bytes(buf) == b"abcdefgh" and statuses[0].Get_count(MPI.BYTE) == 8
        r = comm.Irecv(buf, source=me, tag=10)
        assert MPI.Request.Testsome([r]) == []
        comm.Send(b"12345678", dest=me, tag=10)
        assert MPI.Request.Waitsome([r]) == [0]
        assert MPI.Request.Waitsome([r]) is None
    """)
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_buffer_specs_receive_into_the_callers_memory(tmp_path):
    path = script(tmp_path, """
        import array
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        me = comm.rank
        comm.Send([np.arange(6, dtype="d"), MPI.DOUBLE], dest=me, tag=1)
        got = np.zeros(6)
        comm.Recv([got, 4, MPI.DOUBLE], source=me, tag=1) if False else comm.Recv(got, me, 1)
        assert list(got) == [0, 1, 2, 3, 4, 5]
        a = array.array("i", [7, 8, 9])
        comm.Send([a, 2, MPI.INT], dest=me, tag=2)
        b = array.array("i", [0, 0, 0])
        st = MPI.Status()
        comm.Recv([b, MPI.INT], source=me, tag=2, status=st)
        assert list(b) == [7, 8, 0] and st.Get_count(MPI.INT) == 2
        assert st.Get_count(MPI.LONG_DOUBLE) == MPI.UNDEFINED
        assert MPI.DOUBLE.Get_size() == 8 and MPI.INT.Get_extent() == (0, 4)
        v = MPI.DOUBLE.Create_vector(2, 1, 2).Commit()
        assert v.Get_size() == 16 and v.Get_extent() == (0, 24)
        v.Free()
    """)
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_collectives_lowercase_and_uppercase(tmp_path):
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        r, p = comm.Get_rank(), comm.Get_size()
        assert comm.bcast({"x": 1} if r == 0 else None, root=0) == {"x": 1}
        assert comm.allreduce(r, op=MPI.SUM) == sum(range(p))
        assert comm.allreduce([r], op=MPI.SUM) == list(range(p))  # mpi4py: SUM is +
        assert comm.reduce(r, op=MPI.MAX, root=1) == (p - 1 if r == 1 else None)
        assert comm.allgather(r * r) == [i * i for i in range(p)]
        assert comm.gather(r, root=0) == (list(range(p)) if r == 0 else None)
        assert comm.scatter([i + 10 for i in range(p)] if r == 0 else None) == r + 10
        assert comm.alltoall([(r, k) for k in range(p)]) == [(k, r) for k in range(p)]
        assert comm.allreduce(r, op=lambda a, b: a * 10 + b) is not None
        send = np.full(3, r, dtype="i")
        total = np.empty(3, dtype="i")
        comm.Allreduce(send, total, op=MPI.SUM)
        assert list(total) == [sum(range(p))] * 3
        data = np.arange(4, dtype="d") if r == 0 else np.zeros(4)
        comm.Bcast([data, MPI.DOUBLE], root=0)
        assert list(data) == [0, 1, 2, 3]
        everyone = np.empty(p, dtype="i")
        comm.Allgather(np.array([r], dtype="i"), everyone)
        assert list(everyone) == list(range(p))
        comm.Barrier()
    """)
    result = ms.run_mpi4py(path, ranks=4)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_dup_split_and_free_give_communicators_with_their_own_matching(tmp_path):
    """6.4: a message on one communicator never matches a receive on another."""
    path = script(tmp_path, """
        from mpi4py import MPI
        world = MPI.COMM_WORLD
        dup = world.Dup()
        r = world.rank
        if r == 0:
            world.send("world", dest=1, tag=0)
            dup.send("dup", dest=1, tag=0)
        elif r == 1:
            assert dup.recv(source=0, tag=0) == "dup"
            assert world.recv(source=0, tag=0) == "world"
        half = world.Split(color=r % 2, key=-r)
        assert half.Get_size() == 2 and half.Get_rank() == (0 if r >= 2 else 1)
        assert half.allgather(r) == sorted([r, (r + 2) % 4], reverse=True)
        none = world.Split(MPI.UNDEFINED if r == 3 else 0)
        assert (none == MPI.COMM_NULL) == (r == 3)
        dup.Free()
        half.Free()
        assert MPI.COMM_SELF.Get_size() == 1 and MPI.COMM_SELF.allgather(r) == [r]
    """)
    result = ms.run_mpi4py(path, ranks=4)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


# -- errors ---------------------------------------------------------------------------------
def test_mpi_errors_are_catchable_as_mpi_exception_with_their_class(tmp_path):
    """3.6: a bsend that does not fit raises MPI_ERR_BUFFER; mpi4py raises MPI.Exception."""
    path = script(tmp_path, """
        from mpi4py import MPI
        MPI.Attach_buffer(bytearray(10))
        try:
            MPI.COMM_WORLD.bsend("x" * 100, dest=0, tag=0)
        except MPI.Exception as e:
            assert e.Get_error_class() == MPI.ERR_BUFFER, e.Get_error_class()
            assert "MPI_ERR_BUFFER" in e.Get_error_string()
        else:
            raise AssertionError("no error")
        buf = MPI.Detach_buffer()
        assert isinstance(buf, bytearray) and len(buf) == 10
        assert MPI.Get_error_string(MPI.ERR_TRUNCATE).startswith("MPI_ERR_TRUNCATE")
    """)
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_an_uncaught_mpi_error_ends_the_run_as_error_at_the_script_line(tmp_path):
    """3.2.2 MPI_ERR_TRUNCATE: a receive buffer smaller than the message."""
    path = script(tmp_path, """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        comm.Send(bytearray(16), dest=0, tag=0)
        comm.Recv(bytearray(8), source=0, tag=0)
    """)
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_TRUNCATE"
    assert result.error.where.startswith(f"prog.py:{line_of(path, 'Recv')}")


def test_a_python_exception_in_one_rank_ends_the_run_with_its_traceback(tmp_path):
    path = script(tmp_path, """
        from mpi4py import MPI
        def work(rank):
            return 1 / (rank - 1)
        MPI.COMM_WORLD.Barrier()
        work(MPI.COMM_WORLD.rank)
    """)
    result = ms.run_mpi4py(path, ranks=3)
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.rank == 1
    assert result.error.error_class == "ZeroDivisionError"
    tb = result.error.traceback
    assert f'prog.py", line {line_of(path, "return 1 /")}, in work' in tb
    assert "mpisim" not in tb.replace(str(tmp_path), "")  # only the script's frames


def test_unsupported_calls_raise_not_implemented_naming_the_call(tmp_path):
    path = script(tmp_path, """
        from mpi4py import MPI
        for what in (lambda: MPI.Grequest, lambda: MPI.COMM_WORLD.Psend_init,
                     lambda: MPI.Add_error_class):
            try:
                what()
            except NotImplementedError as e:
                assert "not supported by mpisim's mpi4py stand-in" in str(e)
                assert "table of supported calls" in str(e)
            else:
                raise AssertionError("supported?")
        assert not hasattr(MPI, "Grequest") and hasattr(MPI, "COMM_WORLD")
        MPI.COMM_WORLD.Psend_init(None, 1, 0)
    """)
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "Unsupported"
    assert "Intracomm.Psend_init is not supported" in result.error.message


def test_a_script_exit_status_other_than_zero_is_an_error(tmp_path):
    ok = script(tmp_path, "import sys\nfrom mpi4py import MPI\nsys.exit(0)\n", "ok.py")
    assert ms.run_mpi4py(ok, ranks=2).outcome is ms.Outcome.COMPLETED
    bad = script(tmp_path, "import sys\nfrom mpi4py import MPI\n"
                 "sys.exit(3 if MPI.COMM_WORLD.rank else 0)\n", "bad.py")
    result = ms.run_mpi4py(bad, ranks=2)
    assert result.outcome is ms.Outcome.ERROR and result.error.rank == 1
    assert "status 3" in result.error.message


# -- the environment each rank sees ------------------------------------------------------------
def test_each_rank_runs_the_script_fresh_with_its_argv_and_the_hook_is_scoped(tmp_path):
    path = script(tmp_path, """
        import sys
        import helper
        from mpi4py import MPI
        counter = globals().setdefault("counter", 0) + 1
        assert counter == 1  # a fresh namespace per rank
        assert sys.argv[1:] == ["a", "b"] and sys.argv[0].endswith("prog.py")
        assert __name__ == "__main__"
        assert helper.MPI is MPI and MPI.Is_initialized() and not MPI.Is_finalized()
        assert "mpisim" in MPI.Get_library_version()
        t0 = MPI.Wtime()
        MPI.COMM_WORLD.Barrier()
        assert MPI.Wtime() >= t0
        MPI.Finalize()
        assert MPI.Is_finalized()
    """)
    (tmp_path / "helper.py").write_text("from mpi4py import MPI\nSEEN = []\n")
    before = sys.modules.get("mpi4py")
    result = ms.run_mpi4py(path, ranks=3, args=["a", "b"])
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert sys.modules.get("mpi4py") is before  # nothing of the stand-in leaks out
    assert "helper" not in sys.modules
    assert str(tmp_path) not in sys.path


def test_modules_the_script_imports_from_its_directory_are_each_ranks_own(tmp_path):
    """As in separate processes: a helper module's globals are per rank."""
    path = script(tmp_path, """
        import helper
        from mpi4py import MPI
        helper.SEEN.append(MPI.COMM_WORLD.rank)
        MPI.COMM_WORLD.Barrier()
        assert helper.SEEN == [MPI.COMM_WORLD.rank], helper.SEEN
    """)
    (tmp_path / "helper.py").write_text("SEEN = []\n")
    result = ms.run_mpi4py(path, ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_a_deadlocked_rank_is_unwound_after_the_run(tmp_path):
    marker = tmp_path / "cleaned"
    path = script(tmp_path, f"""
        from mpi4py import MPI
        try:
            MPI.COMM_WORLD.recv(source=0, tag=1)
        finally:
            open({str(marker)!r}, "a").write("x")
            MPI.COMM_WORLD.Barrier()  # a call while unwinding ends the rank at once
    """)
    result = ms.run_mpi4py(path, ranks=2)
    assert result.outcome is ms.Outcome.DEADLOCK
    del result
    import gc

    gc.collect()
    assert marker.read_text() == "xx"


# -- CLI ------------------------------------------------------------------------------------
def test_cli_run_check_and_min_buffer_on_a_script(capsys):
    path = str(SCRIPTS / "exchange.py")
    assert main(["mpi4py", "-n", "2", "--set", "network.eager_limit=1KiB", path,
                 "send", "2000"]) == 3
    assert "exchange.py:" in capsys.readouterr().err  # the report: on stderr
    assert main(["mpi4py", "-n", "2", "--check", path, "send", "100"]) == 3
    assert "NOT SAFE" in capsys.readouterr().err
    assert main(["mpi4py", "-n", "2", "--json", "--min-buffer", path, "bsend"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["min_buffer"] == 2000 * 4 + ms.MPIConfig().resolve().bsend_overhead


def test_cli_stdout_is_the_scripts_own_and_the_report_goes_to_stderr(capsys):
    """As under mpiexec, piping the program's output gets only the lines it printed."""
    code = main(["mpi4py", "-n", "2", str(SCRIPTS / "exchange.py"), "send", "10"])
    captured = capsys.readouterr()
    assert code == 0
    assert sorted(captured.out.splitlines()) == ["rank 0: received 10 floats from 1, sum 10",
                                                 "rank 1: received 10 floats from 0, sum 0"]
    assert captured.err.startswith("exchange: COMPLETED")
    assert main(["mpi4py", "-n", "2", "-q", str(SCRIPTS / "exchange.py"), "send", "10"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    assert captured.err == "exchange: completed\n"


def test_cli_report_file_takes_the_report_or_the_json(tmp_path, capsys):
    report = tmp_path / "report.txt"
    path = str(SCRIPTS / "exchange.py")
    assert main(["mpi4py", "-n", "2", "--report", str(report), path, "send", "10"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2 and captured.err == ""
    assert report.read_text().startswith("exchange: COMPLETED")
    assert main(["mpi4py", "-n", "2", "--json", "--report", str(report), path, "send",
                 "10"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2  # the script's stdout stays its own
    assert json.loads(report.read_text())["outcome"] == "completed"
    assert main(["mpi4py", "-n", "2", "--report", str(tmp_path / "no" / "r.txt"), path,
                 "send", "10"]) == 2
    assert "--report" in capsys.readouterr().err and not (tmp_path / "no").exists()


def test_cli_json_keeps_the_scripts_prints_off_stdout(capsys):
    code = main(["mpi4py", "-n", "2", "--json", "--profile", "mpich",
                 str(SCRIPTS / "exchange.py"), "send", "10"])
    captured = capsys.readouterr()
    assert code == 0
    assert json.loads(captured.out)["outcome"] == "completed"
    assert "received 10 floats" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["mpi4py", "-n", "2", "nowhere.py"], "nowhere.py: no such script"),
    (["mpi4py", "-n", "0", "SCRIPT"], "-n: expected a positive number of ranks"),
    (["mpi4py", "--set", "network.eagr=1", "SCRIPT"], "mpisim: --set network.eagr: unknown key"),
    (["mpi4py", "--profile", "mpic", "SCRIPT"], "mpisim: --profile: 'mpic' is not one of"),
    (["mpi4py", "--set", "buffer=lots", "SCRIPT"], "buffer"),
])
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    argv = [str(SCRIPTS / "exchange.py") if a == "SCRIPT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "<settings>" not in err


def test_a_syntax_error_names_the_script_line(tmp_path, capsys):
    path = script(tmp_path, "from mpi4py import MPI\nx = (\n")
    assert main(["mpi4py", "-n", "1", str(path)]) == 2
    assert f"{path}:2: syntax error" in capsys.readouterr().err


def test_settings_file_sets_the_machine(tmp_path, capsys):
    settings = tmp_path / "machine.yaml"
    settings.write_text("network:\n  eager_limit: 1 KiB\nmpi:\n  profile: mpich\n")
    path = str(SCRIPTS / "exchange.py")
    assert main(["mpi4py", "-n", "2", "--settings", str(settings), "-q", path]) == 3
    settings.write_text("programs: []\n")
    assert main(["mpi4py", "-n", "2", "--settings", str(settings), path]) == 2
    assert "programs: not used with an mpi4py script" in capsys.readouterr().err


def test_numpy_is_not_required_to_be_imported_by_the_script(tmp_path):
    path = script(tmp_path, "from mpi4py import MPI\nMPI.COMM_WORLD.Barrier()\n")
    assert ms.run_mpi4py(path, ranks=2).outcome is ms.Outcome.COMPLETED
    assert np is not None


def test_communicator_buffers_serve_only_their_communicator(tmp_path):
    """MPI 4.1 3.6: a bsend uses its communicator's buffer, else the process's."""
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD.Dup()
        peer = 1 - comm.rank
        buf = bytearray(MPI.DOUBLE.Pack_size(10, comm) + MPI.BSEND_OVERHEAD)
        comm.Attach_buffer(buf)
        comm.Bsend([np.ones(10), MPI.DOUBLE], dest=peer, tag=0)
        got = np.empty(10)
        comm.Recv([got, MPI.DOUBLE], source=peer, tag=0)
        comm.Flush_buffer()
        assert comm.Detach_buffer() is buf and got.sum() == 10
        try:
            MPI.COMM_WORLD.Bsend([np.ones(10), MPI.DOUBLE], dest=peer, tag=1)
        except MPI.Exception as e:
            assert e.Get_error_class() == MPI.ERR_BUFFER
        else:
            raise AssertionError("COMM_WORLD has no buffer attached")
        MPI.Iflush_buffer().Wait()
    """)
    result = ms.run_mpi4py(path, ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_python_dash_m_runs_the_same_command():
    import subprocess

    done = subprocess.run([sys.executable, "-m", "mpisim.mpi4py", "-n", "2", "-q",
                           str(SCRIPTS / "exchange.py"), "ssend", "10"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3  # deadlock
    assert "exchange: deadlock" in done.stderr  # (the report: stderr)


def test_isendrecv_completes_when_both_halves_have(tmp_path):
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        r, p = comm.rank, comm.size
        got = np.empty(3, dtype="i")
        req = comm.Isendrecv(np.full(3, r, dtype="i"), (r + 1) % p, 0, got, (r - 1) % p, 0)
        status = MPI.Status()
        req.Wait(status)
        assert list(got) == [(r - 1) % p] * 3 and status.Get_source() == (r - 1) % p
        buf = np.full(2, r, dtype="d")
        comm.Isendrecv_replace(buf, (r + 1) % p, 1, (r - 1) % p, 1).Wait()
        assert list(buf) == [(r - 1) % p] * 2
    """)
    result = ms.run_mpi4py(path, ranks=3)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_errors_are_fatal_ends_the_run_even_where_the_script_catches(tmp_path):
    """MPI_ERRORS_ARE_FATAL (9.3): an error ends the job; MPI_ERRORS_RETURN returns it.
    mpi4py sets MPI_ERRORS_RETURN on each communicator it makes, so a Dup does not inherit
    its parent's handler (observed with mpi4py 4.1.2 over MPICH 5.0.2)."""
    path = script(tmp_path, """
        import sys
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        assert comm.Get_errhandler() == MPI.ERRORS_RETURN
        comm.Set_errhandler(MPI.ERRORS_ARE_FATAL)
        dup = comm.Dup()
        assert dup.Get_errhandler() == MPI.ERRORS_RETURN
        if sys.argv[1] == "fatal":
            dup.Set_errhandler(MPI.ERRORS_ARE_FATAL)
        try:
            dup.Recv(bytearray(1), source=5, tag=0)
        except MPI.Exception as e:
            assert e.Get_error_class() == MPI.ERR_RANK
            print("caught")
    """)
    ok = ms.run_mpi4py(path, ranks=2, args=["return"])
    assert ok.outcome is ms.Outcome.COMPLETED, ok.report()
    fatal = ms.run_mpi4py(path, ranks=2, args=["fatal"])
    assert fatal.outcome is ms.Outcome.ERROR
    assert fatal.error.error_class == "MPI_ERR_RANK" and fatal.error.call == "MPI_Recv"
    assert fatal.error.where.startswith(f"prog.py:{line_of(path, 'dup.Recv')}")


def test_submodules_of_the_stand_in_are_refused_by_name(tmp_path):
    """mpi4py.util's pkl5 and dtlib (and mpi4py.futures) are offered; mpi4py.util's other
    submodules, and mpi4py's other packages, are refused by name."""
    path = script(tmp_path, "from mpi4py.util import pkl5, dtlib\nfrom mpi4py.util import pool\n")
    result = ms.run_mpi4py(path, ranks=1)
    assert result.outcome is ms.Outcome.ERROR
    assert "mpi4py.util.pool is not supported" in result.error.message
    path = script(tmp_path, "import mpi4py.bench\n", "bench.py")
    assert "mpi4py.bench is not supported" in ms.run_mpi4py(path, ranks=1).error.message


def test_a_finished_run_closes_its_suspended_programs_and_keeps_its_result():
    """Rank programs left blocked by a deadlock are closed when the run ends (their
    ``finally`` blocks run then, and an mpi4py rank's greenlet is freed with the run)."""
    closed = []

    def blocked(mpi):
        try:
            yield mpi.recv(count=1, source=1 - mpi.rank)
        finally:
            closed.append(mpi.rank)

    sim = ms.Simulation(blocked, 2)
    first = sim.run()
    assert first.outcome is ms.Outcome.DEADLOCK and sorted(closed) == [0, 1]
    assert sim.result() is first
    assert all(b.where.startswith("test_mpi4py.py:") for b in first.deadlock.blocked)


def test_scans_and_nonblocking_collectives(tmp_path):
    """6.11 scan/exscan (inclusive, exclusive prefix reductions); 6.12 nonblocking forms."""
    path = script(tmp_path, """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        r, p = comm.rank, comm.size
        assert comm.scan(r) == sum(range(r + 1))
        assert comm.exscan(r) == (None if r == 0 else sum(range(r)))
        out = np.empty(2, dtype="i")
        comm.Scan(np.full(2, r, dtype="i"), out)
        assert list(out) == [sum(range(r + 1))] * 2
        block = np.empty(1, dtype="i")
        comm.Reduce_scatter_block(np.arange(p, dtype="i"), block)
        assert block[0] == r * p
        total = np.empty(3)
        req = comm.Iallreduce(np.full(3, 1.0), total)
        comm.Ibarrier().Wait()
        req.Wait()
        assert list(total) == [float(p)] * 3
        data = np.arange(4.0) if r == 0 else np.zeros(4)
        comm.Ibcast(data, root=0).Wait()
        assert list(data) == [0, 1, 2, 3]
    """)
    result = ms.run_mpi4py(path, ranks=4)
    assert result.outcome is ms.Outcome.COMPLETED, result.report()


def test_cli_sweeps_a_script_over_settings_and_ranks(tmp_path, capsys):
    out = tmp_path / "sweep"
    code = main(["mpi4py", "-n", "2", "--vary", "network.eager_limit=1KiB,64KiB", "--jobs", "1",
                 "--out", str(out), str(SCRIPTS / "exchange.py"), "send", "2000"])
    assert code == 0
    rows = (out / "sweep.csv").read_text().splitlines()
    assert rows[0].startswith("network.eager_limit,")
    assert [r.split(",")[1] for r in rows[1:]] == ["deadlock", "completed"]
    captured = capsys.readouterr()
    assert "received" not in captured.out + captured.err  # the script's prints are off
    assert "network.eager_limit" in captured.err  # the table: the report, on stderr


def test_cli_timeout_is_a_timeout_naming_each_ranks_line(tmp_path, capsys):
    """--timeout reached while a rank's own code loops: TIMEOUT (exit 5), naming the line it
    was running and the call the others wait in; no traceback, no internal class name."""
    path = script(tmp_path, """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.Get_rank() == 1:
            while True:
                pass
        comm.Barrier()
    """)
    assert main(["mpi4py", "-n", "3", "--timeout", "0.5", str(path)]) == 5
    err = capsys.readouterr().err
    assert err.startswith(f"{path.stem}: TIMEOUT")
    assert (f"rank 1 running its own code at {path.name}:5 (<module>); ranks 0, 2 in "
            f"MPI_Barrier at {path.name}:7 (<module>)") in err
    assert "Traceback" not in err and "WallClockLimit" not in err and "mpisim." not in err


@pytest.mark.slow
def test_cli_timeout_of_a_sweep_under_json_is_a_json_object(tmp_path, capsys):
    """Reached while the sweep waits for its workers: exit 5, and under --json an object."""
    path = script(tmp_path, """
        from mpi4py import MPI
        while True:
            pass
    """)
    code = main(["mpi4py", "-n", "2", "--vary", "network.eager_limit=1KiB,2KiB", "--jobs", "2",
                 "--timeout", "1", "--json", str(path)])
    captured = capsys.readouterr()
    assert code == 5
    assert json.loads(captured.out) == {
        "outcome": "timeout", "exit_code": 5,
        "problems": ["the wall-clock limit of 1 s was reached (--timeout)"]}
