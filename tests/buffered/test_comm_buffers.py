"""MPI 4.1 §3.6 communicator and session buffers: which buffer a bsend uses, one at a
time, flush, BUFFER_AUTOMATIC, and libraries without them."""

from __future__ import annotations

import pytest
from helpers.paths import SCENARIOS

import mpisim as ms

N = 10_000                       # above no eager limit here: entries complete on the match
ENTRY = N + 96                   # the standard profile's entry
NET = {"latency": "1us", "bandwidth": "10 GB/s", "eager_limit": 0}  # every send rendezvous


def _late_receiver(mpi, tags, comm_of):
    yield mpi.compute("10us")
    for tag in tags:
        yield mpi.recv(count=N, source=0, tag=tag, comm=comm_of(tag))


def test_3_6_a_bsend_uses_its_communicators_buffer_else_the_process_buffer():
    """MPI 4.1 §3.6: a bsend on a communicator with a buffer uses it; one on the world
    (no buffer of its own) uses the process's. Each has room for one entry, so two
    bsends succeed only because they go to different buffers."""
    def prog(mpi):
        lib = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.buffer_attach(ENTRY)
            yield mpi.comm_attach_buffer(ENTRY, comm=lib)
            yield mpi.bsend(count=N, dest=1, tag=1, comm=lib)
            yield mpi.bsend(count=N, dest=1, tag=2)
            try:
                yield mpi.bsend(count=N, dest=1, tag=3, comm=lib)
            except ms.MPIError as e:
                return e.error_class
        else:
            yield from _late_receiver(mpi, (1, 2), lambda t: lib if t == 1 else None)
        return None

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    assert r.returned[0] == "MPI_ERR_BUFFER"
    summary = r.ranks[0]
    assert summary.buffer.bsends == 1 and summary.buffer.peak_live == ENTRY
    (name, comm_buffer), = summary.buffers.items()
    assert name.startswith("comm dup(") and comm_buffer.bsends == 1
    assert comm_buffer.overflows == 1
    assert "buffers" in r.to_dict()["ranks"][0]


def test_3_6_a_session_buffer_serves_the_sessions_communicators():
    """MPI 4.1: communicator's buffer, else its session's, else the process's."""
    def prog(mpi):
        session = yield mpi.session_init()
        comm = yield mpi.comm_create_from_group(session, "app")
        if mpi.rank == 0:
            yield mpi.session_attach_buffer(2 * ENTRY, session)
            yield mpi.bsend(count=N, dest=1, tag=1, comm=comm)     # session buffer
            yield mpi.bsend(count=N, dest=1, tag=2, comm=comm)     # session buffer
            try:
                yield mpi.bsend(count=N, dest=1, tag=3)            # process: none attached
            except ms.MPIError as e:
                got = e.error_class
            _address, size = yield mpi.session_detach_buffer(session)
            return got, size, mpi.now
        yield from _late_receiver(mpi, (1, 2), lambda t: comm)
        return None

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.COMPLETED, r.report()
    got, size, detached = r.returned[0]
    assert got == "MPI_ERR_BUFFER" and size == 2 * ENTRY
    assert detached > 10e-6                       # detach waited for the receiver


def test_3_6_one_buffer_per_communicator_at_a_time():
    def prog(mpi):
        yield mpi.comm_attach_buffer(1000)
        try:
            yield mpi.comm_attach_buffer(1000)
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=1).returned == ["MPI_ERR_BUFFER"]


def test_comm_flush_returns_once_that_buffers_messages_left():
    """MPI 4.1 MPI_Comm_flush_buffer: waits for the messages in that buffer only; the
    buffer stays attached."""
    def prog(mpi):
        lib = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.buffer_attach(ENTRY)
            yield mpi.comm_attach_buffer(ENTRY, comm=lib)
            yield mpi.bsend(count=N, dest=1, tag=1, comm=lib)   # received at 10 us
            yield mpi.bsend(count=N, dest=1, tag=2)             # received at 50 us
            req = yield mpi.comm_iflush_buffer(comm=lib)
            yield mpi.wait(req)
            t = mpi.now
            yield mpi.comm_flush_buffer(comm=lib)
            yield mpi.buffer_flush()
            return t, mpi.now
        yield mpi.compute("10us")
        yield mpi.recv(count=N, source=0, tag=1, comm=lib)
        yield mpi.compute("40us")
        yield mpi.recv(count=N, source=0, tag=2)
        return None

    r = ms.run(prog, ranks=2, network=NET)
    lib_flushed, all_flushed = r.returned[0]
    dup = 1e-6  # MPI_Comm_dup: one round of latency for two ranks
    assert lib_flushed == pytest.approx(dup + 10e-6 + 1e-6 + N / 10e9)  # CTS, bytes leave
    first_recv = 1e-6 + N / 10e9 + 1e-6  # CTS, transfer, latency: the receiver goes on
    assert all_flushed == pytest.approx(dup + 10e-6 + first_recv + 40e-6 + 1e-6 + N / 10e9)


