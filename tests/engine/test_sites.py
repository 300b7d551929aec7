"""Program places as reports print them: ``file.py:line (function)``, and in a notebook
``cell N, line L (function)`` rather than the temporary file IPython compiled the cell as.

IPython's scheme is simulated here (a kernel runs in tests/notebooks): its shell compiles a
cell under a file name it makes up (``/tmp/ipykernel_4242/369826325.py``) and keeps that
name's execution count in ``get_ipython().compile._filename_map``; an older IPython named
cells ``<ipython-input-N-hash>``.
"""

from __future__ import annotations

import sys
import types

import pytest

import mpisim as ms
from mpisim.engine.sites import file_line, place

CELL_FILE = "/tmp/ipykernel_4242/369826325.py"
CELL_SOURCE = """\
import mpisim as ms

def exchange(mpi, count=2000):
    peer = 1 - mpi.rank
    yield mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)
    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)
"""


@pytest.fixture
def ipython(monkeypatch):
    """A running IPython shell, as far as mpisim can tell: cell 5 is CELL_FILE."""
    shell = types.SimpleNamespace(compile=types.SimpleNamespace(_filename_map={CELL_FILE: 5}))
    module = types.ModuleType("IPython")
    module.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", module)
    return shell


def test_a_file_is_named_by_its_base_name():
    assert file_line("/home/me/ring.py", 12) == "ring.py:12"
    assert place("/home/me/ring.py", 12, "ring") == "ring.py:12 (ring)"


def test_a_cell_is_named_by_its_execution_count(ipython):
    assert file_line(CELL_FILE, 4) == "cell 5, line 4"
    assert place(CELL_FILE, 4, "exchange") == "cell 5, line 4 (exchange)"
    assert file_line("<ipython-input-7-0123abcd>", 2) == "cell 7, line 2"
    assert file_line("/home/me/ring.py", 12) == "ring.py:12"  # a file stays a file


def test_without_ipython_a_temporary_file_name_is_left_as_it_is(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert file_line(CELL_FILE, 4) == "369826325.py:4"


def test_a_deadlock_of_a_program_defined_in_a_cell_names_the_cell_and_line(ipython):
    """3.5, Example 3.10 (8000 bytes over a 4 KiB eager limit): each blocked send's place."""
    namespace: dict = {}
    exec(compile(CELL_SOURCE, CELL_FILE, "exec"), namespace)
    r = ms.run(namespace["exchange"], ranks=2, network={"eager_limit": "4 KiB"})
    assert r.outcome is ms.Outcome.DEADLOCK
    assert [b.where for b in r.deadlock.blocked] == ["cell 5, line 5 (exchange)"] * 2
    report = r.report()
    assert "cell 5, line 5 (exchange)" in report and "369826325" not in report


def test_an_error_raised_in_a_cell_names_the_cell_in_its_place_and_traceback(ipython):
    source = "def raises(mpi):\n    yield mpi.barrier()\n    1 / 0\n"
    namespace: dict = {}
    exec(compile(source, CELL_FILE, "exec"), namespace)
    r = ms.run(namespace["raises"], ranks=2)
    assert r.error.where == "cell 5, line 3 (raises)"
    assert 'File "cell 5", line 3, in raises' in r.error.traceback
    assert "369826325" not in r.report()
