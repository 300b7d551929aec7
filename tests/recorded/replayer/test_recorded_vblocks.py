"""The v and w collectives' blocks in a recording (MPI 4.1 §6.5 to §6.8): every receiving
rank's counts, displacements and datatypes (``rns``, ``rds``, ``rT``/``rTs``), a scatterv
root's own receive (``rn``/``rT``) and MPI_IN_PLACE (``ip=1``), checked by the replay: the
own block's type signature and overlapping receive blocks.

The stored recordings (tests/data/replay/vector-blocks-*.trace) were made on MPICH 5.0.2 from
tests/data/replay_c/vector_blocks.c and need no MPI; each is replayed in the text format and
converted to the compact one. The real test records the program again (``mpicc``/``mpiexec``
of MPICH, the ``oracle`` extra; skipped without them), in both formats.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mpi_tools import oracle_mpich, recorder_cache
from helpers.paths import DATA

import mpisim as ms
from mpisim.cli.main import main
from mpisim.recorded import read_trace, replay_scenario

STORED = DATA / "replay"
C_SOURCE = DATA / "replay_c" / "vector_blocks.c"
RULES = ("collective-overlap", "collective-type", "collective-count")


def _findings(trace: Path) -> tuple[ms.Outcome, str, list]:
    sc = replay_scenario(trace).with_overrides({"mpi.profile": "mpich"})
    result = sc.run()
    return result.outcome, sc.compare(result), [f for f in result.findings if f.rule in RULES]


def _compact(text: Path, tmp_path: Path) -> Path:
    out = tmp_path / f"{text.stem}.compact.trace"
    assert main(["record", "--convert", str(text), "--out", str(out)]) == 0
    return out


def _both(name: str, tmp_path: Path) -> list[Path]:
    text = STORED / f"vector-blocks-{name}.trace"
    return [text, _compact(text, tmp_path)]


def test_the_scatterv_roots_own_part_and_every_receivers_blocks_are_read(tmp_path, capsys):
    """6.6: the root logs its send displacements and its own receive (rn, rT; ip=1 for
    MPI_IN_PLACE); 6.5, 6.7, 6.8: a receiving rank its counts, displacements, types."""
    for trace in _both("correct", tmp_path):
        root = read_trace(trace).ranks[1].calls
        scatterv = next(c for c in root if c.name == "Scatterv")
        assert scatterv.args["ns"] == [2, 2, 2, 2] and scatterv.args["ds"] == [6, 4, 2, 0]
        assert scatterv.args["rn"] == 1  # its block as one contiguous(2, INT)
        assert read_trace(trace).ranks[1].types[scatterv.args["rT"]].sig == (("MPI_INT", 2),)
        calls = read_trace(trace).ranks[0].calls
        in_place = [c for c in calls if c.name == "Scatterv"][1]
        assert in_place.args["ip"] == 1 and "rn" not in in_place.args
        gatherv = [c for c in calls if c.name == "Gatherv"]
        assert gatherv[0].args["rns"] == [1, 1, 1, 1] and gatherv[0].args["rds"] == [0, 1, 2, 3]
        assert gatherv[1].args["ip"] == 1
        w = next(c for c in calls if c.name == "Alltoallw")
        assert w.args["rds"] == [24, 16, 8, 0] and len(w.args["rTs"]) == 4


def test_correct_blocks_and_an_own_block_of_the_same_signature_are_no_finding(tmp_path):
    """6.6: the root receiving its 2 ints as one contiguous(2, INT) matches (§3.3.1)."""
    for trace in _both("correct", tmp_path):
        outcome, compared, found = _findings(trace)
        assert outcome is ms.Outcome.COMPLETED and compared.startswith("agrees")
        assert found == []


def test_6_5_overlapping_gatherv_blocks_of_a_c_program_are_found(tmp_path):
    """6.5: displacements stepping by 1 where each rank sends 2 doubles: erroneous (MPICH
    completes; so does the replay, with the finding at the root's call)."""
    for trace in _both("overlap", tmp_path):
        outcome, compared, found = _findings(trace)
        assert outcome is ms.Outcome.COMPLETED and compared.startswith("agrees")
        assert [(f.rule, f.calls[0].rank, f.calls[0].call) for f in found] == [
            ("collective-overlap", 0, "MPI_Gatherv")]
        assert "blocks of ranks 0 and 1 overlap" in found[0].message


def test_6_6_a_scatterv_roots_own_block_of_another_type_is_found(tmp_path):
    """6.6: the root sends itself 2 ints and receives 2 floats: the same bytes, signatures
    that differ (MPICH completes)."""
    for trace in _both("owntype", tmp_path):
        outcome, _, found = _findings(trace)
        assert outcome is ms.Outcome.COMPLETED
        assert [(f.rule, f.calls[0].rank, f.calls[0].call) for f in found] == [
            ("collective-type", 0, "MPI_Scatterv")]
        assert "2 x INT (8 B) sent to itself where its receive takes 2 x FLOAT" \
            in found[0].message


# -- hand-written recordings: the forms the C program does not make ----------------------
def _log(rank: int, size: int, body: str) -> str:
    return (f"#mpisim-trace 1\n#rank {rank} {size}\n#library test\n"
            "Init g=0 thread=0\n= 0 d=0\nT 1 size=4 extent=4 lb=0 kind=named name=MPI_INT\n"
            "T 2 size=8 extent=8 lb=0 kind=named name=MPI_DOUBLE\n"
            "T 3 size=4 extent=16 lb=0 kind=vector sig=MPI_INT*1\n"
            f"{body}Finalize g=0\n= 0 d=0\n")


def _replayed(tmp_path: Path, *bodies: str) -> list:
    path = tmp_path / "v.trace"
    path.write_text("".join(_log(k, len(bodies), b) for k, b in enumerate(bodies)))
    result = replay_scenario(path).run()
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    return [(f.rule, f.calls[0].rank, f.calls[0].call) for f in result.findings
            if f.rule in RULES]


def test_6_5_a_gatherv_roots_own_block_of_other_bytes_is_a_count_finding(tmp_path):
    root = "Gatherv g=0 comm=0 n=3 T=1 root=0 rT=1 rns=2,2 rds=0,2\n= 0 d=1\n"
    other = "Gatherv g=0 comm=0 n=2 T=1 root=0\n= 0 d=1\n"
    assert _replayed(tmp_path, root, other) == [("collective-count", 0, "MPI_Gatherv")]


def test_6_8_alltoallw_blocks_overlap_in_bytes_and_in_place_has_no_own_block(tmp_path):
    """6.8: the w form's displacements are bytes: a double at byte 2 overlaps the int at 0;
    with ip=1 the own part moves nothing (no own-block check)."""
    body = "Alltoallw g=0 comm=0 ns=1,1 Ts=1,1 ip=1 rTs=1,2 rns=1,1 rds=0,2\n= 0 d=1\n"
    assert _replayed(tmp_path, body, body) == [("collective-overlap", 0, "MPI_Alltoallw"),
                                               ("collective-overlap", 1, "MPI_Alltoallw")]


def test_blocks_of_a_type_with_gaps_are_not_compared_as_intervals(tmp_path):
    """A strided type (extent 16, one int): its blocks interleave at displacements 0 and 1
    without overlapping, which intervals cannot tell: not checked (no false finding)."""
    body = "Allgatherv g=0 comm=0 n=1 T=3 rT=3 rns=1,1 rds=0,1\n= 0 d=1\n"
    body2 = "Allgatherv g=0 comm=0 n=1 T=3 rT=3 rns=2,1 rds=0,1\n= 0 d=1\n"
    assert _replayed(tmp_path, body, body) == []
    assert _replayed(tmp_path, body2, body) == [("collective-count", 0, "MPI_Allgatherv")]


# -- recorded on MPICH ---------------------------------------------------------------------
@pytest.mark.real_mpi
@pytest.mark.parametrize("fmt", ["text", "compact"])
def test_vector_blocks_recorded_on_mpich_in_both_formats(fmt, tmp_path):
    mpicc, mpiexec = oracle_mpich()
    app = tmp_path / "vector_blocks"
    subprocess.run([str(mpicc), "-g", "-O1", "-o", str(app), str(C_SOURCE)], check=True,
                   timeout=120)
    env = dict(os.environ, XDG_CACHE_HOME=recorder_cache())
    expected = {"correct": [], "overlap": [("collective-overlap", "MPI_Gatherv")],
                "owntype": [("collective-type", "MPI_Scatterv")]}
    for mode, rules in expected.items():
        trace = tmp_path / f"{mode}.trace"
        run = subprocess.run([sys.executable, "-m", "mpisim", "record", "--format", fmt,
                              "--out", str(trace), "--", str(mpiexec), "-n", "4", str(app),
                              mode], capture_output=True, text=True, env=env, timeout=300,
                             cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        assert sorted(run.stdout.split("\n"))[1:] == [f"rank {r}: ok" for r in range(4)]
        outcome, compared, found = _findings(trace)
        assert outcome is ms.Outcome.COMPLETED and compared.startswith("agrees"), mode
        assert [(f.rule, f.calls[0].call) for f in found] == rules, mode
        if rules:
            assert "vector_blocks.c:" in found[0].calls[0].where