def test_buffer_automatic_on_a_communicator_never_overflows():
    """MPI 4.1 MPI_BUFFER_AUTOMATIC: the library allocates as needed; detach returns it."""
    def prog(mpi):
        lib = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.comm_attach_buffer(ms.BUFFER_AUTOMATIC, comm=lib)
            for tag in range(20):
                yield mpi.bsend(count=N, dest=1, tag=tag, comm=lib)
            return (yield mpi.comm_detach_buffer(comm=lib))
        for tag in range(20):
            yield mpi.recv(count=N, source=0, tag=tag, comm=lib)
        return None

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned[0] == (ms.BUFFER_AUTOMATIC, 0)
    (summary,) = r.ranks[0].buffers.values()
    assert summary.peak_live == 20 * ENTRY


@pytest.mark.parametrize("call", [
    lambda mpi: mpi.comm_attach_buffer(1000),
    lambda mpi: mpi.comm_flush_buffer(),
    lambda mpi: mpi.buffer_flush(),
    lambda mpi: mpi.buffer_iflush(),
    lambda mpi: mpi.buffer_attach(ms.BUFFER_AUTOMATIC),
])
def test_openmpi_has_no_mpi_4_1_buffer_calls(call):
    """facts (MPI-4.1 additions): Open MPI 5.0.11 lacks MPI_Comm_attach_buffer and
    MPI_Buffer_flush (mpi4py raises NotImplementedError) and refuses MPI_BUFFER_AUTOMATIC
    with MPI_ERR_ARG; MPICH 5.0.2 has them all."""
    def prog(mpi):
        try:
            yield call(mpi)
        except ms.MPIError as e:
            return e.error_class, e.message

    ompi = ms.run(prog, ranks=1, mpi={"profile": "openmpi"}).returned[0]
    assert ompi[0] in ("MPI_ERR_OTHER", "MPI_ERR_ARG") and "openmpi" in ompi[1]
    assert ms.run(prog, ranks=1, mpi={"profile": "mpich"}).returned == [None]


def test_finalize_waits_for_a_communicator_buffer_and_a_blocked_detach_is_explained():
    def prog(mpi):
        lib = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.comm_attach_buffer(ENTRY, comm=lib)
            yield mpi.bsend(count=N, dest=1, tag=1, comm=lib)
            yield mpi.comm_detach_buffer(comm=lib)
        else:
            yield mpi.recv(count=N, source=0, tag=2, comm=lib)   # never sent

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.DEADLOCK
    b = {x.rank: x for x in r.deadlock.blocked}[0]
    assert b.call == "MPI_Comm_detach_buffer" and b.waits_for == [1]


def test_freeing_a_communicator_with_a_buffer_waits_for_its_messages():
    """MPI 4.1 leaves it open; as MPICH does, MPI_Comm_free detaches the buffer first,
    so it returns once the buffered message has left."""
    def prog(mpi):
        lib = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.comm_attach_buffer(ENTRY, comm=lib)
            yield mpi.bsend(count=N, dest=1, tag=1, comm=lib)
            yield mpi.comm_free(lib)
            return mpi.now
        yield mpi.compute("10us")
        yield mpi.recv(count=N, source=0, tag=1, comm=lib)
        return None

    r = ms.run(prog, ranks=2, network=NET)
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.returned[0] == pytest.approx(1e-6 + 10e-6 + 1e-6 + N / 10e9)


def test_communicator_buffers_have_their_own_trace_rows():
    def prog(mpi):
        lib = yield mpi.comm_dup()
        if mpi.rank == 0:
            yield mpi.comm_attach_buffer(ENTRY, comm=lib)
            yield mpi.bsend(count=N, dest=1, comm=lib)
        else:
            yield mpi.recv(count=N, source=0, comm=lib)

    r = ms.run(prog, ranks=2, network=NET)
    rows = r.trace.named_buffers
    assert len(r.trace.buffer) == 0
    assert list(rows["event"]) == ["attach", "bsend", "complete", "detach"]
    assert set(rows["name"]) == {"comm dup(MPI_COMM_WORLD)#1"}


@pytest.mark.parametrize("policy, outcome", [
    ("as_written", ms.Outcome.COMPLETED), ("process", ms.Outcome.ERROR),
    ("communicator", ms.Outcome.COMPLETED), ("automatic", ms.Outcome.COMPLETED)])
def test_buffer_policy_compares_one_process_buffer_with_communicator_buffers(policy, outcome):
    """mpi.buffer_policy: the shipped library scenario as written completes; with every
    bsend sharing the process buffer it overflows; with automatic buffers nothing does,
    and the peaks say what each way needs."""

    from mpisim.scenario import load
    path = SCENARIOS / "library-comm-buffer.yaml"
    r = load(path).with_overrides({"mpi.buffer_policy": policy}).run()
    assert r.outcome is outcome, r.report()
    if policy == "automatic":
        (lib,) = r.ranks[0].buffers.values()
        assert r.ranks[0].buffer.peak_live == 2 * (4096 + 96)  # automatic: pack + overhead
        assert lib.peak_live == 2 * (8192 + 96)
    if policy == "communicator":  # the world's bsends and the library's, apart
        assert sorted(r.ranks[0].buffers) == ["comm MPI_COMM_WORLD", "comm lib"]


