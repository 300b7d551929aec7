"""Fetch mpi4py's own test files (never committed) and run them under the stand-in.

:func:`suite_dir` downloads mpi4py's source distribution of :data:`VERSION` through the
package index pip is configured with (``pip config``, ``PIP_INDEX_URL``, else PyPI), checks
its sha256 against the index, and keeps the ``test/`` files in a cache
(``$MPISIM_CACHE`` or ``~/.cache/mpisim``). ``pip download`` of that sdist would build its
metadata, which needs an MPI compiler, so the index page is read directly.
:data:`DRIVER` is the script each simulated rank runs: it loads the named test modules
with unittest, counts a NotImplementedError from the stand-in as a skip (its message names
the unsupported call; so does an AttributeError for a class attribute of one of the
stand-in's MPI classes), and prints one JSON line per rank.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request
from pathlib import Path

VERSION = "4.1.2"
FILES = ("mpiunittest.py", "mpitestutil.py", "arrayimpl.py", "test_p2p_obj.py",
         "test_p2p_buf.py", "test_msgspec.py", "test_status.py", "test_request.py",
         "test_datatype.py", "test_p2p_obj_matched.py", "test_p2p_buf_matched.py",
         "test_util_pkl5.py", "test_util_dtlib.py",
         # communicators, groups, topologies, attributes, info (test_mpi4py_suite_comms)
         "test_comm.py", "test_comm_topo.py", "test_comm_inter.py", "test_group.py",
         "test_cco_ngh_obj.py", "test_cco_ngh_buf.py", "test_attributes.py", "test_info.py",
         "test_cco_obj_inter.py", "test_cco_buf_inter.py", "test_cco_vec_inter.py",
         # one-sided communication (test_mpi4py_suite_rma)
         "test_rma.py", "test_rma_nb.py", "test_win.py",
         # MPI-IO (test_mpi4py_suite_io)
         "test_io.py",
         # collectives (test_mpi4py_suite_collectives)
         "test_cco_buf.py", "test_cco_obj.py", "test_cco_nb_buf.py", "test_cco_vec.py",
         "test_cco_nb_vec.py",
         # dynamic processes (test_mpi4py_suite_spawn)
         "test_spawn.py", "test_dynproc.py", "spawn_child.py",
         # threads (test_mpi4py_suite_threads)
         "test_threads.py")
DEMOS = ("futures/test_futures.py",)  # mpi4py.futures' own tests, in the sdist's demo/
# (test_mpi4py_suite_futures: run as scripts, not through the driver)
MARK = "MPISIM-SUITE "

DRIVER = '''
import json
import re
import sys
import unittest

from mpi4py import MPI


class Result(unittest.TestResult):
    def _unsupported(self, test, err):
        if issubclass(err[0], NotImplementedError):
            self.skipped.append((test, f"unsupported: {err[1]}"))
            return True
        # a class attribute the stand-in's class lacks (MPI.Intracomm.Create_intercomm)
        found = re.fullmatch(r"type object '(\\w+)' has no attribute '(\\w+)'", str(err[1]))
        if issubclass(err[0], AttributeError) and found and isinstance(
                getattr(MPI, found.group(1), None), type):
            self.skipped.append((test, f"unsupported: {found.group(1)}.{found.group(2)} "
                                       "(not in the stand-in's class)"))
            return True
        return False

    def addError(self, test, err):
        if not self._unsupported(test, err):
            super().addError(test, err)

    def addSubTest(self, test, subtest, err):
        if err is not None and self._unsupported(test, err):
            return
        super().addSubTest(test, subtest, err)


# Device buffers (__cuda_array_interface__, DLPack) are refused by the stand-in, which never
# reads raw memory: the fake-GPU array backends of the buffer tests are left out.
import arrayimpl

fake_gpu = getattr(arrayimpl, "BaseFakeGPUArray", ())
gone = [b for b in arrayimpl.ArrayBackends if fake_gpu and issubclass(b, fake_gpu)
        or "gpu" in str(b.backend) or "dlpack" in str(b.backend)]
arrayimpl.ArrayBackends[:] = [b for b in arrayimpl.ArrayBackends if b not in gone]
left_out = [b.__name__ for b in gone]
suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])
result = Result()
suite.run(result)
out = {"rank": MPI.COMM_WORLD.Get_rank(), "run": result.testsRun,
       "skipped": {t.id(): str(why) for t, why in result.skipped},
       "failures": {t.id(): tb for t, tb in result.failures + result.errors},
       "left_out": left_out}
print("MARK" + json.dumps(out), flush=True)
'''.replace("MARK", MARK)


def cache_root() -> Path:
    return Path(os.environ.get("MPISIM_CACHE") or Path.home() / ".cache" / "mpisim")


def index_url() -> str:
    """The index pip is configured with."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"]
    try:
        found = subprocess.run([sys.executable, "-m", "pip", "config", "get",
                                "global.index-url"], capture_output=True, text=True,
                               timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        found = ""
    return found or "https://pypi.org/simple"


def suite_dir() -> Path:
    """The directory holding mpi4py's test files; OSError with the reason when they cannot
    be fetched."""
    target = cache_root() / f"mpi4py-{VERSION}-test"
    if all((target / f).is_file() for f in FILES) and all(
            (target / Path(d).name).is_file() for d in DEMOS):
        (target / "run_suite.py").write_text(DRIVER)
        return target
    name = f"mpi4py-{VERSION}.tar.gz"
    base = index_url().rstrip("/")
    page = f"{base}/mpi4py/"
    try:
        with urllib.request.urlopen(page, timeout=30) as response:
            html = response.read().decode("utf-8", "replace")
    except Exception as e:
        raise OSError(f"cannot read {page}: {e}") from None
    link = re.search(rf'href="([^"]*{re.escape(name)}[^"]*)"', html)
    if link is None:
        raise OSError(f"{page} lists no {name}")
    url = urllib.parse.urljoin(page, link.group(1).replace("&amp;", "&"))
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except Exception as e:
        raise OSError(f"cannot download {url}: {e}") from None
    digest = re.search(r"sha256=([0-9a-f]{64})", url)
    if digest and hashlib.sha256(data).hexdigest() != digest.group(1):
        raise OSError(f"{name}: sha256 differs from the index's")
    target.mkdir(parents=True, exist_ok=True)
    tmp = target / (name + ".part")
    tmp.write_bytes(data)
    with tarfile.open(tmp) as tar:
        for f in FILES:
            member = tar.extractfile(f"mpi4py-{VERSION}/test/{f}")
            if member is None:
                raise OSError(f"{name} has no test/{f}")
            (target / f).write_bytes(member.read())
        for d in DEMOS:
            member = tar.extractfile(f"mpi4py-{VERSION}/demo/{d}")
            if member is None:
                raise OSError(f"{name} has no demo/{d}")
            (target / Path(d).name).write_bytes(member.read())
    tmp.unlink()
    (target / "run_suite.py").write_text(DRIVER)
    return target


def parse(stdout: str) -> list[dict]:
    """The per-rank JSON lines the driver printed, by rank."""
    rows = [json.loads(line[len(MARK):]) for line in stdout.splitlines()
            if line.startswith(MARK)]
    return sorted(rows, key=lambda r: r["rank"])
