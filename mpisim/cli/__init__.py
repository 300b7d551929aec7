"""The ``mpisim`` command line: parsing, printing and exit codes (:mod:`.main`).

``from mpisim.cli import main``: ``main(["run", "scenario.yaml"])`` runs a command and returns
its exit code."""

from .main import main

__all__ = ["main"]
