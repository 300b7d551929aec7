"""The notebooks under notebooks/ run top to bottom and show what their text says.

Each notebook is executed once per session with nbclient, in a fresh kernel running this
interpreter (the project's environment), with the notebook's folder as the working
directory, as Jupyter would. Every notebook must run without an error, in well under a
minute, and be committed without outputs (the rule; notebooks/clear_outputs.py clears
them); it shows at least one figure and each figure cell one image; and each notebook's
claims about MPI (3.5, 3.6, 3.6.1) are checked against the outputs of the cells that make
them, found by cell tag.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest
from helpers.paths import ROOT
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from nbclient import NotebookClient

import mpisim as ms
from mpisim.values.units import parse_size

pytestmark = pytest.mark.notebooks  # a Jupyter kernel runs each notebook

NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
TOUR = NOTEBOOK_DIR / "01-buffered-mode-tour.ipynb"
CELL_TIMEOUT = 120  # seconds per cell
NOTEBOOK_SECONDS = 60  # each notebook, top to bottom on a fresh kernel (about 10 s here)
OWN_KERNEL = "mpisim-test-python"


# -- the kernel: this interpreter ------------------------------------------------------------
def _runs_this_python(spec: Any) -> bool:
    """True if the kernel spec lives in this environment and starts this interpreter.

    jupyter_client replaces a spec's ``python``/``python3``/``python3.X`` by
    ``sys.executable``; any other command must be this interpreter itself."""
    inside = Path(spec.resource_dir).resolve().is_relative_to(Path(sys.prefix).resolve())
    command = spec.argv[0] if spec.argv else ""
    major, minor = sys.version_info[:2]
    generic = {"python", f"python{major}", f"python{major}.{minor}"}
    return inside and (command in generic or
                       Path(command).resolve() == Path(sys.executable).resolve())


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory: pytest.TempPathFactory):
    """``python3`` when the environment's own spec runs this interpreter; otherwise a
    temporary spec that starts ``sys.executable``, found through JUPYTER_PATH."""
    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        spec = None
    if spec is not None and _runs_this_python(spec):
        yield "python3"
        return
    root = tmp_path_factory.mktemp("jupyter")
    folder = root / "kernels" / OWN_KERNEL
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "mpisim tests", "language": "python"}))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(root))
        yield OWN_KERNEL


@pytest.fixture(scope="module")
def executed(kernel_name: str):
    """Notebook path -> the notebook executed (each one once, on first use)."""
    done: dict[Path, Any] = {}

    def run(path: Path) -> Any:
        if path not in done:
            nb = nbformat.read(path, as_version=4)
            done[path] = None  # a broken notebook runs once: the first test shows its error
            start = time.perf_counter()
            NotebookClient(nb, kernel_name=kernel_name, timeout=CELL_TIMEOUT,
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            nb.metadata["seconds"] = time.perf_counter() - start
            done[path] = nb
        if done[path] is None:
            pytest.fail(f"{path.name} did not run to the end (see the first failure)",
                        pytrace=False)
        return done[path]

    return run


def _text(cell: Any) -> str:
    """What a cell printed and displayed, as text."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream" and out.name == "stdout":
            parts.append(out.text)
        elif "data" in out:
            parts.append(out.data.get("text/plain", ""))
    return "".join(parts)


def _html(cell: Any) -> str:
    """The text of what a cell displayed as HTML (tags, SVG and the folded report left out)."""
    parts = []
    for out in cell.get("outputs", []):
        html = out.get("data", {}).get("text/html", "")
        html = re.sub(r"<svg.*?</svg>|<details.*?</details>", " ", html, flags=re.S)
        parts.append(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))
    return " ".join(parts)


