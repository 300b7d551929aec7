"""mpisim's version, defined here once: ``mpisim.__version__``, ``mpisim --version``, the
mpi4py stand-in's library version, and the distribution's metadata (pyproject.toml reads
this literal without importing the package)."""

__version__ = "0.2.0"
