"""The supported-call table of docs/guide/mpi4py.md is generated from the stand-in's own
``mpi4py.MPI`` and ``mpi4py.util`` (``python -m mpisim.mpi4py --supported-markdown``), so
it cannot drift: the page holds exactly the generated table, and what the table lists is
there while what it does not list raises NotImplementedError naming it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers.paths import ROOT

from mpisim.mpi4py.run import supported
from mpisim.mpi4py.run.module import modules


def test_the_page_shows_the_generated_table():
    page = (ROOT / "docs" / "guide" / "mpi4py.md").read_text()
    block = page.split(supported.BEGIN)[1].split(supported.END)[0]
    assert block == supported.markdown(), (
        "docs/guide/mpi4py.md is out of date: run `python -m mpisim.mpi4py "
        "--supported-markdown --write docs/guide/mpi4py.md`")


def test_the_entry_point_prints_the_table():
    out = subprocess.run([sys.executable, "-m", "mpisim.mpi4py", "--supported-markdown"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    assert out == supported.markdown()


def test_what_the_table_lists_is_there():
    mpi = modules()["mpi4py.MPI"]
    found = supported.names()
    for name in [*found["functions"], *found["datatypes"], *found["ops"]]:
        assert hasattr(mpi, name), name
    for name in ("Comm", "Request", "Status", "Datatype", "Message"):
        assert name in found["classes"]
    assert "`Mprobe`" in found["classes"]["Comm"] or "`Mprobe`" in supported.markdown()
    assert found["util"]["mpi4py.util.pkl5"] == ["Comm", "Intercomm", "Intracomm",
                                                 "Message", "Pickle", "Request", "pickle"]


@pytest.mark.parametrize("owner, name", [("MPI", "Add_error_class"), ("Request", "Start_all_x"),
                                         ("Datatype", "Pack_external")])
def test_what_it_does_not_list_raises_naming_it(owner, name):
    mpi = modules()["mpi4py.MPI"]
    target = mpi if owner == "MPI" else getattr(mpi, owner)
    assert f"`{name}`" not in supported.markdown()
    with pytest.raises(NotImplementedError, match=rf"{owner}\.{name} is not supported"):
        getattr(target, name)
