"""MPI 4.1 communicator buffers observed on a real MPI library, beside what mpisim's profile
for it says. Needs mpi4py and an MPI with ``mpiexec`` (``pip install mpi4py mpich`` in the
venv of the Python given by ``MPISIM_ORACLE_PYTHON``, or in this one: the ``oracle`` extra);
skipped otherwise. Observed with MPICH 5.0.2: a bsend uses its communicator's buffer,
never falls back to the process buffer when that one is full, a communicator without a
buffer uses the process buffer, Comm.Detach_buffer waits for the messages, and returns
MPI.BUFFER_AUTOMATIC for an automatic buffer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import real_mpi
from helpers.paths import DATA

import mpisim as ms
from mpisim.profiles.library import get_profile

pytestmark = pytest.mark.real_mpi  # launches a real MPI library

HERE = DATA / "real"


def _oracle() -> tuple[str, str]:
    python = os.environ.get("MPISIM_ORACLE_PYTHON", sys.executable)
    mpiexec = Path(python).parent / "mpiexec"
    ok = mpiexec.exists() and subprocess.run(
        [python, "-c", "from mpi4py import MPI"], capture_output=True).returncode == 0
    if not ok:
        pytest.skip("no real MPI: set MPISIM_ORACLE_PYTHON to a Python with mpi4py and an "
                    "mpiexec beside it (pip install mpi4py mpich)")
    return python, str(mpiexec)


def _real(script: str) -> str:
    python, mpiexec = _oracle()
    outcome, out, err = real_mpi.launch([mpiexec, "-n", "2", python, str(HERE / script)], 120)
    assert outcome == "completed", err[-2000:]
    return out


def test_mpich_communicator_buffers_match_the_real_library():
    """MPI 4.1 §3.6 on MPICH: the comm's buffer, else the process's; full means
    MPI_ERR_BUFFER; detach waits; an automatic buffer detaches as BUFFER_AUTOMATIC."""
    text = _real("comm_buffers.py")
    if "MPICH" not in text:
        pytest.skip("the oracle is not MPICH")
    real = dict(line.split(" : ", 1) for line in text.splitlines() if " : " in line)
    assert real["lib 2nd bsend (lib buffer full)"] == "MPI_ERR_BUFFER"
    assert real["bsend on a dup without buffer, world buffer full"] == "MPI_ERR_BUFFER"
    assert float(real["lib Detach_buffer waited (s)"]) >= 0.4
    assert real["... is MPI.BUFFER_AUTOMATIC"] == "True"

    n = 10_000

    def prog(mpi):
        lib = yield mpi.comm_dup()
        other = yield mpi.comm_dup()
        if mpi.rank == 0:
            got = {}
            yield mpi.buffer_attach(n + mpi.BSEND_OVERHEAD)
            yield mpi.comm_attach_buffer(n + mpi.BSEND_OVERHEAD, comm=lib)
            yield mpi.bsend(count=n, dest=1, tag=1, comm=lib)
            yield mpi.bsend(count=n, dest=1, tag=2)
            for key, comm, tag in (("lib", lib, 3), ("other", other, 4)):
                try:
                    yield mpi.bsend(count=n, dest=1, tag=tag, comm=comm)
                except ms.MPIError as e:
                    got[key] = e.error_class
            t = mpi.now
            yield mpi.comm_detach_buffer(comm=lib)
            got["waited"] = mpi.now - t
            yield mpi.comm_attach_buffer(ms.BUFFER_AUTOMATIC, comm=lib)
            got["automatic"] = (yield mpi.comm_detach_buffer(comm=lib))[0]
            return got
        yield mpi.compute(0.5)
        yield mpi.recv(count=n, source=0, tag=1, comm=lib)
        yield mpi.recv(count=n, source=0, tag=2)
        return None

    sim = ms.run(prog, ranks=2, mpi={"profile": "mpich"}).returned[0]
    assert sim["lib"] == sim["other"] == "MPI_ERR_BUFFER"
    assert sim["waited"] >= 0.4 and sim["automatic"] is ms.BUFFER_AUTOMATIC


def test_mpich_a_full_communicator_buffer_does_not_fall_back_to_the_process_buffer():
    text = _real("comm_buffer_no_fallback.py")
    assert "-> MPI_ERR_BUFFER" in text


def _run_one(python: str, flags: list[str], script: str) -> dict[str, str]:
    mpiexec = str(Path(python).parent / "mpiexec")
    outcome, out, err = real_mpi.launch([mpiexec, *flags, "-n", "1", python,
                                         str(HERE / script)], 120)
    assert outcome == "completed", err[-2000:]
    return dict(line.split(" : ", 1) for line in out.splitlines() if " : " in line)


ORACLES = [("MPISIM_ORACLE_PYTHON", [], "MPICH", "mpich"),
           ("MPISIM_ORACLE_OMPI_PYTHON", ["--allow-run-as-root", "--oversubscribe"],
            "Open MPI", "openmpi")]


@pytest.mark.parametrize("env, flags, library, profile", ORACLES,
                         ids=[o[3] for o in ORACLES])
def test_which_mpi_4_1_buffer_calls_the_library_has(env, flags, library, profile):
    """facts (MPI-4.1 additions), observed again: MPICH 5.0.2 has MPI_Comm_attach_buffer,
    MPI_Buffer_flush and MPI_BUFFER_AUTOMATIC; Open MPI 5.0.11 has none (mpi4py raises
    NotImplementedError, BUFFER_AUTOMATIC is MPI_ERR_ARG). The profile of each does the same
    (a missing call is MPI_ERR_OTHER naming it)."""
    python = os.environ.get(env) or (sys.executable if env == "MPISIM_ORACLE_PYTHON" else None)
    if not python or not (Path(python).parent / "mpiexec").exists():
        pytest.skip(f"set {env} to a Python with mpi4py and {library}'s mpiexec beside it")
    real = _run_one(python, flags, "mpi41_calls.py")
    if library not in real["version"]:
        pytest.skip(f"{env} is not {library}: {real['version']}")

    def prog(mpi):
        got = {}
        for name, call in (("Comm.Attach_buffer", lambda: mpi.comm_attach_buffer(1000)),
                           ("MPI.Flush_buffer", mpi.buffer_flush),
                           ("MPI.Attach_buffer(BUFFER_AUTOMATIC)",
                            lambda: mpi.buffer_attach(ms.BUFFER_AUTOMATIC))):
            try:
                yield call()
                got[name] = "ok"
            except ms.MPIError as e:
                got[name] = e.error_class
        return got

    sim = ms.run(prog, ranks=1, mpi={"profile": profile}).returned[0]
    for name, value in real.items():
        if name == "version":
            continue
        expected = "MPI_ERR_OTHER" if value == "NotImplementedError" else value
        assert sim[name] == expected, (name, value, sim[name])


SHIPPED = {"mpich": "mpich-5.0", "openmpi": "openmpi-5.0"}


@pytest.mark.parametrize("env, flags, library, profile", ORACLES,
                         ids=[o[3] for o in ORACLES])
def test_what_a_refused_attach_leaves_attached_is_what_the_library_leaves(env, flags, library,
                                                                         profile):
    """3.6 and the libraries: MPICH 5.0.2 refuses an attach below MPI_BSEND_OVERHEAD with
    MPI_ERR_BUFFER yet leaves it attached with 0 B usable (a 4096 B attach then fails as
    attaching twice, a bsend has no room, detach returns size 0); Open MPI 5.0.11 accepts
    it. Under the shipped profile of each library mpisim does the same, step by step (Open
    MPI's attach-twice code, MPI_ERR_UNKNOWN, is the profile's MPI_ERR_BUFFER)."""
    python = os.environ.get(env) or (sys.executable if env == "MPISIM_ORACLE_PYTHON" else None)
    if not python or not (Path(python).parent / "mpiexec").exists():
        pytest.skip(f"set {env} to a Python with mpi4py and {library}'s mpiexec beside it")
    real = _run_one(python, flags, "refused_attach.py")
    if library not in real.pop("version"):
        pytest.skip(f"{env} is not {library}")
    shipped = get_profile(SHIPPED[profile])
    unknown = {"MPI_ERR_UNKNOWN": shipped.attach_twice_error_class}
    real = {step: unknown.get(value, value) for step, value in real.items()}

    def prog(mpi):
        got = {}
        steps = [("1 attach small", lambda: mpi.buffer_attach(mpi.BSEND_OVERHEAD - 1)),
                 ("2 attach 4096", lambda: mpi.buffer_attach(4096)),
                 ("3 bsend 8 B", lambda: mpi.bsend(count=8, datatype=ms.BYTE, dest=0, tag=0)),
                 ("4 detach", mpi.buffer_detach),
                 ("5 attach 4096", lambda: mpi.buffer_attach(4096)),
                 ("6 detach", mpi.buffer_detach)]
        for name, call in steps:
            try:
                value = yield call()
                got[name] = "ok" if value is None else f"ok {value[1]}"
            except ms.MPIError as e:
                got[name] = e.error_class
        yield mpi.recv(count=8, datatype=ms.BYTE, source=0, tag=0) if got["3 bsend 8 B"] == "ok" \
            else mpi.compute(0)
        return got

    sim = ms.run(prog, ranks=1, mpi={"profile": SHIPPED[profile]}).returned[0]
    assert sim == real