def test_min_buffer_searches_a_communicator_buffer(tmp_path):
    """min-buffer --buffer comm:NAME: the size of the buffer the program attaches to that
    communicator, verified at the answer and the byte below (MPICH sizing: two 8192-byte
    entries of 88 + 8192 B)."""
    import json
    import subprocess
    import sys
    path = SCENARIOS / "library-comm-buffer.yaml"
    out = subprocess.run([sys.executable, "-m", "mpisim", "min-buffer", str(path), "--buffer",
                          "comm:lib", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["min_buffer"] == 2 * (88 + 8192)
    bad = subprocess.run([sys.executable, "-m", "mpisim", "min-buffer", str(path), "--buffer",
                          "comm:nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "neither attaches a buffer to that communicator" in bad.stderr


def test_occupancy_plot_and_chrome_trace_show_communicator_buffers(tmp_path):
    """The plots and the Chrome trace distinguish the buffers: a communicator buffer has
    its own curve and its own counters, named after it."""
    import json

    from mpisim.scenario import load
    path = SCENARIOS / "library-comm-buffer.yaml"
    r = load(path).run()
    fig = r.plot_occupancy()
    gids = {a.get_gid() for ax in fig.axes for a in ax.get_children()}
    assert "named:comm lib" in gids
    r.to_chrome_trace(tmp_path / "t.json")
    names = {ev["name"] for ev in json.loads((tmp_path / "t.json").read_text())["traceEvents"]}
    assert {"comm lib used", "comm lib live", "buffer used"} <= names


def test_the_run_buffer_may_name_a_communicator(tmp_path):
    """`buffer: {comm: NAME, size: SIZE}` attaches SIZE to the communicator the program
    names NAME (as: in a scenario, comm_set_name in Python) when it names it; min-buffer
    --buffer comm:NAME searches that size for a program that attaches none itself."""
    import subprocess
    import sys

    def prog(mpi):
        lib = yield mpi.comm_dup()
        mpi.comm_set_name(lib, "lib")
        yield mpi.bsend(count=1000, dest=1 - mpi.rank, comm=lib)
        yield mpi.recv(count=1000, source=1 - mpi.rank, comm=lib)

    r = ms.run(prog, ranks=2, buffer={"comm": "lib", "size": "2 KiB"})
    assert r.outcome is ms.Outcome.COMPLETED
    assert r.ranks[0].buffers["comm lib"].size == 2048
    short = ms.run(prog, ranks=2, buffer={"comm": "lib", "size": 1095})
    assert short.outcome is ms.Outcome.ERROR and short.error.error_class == "MPI_ERR_BUFFER"

    path = SCENARIOS / \
        "library-shared-buffer-overflow.yaml"
    text = path.read_text().replace("params: {", "buffer: {comm: lib, size: 16560}\nparams: {")
    (tmp_path / "s.yaml").write_text(text)
    out = subprocess.run([sys.executable, "-m", "mpisim", "run", str(tmp_path / "s.yaml"),
                          "-q"], capture_output=True, text=True)
    assert out.stdout.startswith("library-shared-buffer-overflow: completed"), out.stdout
    found = subprocess.run([sys.executable, "-m", "mpisim", "min-buffer", str(path),
                            "--buffer", "comm:lib", "--json"], capture_output=True, text=True)
    import json
    assert json.loads(found.stdout)["min_buffer"] == 2 * (88 + 8192)


def test_sweep_varies_a_communicator_buffer():
    """sweep --buffer comm:NAME: the varied `buffer` is that communicator's buffer size; the
    outcome turns at the size min-buffer finds (2 x (88 + 8192) under MPICH)."""
    path = SCENARIOS / \
        "library-shared-buffer-overflow.yaml"
    table = ms.sweep(path, {"buffer": [16559, 16560]}, jobs=1, buffer="comm:lib")
    assert list(table["outcome"]) == ["error", "completed"]
    with pytest.raises(ValueError, match="comm:NAME"):
        ms.sweep(path, {"buffer": [1]}, jobs=1, buffer="lib")


def test_the_layout_plot_shows_a_communicator_buffer():
    """plot_layout(rank, buffer="comm NAME"): that buffer's entries at a time, from the
    trace's named_entries (the layout plot distinguishes the buffers too)."""

    from mpisim.plot.layout import layout_at
    from mpisim.scenario import load
    path = SCENARIOS / "library-comm-buffer.yaml"
    r = load(path).run()
    lay = layout_at(r, 0, 10e-6, buffer="comm lib")
    assert len(lay.entries) == 2 and lay.capacity == 2 * (8192 + 96)
    assert len(layout_at(r, 0, 10e-6).entries) == 2  # the process buffer's own two
    fig = r.plot_layout(0, buffer="comm lib")
    assert "buffer of comm lib" in fig.axes[0].get_title() + fig.get_suptitle()
