"""Observe again, with the real mpi4py, the table of argument conversions the mpi4py stand-in
is tested against (tests/data/mpi4py/conversions.txt).

tests/data/mpi4py/conversions.py tries each argument mpi4py converts (collectives' roots,
ops and vector blocks, Split, groups, windows, files, Info, Status, request lists, datatype
constructors, Spawn) with each kind of value (int, float, bool, numpy scalars, None, str,
list, tuple, range, numpy array...) and prints one outcome a line. This runs it on one
process with the real library (``mpiexec -n 1``: Spawn needs a process manager) and writes
the lines, with a header naming the mpi4py and library versions, to the table.

    python -m bench.mpi4py_conversions            # rewrite the table
    python -m bench.mpi4py_conversions --check    # say whether it still holds (exit 1 if not)

Needs mpi4py and an MPI library's ``mpiexec`` beside this Python (the ``oracle`` extra:
``pip install mpi4py mpich``); the stored table was observed with mpi4py 4.1.2 on MPICH 5.0.2.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "data" / "mpi4py" / "conversions.py"
TABLE = SCRIPT.with_suffix(".txt")


def observe() -> list[str]:
    """The script's lines under the real mpi4py, after a header of the versions."""
    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists():
        raise SystemExit(f"no mpiexec beside {sys.executable}: pip install mpi4py mpich")
    version = subprocess.run([sys.executable, "-c", "import mpi4py; from mpi4py import MPI; "
                              "print(mpi4py.__version__, MPI.Get_library_version().split("
                              "chr(10))[0].split('MPICH Release')[0].strip())"],
                             capture_output=True, text=True, check=True, timeout=60)
    with tempfile.TemporaryDirectory() as cwd:  # (the file cases' scratch file)
        run = subprocess.run([str(mpiexec), "-n", "1", sys.executable, str(SCRIPT)],
                             capture_output=True, text=True, timeout=600, cwd=cwd)
    if run.returncode != 0:
        raise SystemExit(f"{SCRIPT.name} failed under the real library:\n{run.stderr}")
    lines = [line for line in run.stdout.splitlines() if " | " in line]
    return [f"# observed with mpi4py {' '.join(version.stdout.split())}", *lines]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the stored table instead of rewriting it")
    args = parser.parse_args(argv)
    lines = observe()
    if args.check:
        stored = [line for line in TABLE.read_text().splitlines() if " | " in line]
        differ = [f"  stored:   {a}\n  observed: {b}" for a, b in zip(stored, lines[1:],
                                                                       strict=False) if a != b]
        if differ or len(stored) != len(lines) - 1:
            print(f"{TABLE.name}: {len(differ)} lines differ\n" + "\n".join(differ[:20]))
            return 1
        print(f"{TABLE.name}: holds ({len(stored)} lines)")
        return 0
    TABLE.write_text("\n".join(lines) + "\n")
    print(f"wrote {TABLE.name}: {len(lines) - 1} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
