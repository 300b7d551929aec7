"""MPI-IO recorded and replayed: ``tests/data/replay_c/file_view.c`` recorded under MPICH
5.0.2 on 2 processes (``tests/data/replay/file-view.trace``; the real_mpi test records it
afresh).

MPI 4.1 §14.2 (open, close, delete; a file's default error handler returns errors, so the
first delete of a file that is not there is MPI_ERR_NO_SUCH_FILE and the program goes on),
§14.3 (a strided view: the filetype's layout is recorded, ``fmap=``), §14.4 (every
positioning and coordination, blocking, nonblocking and split), §14.6.1 (sync, barrier,
sync). The replay's files go to a temporary directory of its own
(mpisim.recorded.replayer.files)."""

from __future__ import annotations

import collections
import gc
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.recorded import read_trace, replay, replay_scenario
from mpisim.recorded.calls import local_path

RECORDING = DATA / "replay" / "file-view.trace"
PER_RANK = {"MPI_File_open": 2, "MPI_File_close": 2, "MPI_File_set_view": 2,
            "MPI_File_write_all": 1, "MPI_File_read": 1, "MPI_File_read_at_all": 1,
            "MPI_File_iread_at": 1, "MPI_File_read_all_begin": 1, "MPI_File_read_all_end": 1,
            "MPI_File_read_ordered": 1, "MPI_File_write_at": 1, "MPI_File_read_shared": 1,
            "MPI_File_sync": 2, "MPI_File_preallocate": 1, "MPI_File_set_size": 1,
            "MPI_File_seek_shared": 1}
"""The collective and data-access calls each of the 2 processes makes."""
NAME = 20
"""The run's trace keeps a call's first 20 characters (MPI_File_read_all_be...)."""


def _replayed(path: Path) -> tuple[object, collections.Counter]:
    scenario = replay_scenario(path)
    result = scenario.run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    assert scenario.compare(result) == "agrees with the recording: both completed"
    assert result.warnings == [], result.warnings
    return result, collections.Counter(result.trace.calls["call"].tolist())


def _counted(calls: collections.Counter) -> dict[str, int]:
    return {name: calls[name[:NAME]] for name in PER_RANK}


def test_the_recorder_s_words_for_files_views_and_accesses_are_read():
    calls = read_trace(RECORDING).ranks[1].calls
    by_name: dict[str, list] = collections.defaultdict(list)
    for call in calls:
        by_name[call.name].append(call)
    first, again = by_name["File_open"]
    assert first.args == {"comm": 0, "name": "view.dat", "amode": "RDWR,CREATE", "was": -1}
    assert first.out == {"fh": 1}
    assert again.args["amode"] == "RDONLY" and again.args["was"] == 64  # the file as left
    strided = by_name["File_set_view"][0]
    assert strided.args["disp"] == 4  # rank 1's ints start at the second int
    assert strided.args["fmap"] == ",".join(f"{8 * k}+4" for k in range(8))  # 1 int in 2
    assert by_name["File_write_all"][0].out["nb"] == 32
    assert by_name["File_get_position"][0].out["pos"] == 4  # 2 ints read after seeking to 2
    assert by_name["File_iread_at"][0].args["off"] == 6 and "r" in by_name["File_iread_at"][0].out
    assert by_name["File_read_all_end"][0].out["nb"] == 64  # the whole file, plain view
    assert by_name["File_get_position_shared"][0].out["pos"] == 16  # both ranks' 8 ints
    assert by_name["File_seek"][0].args == {"fh": 1, "off": 2, "whence": "SET"}


def test_a_delete_of_a_missing_file_is_an_error_the_program_went_on_after():
    delete = read_trace(RECORDING).ranks[0].calls[1]
    assert (delete.name, delete.error) == ("File_delete", "MPI_ERR_NO_SUCH_FILE")


def test_the_recording_replays_to_agreement_with_every_access_checked():
    """Every access moves the bytes it moved under MPICH (its end-of-view read too), the
    file has the recorded size and the pointers the recorded positions: no note."""
    _, calls = _replayed(RECORDING)
    assert _counted(calls) == {n: 2 * k for n, k in PER_RANK.items()}


def test_the_replay_never_touches_the_user_s_files(tmp_path, monkeypatch):
    """The recorded program deleted view.dat in its working directory; the replay's
    view.dat is its own, in a temporary directory removed when the run is over."""
    precious = tmp_path / "view.dat"
    precious.write_text("the user's data")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    result = replay(RECORDING)
    assert result.outcome is ms.Outcome.COMPLETED
    assert precious.read_text() == "the user's data"
    assert [p.name.startswith("mpisim-replay-files-") for p in scratch.iterdir()] in ([], [True])
    del result
    gc.collect()
    assert list(scratch.iterdir()) == []


def test_a_recorded_name_is_placed_under_the_replay_s_directory(tmp_path):
    assert local_path(tmp_path, "out.dat") == tmp_path / "out.dat"
    assert local_path(tmp_path, "/scratch/run/out.dat") == tmp_path / "scratch/run/out.dat"
    assert local_path(tmp_path, "../../etc/passwd") == tmp_path / "etc/passwd"
    assert local_path(tmp_path, "ufs:/tmp/x.dat") == tmp_path / "tmp/x.dat"
    assert local_path(tmp_path, "/") == tmp_path / "unnamed"


def test_a_size_the_replay_does_not_reproduce_is_a_divergence_note(tmp_path):
    lines = RECORDING.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("File_get_size"))
    lines[at + 1] = lines[at + 1].replace("size=64", "size=60")
    damaged = tmp_path / "damaged.trace"
    damaged.write_text("".join(lines))
    result = replay(damaged)
    assert result.outcome is ms.Outcome.COMPLETED
    assert any("MPI_File_get_size: the file has size 64; the recording's was 60" in w
               for w in result.warnings), result.warnings


def test_a_file_the_recording_never_opened_is_named(tmp_path):
    lines = RECORDING.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("File_sync"))
    lines[at] = lines[at].replace(" fh=1", " fh=7")
    damaged = tmp_path / "damaged.trace"
    damaged.write_text("".join(lines))
    result = replay(damaged)
    assert result.outcome is ms.Outcome.ERROR
    assert "file 7 was not opened by a recorded MPI_File_open" in result.error.message


@pytest.mark.real_mpi
def test_a_fresh_recording_with_mpich_replays_to_agreement(tmp_path):
    mpicc, mpiexec = oracle_mpich()
    app = tmp_path / "file_view"
    subprocess.run([str(mpicc), "-g", "-O1", "-o", str(app),
                    str(DATA / "replay_c" / "file_view.c")], check=True, timeout=120)
    trace = tmp_path / "file_view.trace"
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--out", str(trace), "--",
                          str(mpiexec), "-n", "2", str(app)], capture_output=True, text=True,
                         env=env, timeout=180, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "view.dat").exists()  # the program deleted it
    fresh, stored = read_trace(trace), read_trace(RECORDING)
    assert [[(c.name, c.error) for c in r.calls] for r in fresh.ranks] == \
        [[(c.name, c.error) for c in r.calls] for r in stored.ranks]
    _, calls = _replayed(trace)
    assert _counted(calls) == {n: 2 * k for n, k in PER_RANK.items()}