def _cell(nb: Any, tag: str) -> Any:
    cells = [c for c in nb.cells if tag in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"expected one cell tagged {tag!r}, found {len(cells)}"
    return cells[0]


def _out(nb: Any, tag: str) -> str:
    return _text(_cell(nb, tag))


# -- every notebook ----------------------------------------------------------------------------
def test_there_are_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["01-buffered-mode-tour.ipynb", "02-what-if.ipynb",
                                           "03-deadlock-hunting.ipynb", "04-mpi4py.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path: Path):
    """Outputs are made by running the notebook, never stored: the diff stays the text."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_top_to_bottom(path: Path, executed):
    """No cell raises (nbclient stops at the first error with its traceback)."""
    nb = executed(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count is not None for c in code)
    for cell in code:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source[:60]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_well_under_a_minute_and_shows_a_figure(path: Path, executed):
    nb = executed(path)
    assert nb.metadata["seconds"] < NOTEBOOK_SECONDS
    figures = [c for c in nb.cells if "figure" in c.metadata.get("tags", [])]
    assert figures and all(any("image/png" in o.get("data", {}) for o in c.outputs)
                           for c in figures)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_figure_cells_show_one_image(path: Path, executed):
    """A cell ending with a Figure shows it once, as an image (headless, no pyplot window)."""
    nb = executed(path)
    for cell in nb.cells:
        if "figure" not in cell.metadata.get("tags", []):
            continue
        images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
        assert len(images) == 1, f"{cell.id}: {len(images)} images"


# -- the tour's claims -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def tour(executed):
    return executed(TOUR)


def test_example_3_10_standard_send_completes_below_eager_limit(tour):
    """3.5, Example 3.10: 4000 bytes fit the 4 KiB eager limit, both messages are buffered."""
    assert "exchange: COMPLETED" in _out(tour, "ex310-eager")


def test_example_3_10_standard_send_deadlocks_above_eager_limit(tour):
    """3.5, Example 3.10: above the eager limit both MPI_Send wait for a receive: a cycle."""
    out = _out(tour, "ex310-rendezvous")
    assert "DEADLOCK" in out and "rendezvous" in out
    assert "cycle: 0 -> 1 -> 0" in out and out.count("MPI_Send(") == 2


def test_example_3_10_ssend_always_deadlocks(tour):
    """3.5: "The same will certainly happen, if the synchronous mode is used" (one REAL)."""
    out = _out(tour, "ex310-ssend")
    assert "DEADLOCK" in out and out.count("MPI_Ssend(") == 2 and "4 B" in out


def test_example_3_10_is_not_safe(tour):
    """3.5: a safe program completes with every send synchronous; Example 3.10 does not."""
    out = _out(tour, "ex310-safe")
    assert "NOT SAFE" in out
    assert "as written: completed\n  with every send synchronous" in out and ": deadlock: " in out


def test_example_3_10_bsend_with_one_entry_completes(tour):
    """3.6/3.6.1: pack_size + MPI_BSEND_OVERHEAD per rank is enough; detach returns the size
    attached (2000 REALs + the standard profile's overhead)."""
    out = _out(tour, "ex310-bsend")
    entry = 2000 * ms.REAL.size + ms.MPIConfig().resolve().bsend_overhead
    assert "exchange_bsend: COMPLETED" in out
    assert f"sizes returned by MPI_Buffer_detach: [{entry}, {entry}]" in out


def test_example_3_10_bsend_one_byte_short_overflows(tour):
    """3.5 advice to users: not enough buffer space is a buffer overflow error, not a
    deadlock; it happens in MPI_Bsend before any message moves."""
    out = _out(tour, "ex310-bsend-short")
    assert "ERROR at t = 0 s" in out and "MPI_ERR_BUFFER" in out and "MPI_Bsend" in out
    assert "DEADLOCK" not in out


def test_pipeline_overflows_its_buffer(tour):
    """3.6.1: rendezvous entries stay until the consumer receives them; the producer
    overflows."""
    assert "pipeline-bsend-overflow: ERROR" in _out(tour, "pipeline-run")
    assert "MPI_ERR_BUFFER" in _out(tour, "pipeline-run")


def _numbers(pattern: str, text: str) -> tuple[int, ...]:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in {text!r}"
    return tuple(int(g) for g in match.groups())


def test_head_of_line_completed_entries_stuck_behind_a_live_head(tour):
    """3.6.1: reclaim stops at the first uncompleted entry: at the overflow the live head
    is at offset 0, every small entry behind it has completed, and the tail is at the end."""
    out = _out(tour, "hol-numbers")
    head, tail, capacity = _numbers(r"head at (\d+) B, tail at (\d+) B, capacity (\d+) B", out)
    live, completed = _numbers(r"entries: (\d+) live, (\d+) completed but not reclaimed", out)
    largest, needed = _numbers(r"largest free block (\d+) B; the next entry needed (\d+) B",
                               out)
    assert (head, tail, live) == (0, capacity, 1)
    assert completed == 16  # the scenario's `room`: the 17th small bsend fails
    assert largest < needed


def test_wrap_gap_counts_as_used(tour):
    """3.6.1: an entry that does not fit after the tail goes to the buffer's start; the
    bytes left at the end are the wrap gap, used (buffer full) though not live."""
    out = _out(tour, "wrap-run")
    head, tail, gap, gap_at = _numbers(
        r"head at (\d+) B, tail at (\d+) B, wrap gap of (\d+) B at offset (\d+)", out)
    used, capacity, live = _numbers(r"used (\d+) of (\d+) B, live (\d+) B", out)
    entry = head  # the head moved on by one reclaimed entry
    assert tail == head  # the wrapped entry ends exactly at the head
    assert gap_at + gap == capacity and 0 < gap < entry
    assert used == capacity and live == 3 * entry


def test_first_fit_completes_the_head_of_line_scenario(tour):
    """3.6 allows a better allocator; freeing completed entries anywhere avoids the
    overflow."""
    assert "circular-head-of-line: COMPLETED" in _out(tour, "first-fit-run")


def _min_buffer(report: str) -> tuple[int, list[int]]:
    (answer,) = _numbers(r"min buffer .*?\((\d+) B\)", report)
    bound = re.search(r"the lower bound\): \[([\d, ]+)\]", report)
    assert bound, report
    return answer, [int(x) for x in bound.group(1).split(",")]


def test_min_buffer_example_3_10_is_one_entry(tour):
    """3.6.1: one entry of pack_size + MPI_BSEND_OVERHEAD per rank, equal to the bound."""
    answer, bound = _min_buffer(_out(tour, "min-buffer-310"))
    entry = 1000 * ms.REAL.size + ms.MPIConfig().resolve().bsend_overhead
    assert answer == entry and bound == [entry, entry]


def test_min_buffer_head_of_line_circular_costs_half_again(tour):
    """3.6.1: the circular model needs about 1.5x the peak live bytes; first-fit needs
    exactly the peak."""
    circular, first_fit = _out(tour, "min-buffer-hol").split("\n\n", 1)
    answer, bound = _min_buffer(circular)
    assert "fragmentation cost" in circular and 1.3 < answer / max(bound) < 1.7
    answer, bound = _min_buffer(first_fit)
    assert answer == max(bound) and "fragmentation cost" not in first_fit


def test_sweep_deadlocks_exactly_above_the_eager_limit(tour):
    """3.5, Example 3.10: a standard-send exchange deadlocks iff 4 * count bytes exceed the
    eager limit (the sweep's table, row by row)."""
    rows = re.findall(r"^\s*(\d+)\s+(\d+ KiB)\s+(\w+)", _out(tour, "sweep-table"), re.M)
    assert len(rows) == 15
    for count, limit, outcome in rows:
        above = int(count) * ms.REAL.size > parse_size(limit)
        assert outcome == ("deadlock" if above else "completed"), (count, limit, outcome)


def test_simulation_step_by_step(tour):
    """Mid-run: no rank finished, five live entries held; then run() goes on to the end."""
    out = _out(tour, "step-mid")
    assert "outcome so far timeout, finished [False, False]" in out
    entries, used, live, _ = _numbers(
        r"(\d+) entries, used (\d+) B, live (\d+) B, capacity (\d+) B", out)
    assert entries == 5 and used == live
    assert "producer_consumer: COMPLETED" in _out(tour, "step-final")


# -- 02: what if? ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def what_if(executed):
    return executed(NOTEBOOK_DIR / "02-what-if.ipynb")


def test_what_if_sweep_and_the_two_entry_minimum(what_if):
    """3.6.1 and 3.4: eager 64 KiB messages that take longer to leave than the gap between
    bsends hold two entries at once: 2 * (65536 + 96) B, exactly."""
    assert "40 runs over buffer, count, network.eager_limit" in _html(_cell(what_if, "sweep3"))
    assert "min buffer 131264 B; two entries of 8 * 8192 + 96 B = 131264 B" in \
        _out(what_if, "min-64k")


def test_what_if_circular_minimum_is_not_monotonic_and_first_fit_is(what_if):
    """3.6.1: a larger circular buffer overflows again (2200..2399 B); first fit does not."""
    html = _html(_cell(what_if, "wrap-min"))
    assert "1800 B" in html and "2200..2399" in html
    out = _out(what_if, "wrap-first-fit")
    assert "circular:  1800 B, overflows again at [[2200, 2399]]" in out
    assert "first-fit: 1800 B, overflows again at []" in out


def test_what_if_profiles(what_if):
    """3.6.1's circular queue costs about half again over the peak of live bytes with a live
    head; first fit (standard sizing, and MPICH's) reaches the lower bound."""
    rows = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(
        r"^(standard \(circular\)|standard, first-fit|mpich|openmpi)\s+(\d+)\s+(\d+)",
        _out(what_if, "profiles-min"), re.M)}
    answer, bound = rows["standard (circular)"]
    assert 1.3 < answer / bound < 1.7
    assert rows["standard, first-fit"][0] == rows["standard, first-fit"][1]
    assert rows["mpich"][0] == rows["mpich"][1]
    assert rows["openmpi"][0] < rows["mpich"][0]  # its small bsends bypass the buffer


def test_what_if_explorer_is_a_widget(what_if):
    outputs = _cell(what_if, "explorer").outputs
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
               for o in outputs)


# -- 03: deadlock hunting ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hunting(executed):
    return executed(NOTEBOOK_DIR / "03-deadlock-hunting.ipynb")


def test_hunting_finds_the_ring_unsafe_and_its_cycle(hunting):
    """3.5: the ring shift completes while its messages fit the eager limit, but is not
    safe; above the limit the whole ring is one cycle of the wait-for graph."""
    assert "COMPLETED" in _html(_cell(hunting, "as-written"))
    assert "NOT SAFE" in _html(_cell(hunting, "unsafe"))
    html = _html(_cell(hunting, "deadlock"))
    assert "DEADLOCK" in html and "cycle: 0 → 1 → 2 → 3 → 0" in html


def test_hunting_three_fixes_are_safe(hunting):
    """3.5 (reorder), 3.6 (Bsend with its buffer: safe beyond it), 3.7 (nonblocking)."""
    for tag in ("fix-reorder", "fix-bsend", "fix-nonblocking"):
        html = _html(_cell(hunting, tag))
        assert "SAFE" in html and "NOT SAFE" not in html, tag
    assert "4192 B" in _html(_cell(hunting, "fix-bsend-min"))
    short = _html(_cell(hunting, "fix-bsend-short"))
    assert "MPI_ERR_BUFFER" in short and "DEADLOCK" not in short
    out = _out(hunting, "fixes-sweep")
    assert "as written   8 of 16 runs completed" in out
    for name in ("reordered", "bsend", "nonblocking"):
        assert re.search(rf"^{name}\s+16 of 16 runs completed", out, re.M), name


# -- 04: mpi4py ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mpi4py_nb(executed):
    return executed(NOTEBOOK_DIR / "04-mpi4py.ipynb")


def test_mpi4py_script_is_unsafe_at_its_own_line(mpi4py_nb):
    """3.5, Example 3.10 in mpi4py: not safe; the blocked calls are the script's lines."""
    assert "COMPLETED" in _html(_cell(mpi4py_nb, "run-send"))
    html = _html(_cell(mpi4py_nb, "check-send"))
    assert "NOT SAFE" in html and "exchange.py:29" in html
    sweep = _html(_cell(mpi4py_nb, "sweep-send"))
    assert "4 KiB deadlock" in sweep and "8000 B completed" in sweep  # (values as written)


def test_mpi4py_min_buffer_is_one_entry(mpi4py_nb):
    """3.6: pack_size + MPI_BSEND_OVERHEAD = 8000 + 96 B; one byte less overflows."""
    assert "SAFE (with its attached buffers" in _out(mpi4py_nb, "min-buffer")
    assert "8096 B" in _html(_cell(mpi4py_nb, "min-buffer"))
    assert "MPI_ERR_BUFFER" in _html(_cell(mpi4py_nb, "bsend-short"))


# -- reports in a notebook name the cell ---------------------------------------------------------
def test_reports_in_a_notebook_name_the_cell_and_line_not_ipythons_file(kernel_name, tmp_path):
    """A program defined in a cell is reported at ``cell N, line L`` (N the execution count
    beside the cell), for a deadlock (3.5, Example 3.10), a forgotten yield and a program's
    own exception: never at IPython's temporary file (``369826325.py:4``)."""
    cells = [
        "import mpisim as ms\nnet = ms.Network(eager_limit='4 KiB')",
        "def exchange(mpi, count=2000):\n"
        "    peer = 1 - mpi.rank\n"
        "    yield mpi.send(count=count, datatype=ms.REAL, dest=peer, tag=0)\n"
        "    yield mpi.recv(count=count, datatype=ms.REAL, source=peer, tag=0)\n"
        "print(ms.run(exchange, ranks=2, network=net).report())",
        "def forgets(mpi):\n"
        "    mpi.send(count=4, datatype=ms.INT, dest=1 - mpi.rank, tag=0)\n"
        "    yield mpi.recv(count=4, datatype=ms.INT, source=1 - mpi.rank, tag=0)\n"
        "print(ms.run(forgets, ranks=2).report())",
        "def raises(mpi):\n"
        "    yield mpi.barrier()\n"
        "    1 / 0\n"
        "print(ms.run(raises, ranks=2).report())",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name=kernel_name, timeout=CELL_TIMEOUT,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    deadlock, forgotten, raised = (_text(c) for c in nb.cells[1:])
    assert "DEADLOCK" in deadlock and "at cell 2, line 3 (exchange)" in deadlock
    assert "NotYielded" in forgotten and "MPI_Send at cell 3, line 2 (forgets)" in forgotten
    assert "ZeroDivisionError" in raised and "at cell 4, line 3 (raises)" in raised
    assert 'File "cell 4", line 3, in raises' in raised
    for text in (deadlock, forgotten, raised):
        assert not re.search(r"\d+\.py:\d", text), text
