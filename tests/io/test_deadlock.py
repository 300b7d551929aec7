"""Collective calls on a file meet (MPI 4.1 §14.6.4: collective file calls are made by
every member, in the same order): a member that never makes one leaves the others blocked,
a deadlock reported with the call and the place; a member making another collective call
there is an error."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np

import mpisim as ms
from mpisim.io import MODE_CREATE, MODE_RDWR


def test_a_collective_write_one_rank_never_makes_is_a_deadlock_naming_it(tmp_path):
    script = tmp_path / "skip.py"
    script.write_text(textwrap.dedent("""\
        from mpi4py import MPI
        import numpy as np
        comm = MPI.COMM_WORLD
        fh = MPI.File.Open(comm, "s.dat", MPI.MODE_RDWR | MPI.MODE_CREATE)
        if comm.rank != 1:
            fh.Write_at_all(comm.rank * 4, np.zeros(1, "i4"))
            fh.Close()
        """))
    result = ms.run_mpi4py(script, ranks=3)
    assert result.outcome is ms.Outcome.DEADLOCK
    blocked = {b.rank: b for b in result.deadlock.blocked}
    assert sorted(blocked) == [0, 1, 2]
    finalizing = blocked.pop(1)  # rank 1 waits for them in MPI_Finalize (11.2.2)
    assert (finalizing.call, finalizing.waits_for) == ("MPI_Finalize", [0, 2])
    for b in blocked.values():
        assert b.call == "MPI_File_write_at_all"
        assert b.waits_for == [1]
        assert "skip.py:6" in b.where
        assert "file 's.dat'" in b.reason and "rank 1" in b.reason


def test_a_different_collective_call_at_the_same_point_is_an_error():
    def program(mpi):
        fh = yield mpi.file_open("m.bin", MODE_RDWR | MODE_CREATE)
        if mpi.rank == 0:
            yield mpi.file_sync(fh)
        else:
            yield mpi.file_write_all(fh, np.zeros(1, np.uint8))

    result = ms.run(program, ranks=2)
    assert result.outcome is ms.Outcome.ERROR
    assert "collective calls on a file must match" in result.error.message


def test_a_scenario_writes_the_file_and_a_bad_op_names_file_line_and_key(tmp_path):
    good = tmp_path / "io.yaml"
    good.write_text(textwrap.dedent("""\
        ranks: 2
        programs:
          - ops:
              - file_open: {filename: out.bin, amode: [RDWR, CREATE], as: f}
              - file_set_view: {fh: f, etype: INT}
              - file_write_at_all: {fh: f, offset: rank, count: 3, datatype: INT}
              - file_read_at: {fh: f, offset: 0, count: 8, datatype: INT, status: {count: n}}
              - if: {cond: "n != 16", then: [{compute: 1s}]}
              - file_close: f
        """))
    run = subprocess.run([sys.executable, "-m", "mpisim", "run", str(good)], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # open 101 us, set_view 1, write_at_all 101.012, read_at 100.032, close 101: no 1 s
    assert "COMPLETED at t = 404 µs" in run.stdout
    assert (tmp_path / "out.bin").read_bytes() == bytes(16)
    bad = tmp_path / "bad.yaml"
    bad.write_text(good.read_text().replace("amode: [RDWR, CREATE]", "amode: [RDWR, MAKE]"))
    run = subprocess.run([sys.executable, "-m", "mpisim", "run", "bad.yaml"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip().startswith("mpisim: bad.yaml:4: programs[0].ops[0].file_open"
                                         ".amode: unknown access mode 'MAKE'")
    assert "Traceback" not in run.stderr
