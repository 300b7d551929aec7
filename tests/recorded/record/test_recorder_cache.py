"""The recorder's cache cannot be hijacked: the library ``mpisim record`` preloads into the
user's MPI processes is built into a directory private to the user (refused when it is not),
named by a hash of what it is built from, written atomically and verified by its digest before
it is used; a failed or interrupted build leaves nothing a later run would load.

The compiler here is a stand-in script (it copies the source to ``-o``), so these tests need
no MPI; the real build is checked by the real_mpi test at the end."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from mpisim.recorded.record import recorder as record
from mpisim.recorded.record.recorder import RecordError, build_shim, cache_dir

FAKE_MPICC = """#!/bin/sh
if [ "$1" = "-show" ]; then echo "cc -I/x -L{lib} -lmpi"; exit 0; fi
{extra}
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; shift; fi
  last="$1"; shift
done
cat "$last" > "$out"
echo "built" >> "$out"
"""


def _mpicc(tmp_path: Path, extra: str = "", name: str = "mpicc") -> str:
    lib = tmp_path / "lib"
    lib.mkdir(exist_ok=True)
    if not (lib / "libmpi.so").exists():
        (lib / "libmpi.so").write_bytes(b"MPI library v1")
    path = tmp_path / name
    path.write_text(FAKE_MPICC.format(lib=lib, extra=extra))
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "mpisim" / "recorder"


def test_the_cache_is_created_private_to_the_user(cache):
    assert cache_dir() == cache
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o707, 0o701])
def test_a_cache_others_may_use_is_refused(cache, mode):
    cache.mkdir(parents=True)
    cache.chmod(mode)
    with pytest.raises(RecordError, match=f"mode {mode:o}: refused.*chmod 700"):
        cache_dir()


def test_a_cache_owned_by_another_user_is_refused(cache, monkeypatch):
    cache.mkdir(parents=True, mode=0o700)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(cache).st_uid + 1)
    with pytest.raises(RecordError, match=r"owned by user .* not you"):
        cache_dir()


def test_a_cache_that_is_a_symbolic_link_is_refused(cache, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    cache.parent.mkdir(parents=True)
    cache.symlink_to(elsewhere)
    with pytest.raises(RecordError, match="not a directory"):
        cache_dir()


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "mpisim" / "recorder"


def test_the_library_is_built_once_sealed_by_its_digest_and_reused(cache, tmp_path):
    mpicc = _mpicc(tmp_path)
    built = build_shim(mpicc)
    assert built.parent == cache and built.name.startswith("libmpisim_record-")
    seal = built.with_suffix(".sha256").read_text().strip()
    assert seal == record._file_digest(built)
    stamp = built.stat().st_mtime_ns
    assert build_shim(mpicc) == built and built.stat().st_mtime_ns == stamp  # not rebuilt
    assert sorted(p.name for p in cache.iterdir()) == sorted([built.name, f"{built.stem}.sha256"])


def test_the_name_changes_with_the_source_the_wrapper_and_the_mpi_library(cache, tmp_path,
                                                                          monkeypatch):
    mpicc = _mpicc(tmp_path)
    source = record.shim_source().read_bytes()
    first = record.build_key(source, mpicc)
    assert record.build_key(source + b"\n", mpicc) != first
    (tmp_path / "lib" / "libmpi.so").write_bytes(b"MPI library v2")  # another MPI build
    second = record.build_key(source, mpicc)
    assert second != first
    other = _mpicc(tmp_path, name="mpicc2")  # the same wrapper elsewhere: another compiler
    assert record.build_key(source, other) != second
    Path(mpicc).write_text(Path(mpicc).read_text() + "# changed\n")
    assert record.build_key(source, mpicc) != second


def test_a_tampered_or_truncated_library_is_rebuilt_never_preloaded(cache, tmp_path):
    mpicc = _mpicc(tmp_path)
    built = build_shim(mpicc)
    good = built.read_bytes()
    built.write_bytes(b"planted code")
    assert not record._verified(built)
    again = build_shim(mpicc)
    assert again == built and again.read_bytes() == good
    built.with_suffix(".sha256").unlink()  # a build interrupted before its seal
    assert not record._verified(built)
    assert build_shim(mpicc).read_bytes() == good


def test_a_failed_build_leaves_nothing_in_the_cache(cache, tmp_path):
    mpicc = _mpicc(tmp_path, extra='echo "shim.c:1: error: no mpi.h" >&2; exit 1')
    with pytest.raises(RecordError, match=r"failed: shim\.c:1: error: no mpi\.h"):
        build_shim(mpicc)
    assert list(cache.iterdir()) == []


def test_an_interrupted_build_leaves_nothing_a_later_run_loads(cache, tmp_path, monkeypatch):
    mpicc = _mpicc(tmp_path)
    real_run = subprocess.run

    def interrupted(args, **kwargs):
        if "-o" in args:  # the compiler writes half a file, then Ctrl-C
            Path(args[args.index("-o") + 1]).write_bytes(b"half")
            raise KeyboardInterrupt
        return real_run(args, **kwargs)
    monkeypatch.setattr(record.subprocess, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_shim(mpicc)
    assert list(cache.iterdir()) == []
    monkeypatch.setattr(record.subprocess, "run", real_run)
    built = build_shim(mpicc)
    assert record._verified(built) and b"built" in built.read_bytes()


def test_a_compiler_that_writes_nothing_is_a_failed_build(cache, tmp_path):
    mpicc = _mpicc(tmp_path, extra="exit 0")
    with pytest.raises(RecordError, match="failed"):
        build_shim(mpicc)
    assert list(cache.iterdir()) == []


@pytest.mark.real_mpi
@pytest.mark.slow
def test_the_real_recorder_builds_into_a_private_cache_and_verifies(cache):
    mpicc = shutil.which("mpicc", path=os.pathsep.join(
        [str(Path(os.sys.executable).parent), os.environ.get("PATH", "")]))
    if mpicc is None:
        pytest.skip("no mpicc")
    built = build_shim(mpicc)
    assert record._verified(built) and built.read_bytes()[:4] == b"\x7fELF"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
