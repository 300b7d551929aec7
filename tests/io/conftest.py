"""Every test of MPI-IO runs in a directory of its own: relative file names land there."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
