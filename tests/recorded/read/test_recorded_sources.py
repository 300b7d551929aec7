"""Call sites of a recording named by source line (mpisim.recorded.read.sources): a small C
program logs a call site exactly as the recorder does (its caller's return address, dladdr's
object and base), compiled as a position-independent and as a classic executable, with and
without debug information. No MPI needed; skipped without a C compiler or addr2line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import mpisim as ms
from mpisim.recorded import read_trace
from mpisim.recorded.read import sources as sources_module

SOURCE = r"""#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) void MPI_Recv_stand_in(void) {
    void *addr = __builtin_return_address(0);
    Dl_info info;
    if (dladdr(addr, &info) && info.dli_fname)
        printf("@ 1 %s 0x%lx\n", info.dli_fname,
               (unsigned long)((uintptr_t)addr - (uintptr_t)info.dli_fbase));
}

int main(void) {
    MPI_Recv_stand_in();  /* the call site */
    return 0;
}
"""
LINE = next(i for i, text in enumerate(SOURCE.splitlines(), 1) if "the call site" in text)


def _tools() -> str:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or shutil.which("addr2line") is None:
        pytest.skip("needs a C compiler and binutils' addr2line")
    return cc


def recording(tmp_path: Path, *flags: str) -> Path:
    """Build and run the program as ``./site`` (dladdr then names it relatively, as it names
    an MPI program started as ./app), and write a one-rank recording whose MPI_Recv, made at
    that site, never returned."""
    cc = _tools()
    (tmp_path / "site.c").write_text(SOURCE)
    subprocess.run([cc, *flags, "-O0", "site.c", "-o", "site", "-ldl"], cwd=tmp_path,
                   check=True, capture_output=True)
    site_line = subprocess.run(["./site"], cwd=tmp_path, check=True, capture_output=True,
                               text=True).stdout.strip()
    assert site_line.startswith("@ 1 ./site 0x")
    trace = tmp_path / "run.trace"
    trace.write_text("\n".join([
        "#mpisim-trace 1", "#rank 0 1", f"#exe {tmp_path / 'site'}", "#bsend-overhead 96",
        "Init g=0 thread=0", "= 0 d=0", site_line,
        "T 1 size=4 extent=4 lb=0 kind=named name=MPI_INT",
        "Recv g=1000 @=1 src=0 tag=7 comm=0 n=1 T=1", "# signal 15"]) + "\n")
    return trace


@pytest.mark.parametrize("flags", [("-g",), ("-g", "-no-pie")], ids=["pie", "no-pie"])
def test_a_call_site_is_named_by_its_source_line(tmp_path, flags):
    trace = read_trace(recording(tmp_path, *flags))
    recv = trace.ranks[0].calls[-1]
    assert recv.site is not None and recv.site.source == f"site.c:{LINE}"
    assert recv.where() == f"call 2, site.c:{LINE} in main"


def test_the_replays_report_names_the_blocked_calls_source_line(tmp_path):
    result = ms.replay(recording(tmp_path, "-g"))
    assert result.outcome is ms.Outcome.DEADLOCK
    assert f"call 2, site.c:{LINE} in main" in result.report()


def test_without_debug_information_the_site_stays_object_and_offset(tmp_path):
    recv = read_trace(recording(tmp_path)).ranks[0].calls[-1]
    assert recv.site is not None and recv.site.source is None
    assert recv.where() == f"call 2, site+{recv.site.offset:#x}"


def test_without_addr2line_or_the_object_the_site_stays_as_logged(tmp_path, monkeypatch):
    path = recording(tmp_path, "-g")
    monkeypatch.setattr(sources_module.shutil, "which", lambda _name: None)
    assert read_trace(path).ranks[0].calls[-1].site.source is None
    monkeypatch.undo()
    (tmp_path / "site").unlink()
    assert read_trace(path).ranks[0].calls[-1].site.source is None
    (tmp_path / "site").write_text("not an ELF file")
    assert read_trace(path).ranks[0].calls[-1].site.source is None
    assert read_trace(path, sources=False).ranks[0].calls[-1].site.source is None
