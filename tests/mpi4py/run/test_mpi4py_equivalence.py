"""One program three ways — a YAML scenario, a native generator program and an mpi4py
script — gives the same result JSON, apart from the program's name, its params, where
each setting came from, and locations (file:line of the calls)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from helpers.paths import SCENARIOS

import mpisim as ms
from mpisim.scenario import load


def comparable(result: Any) -> Any:
    """The result JSON without what names or places the program."""
    def strip(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: strip(v, k) for k, v in value.items()
                    if k not in ("scenario", "params", "from", "where", "site")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(json.loads(result.to_json()))


def three_ways(tmp_path: Path, yaml_name: str, native: Any, script: str) -> list[Any]:
    scenario = load(SCENARIOS / yaml_name)
    kwargs = scenario.run_kwargs()
    settings = {"network": kwargs["network"], "mpi": kwargs["mpi"]}
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(script))
    return [comparable(scenario.run()),
            comparable(ms.run(native, ranks=scenario.ranks, **settings)),
            comparable(ms.run_mpi4py(path, ranks=scenario.ranks, **settings))]


def test_a_bsend_ring_gives_the_same_json_three_ways(tmp_path):
    """3.6.1: a lockstep ring of bsends with room for one entry completes."""
    def ring(mpi, count=4096, steps=10, slots=1):
        yield mpi.buffer_attach(slots * (mpi.pack_size(count, ms.DOUBLE) + mpi.BSEND_OVERHEAD))
        right, left = (mpi.rank + 1) % mpi.size, (mpi.rank - 1 + mpi.size) % mpi.size
        for step in range(steps):
            yield mpi.bsend(count=count, datatype=ms.DOUBLE, dest=right, tag=step)
            yield mpi.recv(count=count, datatype=ms.DOUBLE, source=left, tag=step)
        yield mpi.buffer_detach()

    yaml, native, script = three_ways(tmp_path, "ring-bsend.yaml", ring, """
        import numpy as np
        from mpi4py import MPI

        count, steps, slots = 4096, 10, 1
        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        MPI.Attach_buffer(bytearray(slots * (MPI.DOUBLE.Pack_size(count, comm)
                                             + MPI.BSEND_OVERHEAD)))
        out, got = np.zeros(count), np.empty(count)
        for step in range(steps):
            comm.Bsend([out, MPI.DOUBLE], dest=(rank + 1) % size, tag=step)
            comm.Recv([got, MPI.DOUBLE], source=(rank - 1 + size) % size, tag=step)
        MPI.Detach_buffer()
    """)
    assert yaml["outcome"] == "completed"
    assert yaml == native == script


def test_example_3_10_deadlocks_the_same_three_ways(tmp_path):
    """3.5 Example 3.10: both standard sends above the eager limit block."""
    def exchange(mpi, count=2000):
        yield mpi.send(count=count, datatype=ms.REAL, dest=1 - mpi.rank, tag=0)
        yield mpi.recv(count=count, datatype=ms.REAL, source=1 - mpi.rank, tag=0)

    yaml, native, script = three_ways(tmp_path, "example-3.10-send.yaml", exchange, """
        import numpy as np
        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        peer = 1 - comm.Get_rank()
        comm.Send([np.zeros(2000, dtype=np.float32), MPI.REAL], dest=peer, tag=0)
        comm.Recv([np.empty(2000, dtype=np.float32), MPI.REAL], source=peer, tag=0)
    """)
    assert yaml["outcome"] == "deadlock"
    assert yaml == native == script
