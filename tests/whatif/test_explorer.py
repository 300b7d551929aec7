"""ms.explore: widgets for a scenario's params and settings; each change re-runs it.

The widgets are driven programmatically (setting a control's value fires its observers as
a browser would), so each test is a user moving a control and reading what is shown.
"""

from __future__ import annotations

import builtins

import pytest
from helpers.paths import SCENARIOS

import mpisim as ms
from mpisim.whatif.explorer import UNSET, Explorer

pytest.importorskip("ipywidgets")


def test_eager_limit_control_reruns_example_3_10():
    """3.5, Example 3.10: 8000-byte standard sends deadlock above a 4 KiB eager limit and
    complete once the limit holds the message; the report follows the slider."""
    ex = ms.explore(SCENARIOS / "example-3.10-send.yaml")
    assert isinstance(ex, Explorer) and ex.runs == 1
    assert ex.result.outcome is ms.Outcome.DEADLOCK and "DEADLOCK" in ex.report.value
    assert {"count", "network.eager_limit", "buffer", "mpi.allocator", "mpi.profile",
            "ranks"} <= set(ex.controls)
    ex.controls["network.eager_limit"].value = 8192
    assert ex.runs == 2 and ex.result.outcome is ms.Outcome.COMPLETED
    assert "COMPLETED" in ex.report.value and "DEADLOCK" not in ex.report.value
    assert ex.point() == {"network.eager_limit": 8192}
    assert ex.result.settings["network.eager_limit"]["value"] == 8192
    ex.controls["count"].value = 4000  # 16000 B: above 8 KiB again
    assert ex.result.outcome is ms.Outcome.DEADLOCK and ex.result.params["count"] == 4000
    assert "network.eager_limit=8 KiB" in ex.status.value and "simulation" in ex.status.value


def test_buffer_control_attaches_for_every_rank():
    """3.6: a bsend needs an attached buffer; 'none' overflows, a large enough one completes."""

    def bsend_exchange(mpi, count=100):
        yield mpi.bsend(count=count, datatype=ms.INT, dest=1 - mpi.rank)
        yield mpi.recv(count=count, datatype=ms.INT, source=1 - mpi.rank)

    ex = ms.explore(bsend_exchange, ranks=2)
    assert ex.controls["buffer"].value == UNSET
    assert ex.result.error.error_class == "MPI_ERR_BUFFER"
    ex.controls["buffer"].value = 1024
    assert ex.result.outcome is ms.Outcome.COMPLETED
    assert [r.buffer.size for r in ex.result.ranks] == [1024, 1024]
    assert [r.buffer.peak_used for r in ex.result.ranks] == [400 + 96] * 2
    ex.controls["count"].value = 400  # 1600 B: overflows again
    assert ex.result.error.error_class == "MPI_ERR_BUFFER"


def test_choosing_a_profile_brings_its_allocator_unless_one_was_chosen():
    ex = ms.explore(SCENARIOS / "circular-head-of-line.yaml")
    assert ex.result.settings["mpi.allocator"]["value"] == "circular"
    runs = ex.runs
    ex.controls["mpi.profile"].value = "mpich"
    assert ex.runs == runs + 1  # one run for the profile and its allocator
    assert ex.controls["mpi.allocator"].value == UNSET
    assert ex.result.settings["mpi.allocator"]["value"] == "first-fit"
    assert ex.result.outcome is ms.Outcome.COMPLETED
    ex.controls["mpi.allocator"].value = "circular"
    ex.controls["mpi.profile"].value = "openmpi"
    assert ex.result.settings["mpi.allocator"]["value"] == "circular"


def test_figures_are_drawn_for_the_tab_in_view():
    ex = ms.explore(SCENARIOS / "pipeline-bsend-overflow.yaml")
    assert png(ex.occupancy) == b"" and png(ex.timeline) == b""  # the report is in view
    ex.tabs.selected_index = 1
    first = png(ex.occupancy)
    assert first.startswith(b"\x89PNG") and ex.timings["draw"] > 0
    ex.controls["item"].value = 32768  # half the items' size: the overflow comes later
    assert png(ex.occupancy).startswith(b"\x89PNG") and png(ex.occupancy) != first
    assert png(ex.timeline) == b""  # not in view: drawn when its tab is chosen
    ex.tabs.selected_index = 2
    assert png(ex.timeline).startswith(b"\x89PNG")


def png(image) -> bytes:
    return bytes(image.value)


def test_a_run_that_cannot_start_is_reported_and_the_controls_stay():
    ex = ms.explore(SCENARIOS / "example-3.11-attach-detach.yaml")
    ex.controls["ranks"].value = 1  # its second program is for rank 1
    assert ex.result is None and "programs[1].ranks: rank 1 is not in 0..0" in ex.error
    assert "could not run" in ex.report.value and ex.runs == 2
    ex.controls["ranks"].value = 2
    assert ex.result is not None and ex.result.outcome is ms.Outcome.COMPLETED


def test_without_ipywidgets_a_message_and_one_result(monkeypatch, capsys):
    real_import = builtins.__import__

    def no_widgets(name, *args, **kwargs):
        if name == "ipywidgets":
            raise ImportError("No module named 'ipywidgets'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_widgets)
    result = ms.explore(SCENARIOS / "example-3.10-bsend.yaml")
    assert "pip install 'mpisim[notebook]'" in capsys.readouterr().out
    assert isinstance(result, ms.Result) and result.outcome is ms.Outcome.COMPLETED
