"""Values are bounded where they are read: no inf, NaN or integer beyond an MPI_Count
reaches the engine, the trace or the JSON; each ends in one clear error instead."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mpisim as ms
from mpisim.scenario import ScenarioError, load

PAIR = """\
ranks: 2
programs:
  - ranks: 0
    ops:
      - send: {{dest: 1, {send}}}
  - ranks: 1
    ops:
      - recv: {{source: 0, {recv}}}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_a_size_beyond_an_mpi_count_is_a_load_error(tmp_path):
    path = _write(tmp_path, PAIR.format(send="bytes: 1e308 KiB", recv="bytes: 1e308 KiB"))
    with pytest.raises(ScenarioError, match=r"s\.yaml:5: .*bytes: size '1e308 KiB' is too "
                                            r"large \(an MPI_Count"):
        load(path)


def test_a_buffer_or_param_beyond_an_mpi_count_is_a_load_error(tmp_path):
    path = _write(tmp_path, "ranks: 1\nbuffer: 1e308 KiB\nparams: {big: 1e308 KiB}\n"
                            "programs:\n  - ops: []\n")
    with pytest.raises(ScenarioError) as info:
        load(path)
    assert len(info.value.problems) == 2 and all("too large" in p for p in info.value.problems)


def test_count_times_type_size_beyond_an_mpi_count_is_mpi_err_count(tmp_path):
    """count 2**61 of DOUBLE is 2**64 bytes: MPI_ERR_COUNT, not an OverflowError."""
    count = 2**61
    path = _write(tmp_path, PAIR.format(send=f"count: {count}, datatype: DOUBLE",
                                        recv=f"count: {count}, datatype: DOUBLE"))
    result = load(path).run()
    assert result.outcome is ms.Outcome.ERROR
    assert result.error.error_class == "MPI_ERR_COUNT" and "MPI_Count" in result.error.message
    json.dumps(result.to_dict(), allow_nan=False)


def test_a_clock_that_would_overflow_is_an_error_naming_the_call(tmp_path):
    path = _write(tmp_path, "ranks: 1\nprograms:\n  - ops:\n      - compute: 1e308\n"
                            "      - compute: 1e308\n")
    result = load(path).run()
    assert result.outcome is ms.Outcome.ERROR and result.error.call == "compute"
    assert "clock would overflow" in result.error.message
    json.dumps(result.to_dict(), allow_nan=False)  # no inf anywhere
    out = subprocess.run([sys.executable, "-m", "mpisim", "run", str(path), "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 4 and "Traceback" not in out.stderr


def _transfer(kind):
    def program(mpi):
        if kind == "bcast":
            yield mpi.bcast(count=10**6, datatype=ms.BYTE, root=0)
        elif mpi.rank == 0:
            if kind == "bsend":
                yield mpi.buffer_attach("1 MiB")
            yield getattr(mpi, kind)(count=10**5, datatype=ms.BYTE, dest=1, tag=0)
            if kind == "bsend":
                yield mpi.buffer_detach()
        else:
            yield mpi.recv(count=10**5, datatype=ms.BYTE, source=0, tag=0)
    return program


@pytest.mark.parametrize(("kind", "call", "eager_limit"), [
    ("send", "MPI_Send", "1 MiB"),     # eager: overflows inside the call
    ("send", "MPI_Send", 0),           # rendezvous: overflows at the clear-to-send
    ("bsend", "MPI_Bsend", "1 MiB"),
    ("ssend", "MPI_Ssend", "1 MiB"),
    ("bcast", "MPI_Bcast", "1 MiB"),   # a collective's transfer between its rounds
])
def test_a_transfer_that_would_overflow_the_clock_is_an_error_naming_the_call(
        kind, call, eager_limit):
    """A transfer time beyond a float (1e5 B at 1e-305 B/s) ends the run with an error of
    the call that made it, as an overflowing compute does: no inf reaches the queue, the
    trace or the JSON."""
    result = ms.run(_transfer(kind), ranks=2,
                    network={"bandwidth": "1e-305 B/s", "eager_limit": eager_limit})
    assert result.outcome is ms.Outcome.ERROR
    assert (result.error.rank, result.error.call) == (0, call)
    assert result.error.error_class == "MPI_ERR_OTHER"
    assert "clock would overflow" in result.error.message
    assert result.sim_time < 1.0
    json.dumps(result.to_dict(), allow_nan=False)


def test_a_transfer_overflow_from_the_cli_is_exit_4_without_a_traceback(tmp_path):
    path = _write(tmp_path, "ranks: 2\nnetwork: {bandwidth: 1e-305 B/s}\nprograms:\n"
                            "  - ranks: 0\n    ops:\n      - send: {dest: 1, bytes: 100 KiB}\n"
                            "  - ranks: 1\n    ops:\n      - recv: {source: 0, bytes: 100 KiB}\n")
    out = subprocess.run([sys.executable, "-m", "mpisim", "run", str(path), "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 4 and "Traceback" not in out.stderr
    error = json.loads(out.stdout)["error"]
    assert error["call"] == "MPI_Send" and "clock would overflow" in error["message"]


def _send_recv(datatype_factory):
    def program(mpi):
        dt = datatype_factory().commit()
        if mpi.rank == 0:
            yield mpi.send(None, dest=1, count=1, datatype=dt)
        else:
            yield mpi.recv(None, source=0, count=1, datatype=dt)
    return program


@pytest.mark.parametrize("factory", [
    lambda: ms.DOUBLE.create_hindexed([1], [2**64]),
    lambda: ms.DOUBLE.create_hvector(2, 1, 2**63 - 1),
    lambda: ms.BYTE.create_vector(3, 1, 2**62),
    lambda: ms.DOUBLE.create_indexed([1], [2**61]),
])
def test_a_datatype_beyond_64_bits_is_mpi_err_arg(factory):
    """4.1.2: displacements are MPI_Aint; a type whose bounds do not fit 64 bits is
    refused with MPI_ERR_ARG (numpy int64 arithmetic would wrap silently)."""
    result = ms.run(_send_recv(factory), ranks=2)
    assert result.outcome is ms.Outcome.ERROR and result.error.error_class == "MPI_ERR_ARG"
    assert "64 bits" in result.error.message


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("factory", "nbytes"), [
    (lambda: ms.DOUBLE.create_hindexed([2**40], [0]), 2**43),
    (lambda: ms.DOUBLE.create_contiguous(2**33), 2**36),
])
def test_huge_types_are_sized_from_their_description_never_expanded(factory, nbytes):
    """Sizes and bounds come from the type's description: a send of an 8 TiB type moves
    its size without allocating an index array of 2**40 entries."""
    result = ms.run(_send_recv(factory), ranks=2)
    assert result.outcome is ms.Outcome.COMPLETED
    assert result.trace.messages["bytes"][0] == nbytes
