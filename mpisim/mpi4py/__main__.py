"""``python -m mpisim.mpi4py [-n N] script.py [args...]``: as ``mpisim mpi4py``."""

import sys

from mpisim.cli.main import main

sys.exit(main(["mpi4py", *sys.argv[1:]]))
