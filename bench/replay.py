"""The replay's speed: reading a recording, replaying it, ``mpisim replay`` end to end, memory.

A 2-rank ping-pong recording (``--round-trips`` round trips, rank 0 sends then receives, 8 B
messages, seeded random times outside MPI and inside each call) is written in the line
format of ``mpisim record`` (``mpisim/recorded/trace.py``) and measured, each figure beside
its baseline measured in the same run:

- **read**: ``read_trace`` of the recording, in calls a second (wall time, best of
  ``--repeat``; and CPU time, which a shared machine's other load does not inflate);
- **replay**: ``ms.replay`` of it in this process (trace on, the recording's library's
  profile), beside the *native generator program* of the same pattern under the same
  profile (``yield mpi.compute(gap)`` with the recorded gap, then ``mpi.send``/``mpi.recv``,
  call by call): the ratio is the replay's cost over a program written by hand. Also with
  ``compute_scale=0`` beside the native program without its computes. The replay is timed
  with the recording already read (``replay+read`` adds the read);
- **end to end**: ``mpisim replay REC -q`` as a command (a new interpreter: its imports,
  reading, replay, report, verdict), beside the in-process read and replay;
- **memory**: the peak resident size of a process that replays a recording of
  ``--memory-calls`` calls (trace off and on; a process each), less its size before
  reading it, beside the recording's size on disk.

Targets (issue 29): reading >= 10^6 calls/s; replay <= 1.5x the native program; end to end
<= 2x in-process; memory <= 2x the recording's size.

    python -m bench.replay                        # 100,000 round trips, memory at 10^7 calls
    python -m bench.replay --round-trips 20000 --memory-calls 1000000 --repeat 2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROFILE = "mpich-5.0"
LIBRARY = ("MPICH Version:      5.0.2 MPICH Release date: Fri Sep 25 20:45:26 UTC 2026 "
           "MPICH Device:       ch4:ofi")
HEADER = ("#mpisim-trace 1\n#rank {rank} 2\n#pid {pid}\n#mpi 5.0\n#bsend-overhead 96\n"
          "#any-source -2\n#proc-null -1\n#exe ./pingpong\n#library " + LIBRARY + "\n"
          "Init g=0 thread=0\n= 0 d=0\n@ 1 ./pingpong 0x1300\n@ 2 ./pingpong 0x1340\n"
          "T 1 size=1 extent=1 lb=0 kind=named name=MPI_BYTE\n")
SEND = "Send g={} @=1 dest={} tag=0 comm=0 n=8 T=1\n= 0 d={}\n"
RECV = "Recv g={} @=2 src={} tag=0 comm=0 n=8 T=1\n= 0 d={} st={}:0:8\n"
TAIL = "@ 3 ./pingpong 0x1400\nFinalize g=1500 @=3\n= 0 d=21000\n# exit\n"
CHUNK = 50_000


def write_pingpong(path: Path, round_trips: int, seed: int = 1) -> dict[int, list[float]]:
    """Write the recording; return each rank's gaps (s) before its sends and receives, in
    call order (what the native program computes)."""
    rng = random.Random(seed)
    gaps: dict[int, list[float]] = {0: [], 1: []}
    with open(path, "w") as f:
        for rank in (0, 1):
            peer = 1 - rank
            f.write(HEADER.format(rank=rank, pid=100 + rank))
            send = SEND.replace("dest={}", f"dest={peer}")
            recv = RECV.replace("src={}", f"src={peer}").replace("st={}", f"st={peer}")
            order = (send, recv) if rank == 0 else (recv, send)
            for start in range(0, round_trips, CHUNK):
                lines = []
                for _ in range(min(CHUNK, round_trips - start)):
                    for template in order:
                        g = rng.randint(80, 400)
                        gaps[rank].append(g * 1e-9)
                        lines.append(template.format(g, rng.randint(300, 2000)))
                f.write("".join(lines))
            f.write(TAIL)
    return gaps


def native(mpi, gaps, compute=True):
    """The ping-pong written by hand: the same calls, the recorded gaps computed first."""
    import mpisim as ms

    peer, mine, sends_first = 1 - mpi.rank, gaps[mpi.rank], mpi.rank == 0
    for i in range(0, len(mine), 2):
        for gap, sending in ((mine[i], sends_first), (mine[i + 1], not sends_first)):
            if compute:
                yield mpi.compute(gap)
            if sending:
                yield mpi.send(count=8, datatype=ms.BYTE, dest=peer, tag=0)
            else:
                yield mpi.recv(count=8, datatype=ms.BYTE, source=peer, tag=0)
    if compute:
        yield mpi.compute(1500e-9)  # before MPI_Finalize, as recorded


def _timed(fn, repeat: int) -> tuple[float, float, object]:
    """(best wall time, best CPU time, the last value) of ``repeat`` runs."""
    wall = cpu = float("inf")
    value = None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        value = fn()
        cpu = min(cpu, time.process_time() - c)
        wall = min(wall, time.perf_counter() - w)
    return wall, cpu, value


def measure_speed(path: Path, gaps: dict[int, list[float]], repeat: int) -> dict:
    import mpisim as ms
    from mpisim.recorded import read_trace
    from mpisim.recorded.replayer.program import _TRACES

    calls = sum(len(r.calls) for r in read_trace(path).ranks)
    out: dict = {"calls": calls, "bytes": path.stat().st_size}
    wall, cpu, _ = _timed(lambda: read_trace(path), repeat)
    out["read"] = {"seconds": wall, "cpu": cpu, "rate": calls / wall, "cpu_rate": calls / cpu}

    def run_native(compute: bool):
        result = ms.run(native, ranks=2, mpi={"profile": PROFILE},
                        params={"gaps": gaps, "compute": compute})
        assert result.outcome is ms.Outcome.COMPLETED, result.report()
        return result

    def run_replay(scale: float):
        result = ms.replay(path, compute_scale=scale)
        assert result.outcome is ms.Outcome.COMPLETED, result.report()
        return result

    def read_and_replay():
        _TRACES.clear()
        return run_replay(1.0)

    run_replay(1.0)  # the recording read once (then cached, as mpisim replay reads it once)
    for label, replay_fn, native_fn in (
            ("replay", lambda: run_replay(1.0), lambda: run_native(True)),
            ("replay_no_compute", lambda: run_replay(0.0), lambda: run_native(False))):
        r_wall, r_cpu, replayed = _timed(replay_fn, repeat)
        n_wall, n_cpu, written = _timed(native_fn, repeat)
        same = abs(replayed.sim_time - written.sim_time) <= 1e-9 * max(1.0, written.sim_time)
        out[label] = {"seconds": r_wall, "cpu": r_cpu, "native_seconds": n_wall,
                      "native_cpu": n_cpu, "ratio": r_wall / n_wall, "cpu_ratio": r_cpu / n_cpu,
                      "same_sim_time": same, "rate": calls / r_wall}
    wall, cpu, _ = _timed(read_and_replay, repeat)
    out["read_replay"] = {"seconds": wall, "cpu": cpu}
    out["cli"] = _cli(path, repeat, wall, cpu)
    return out


def _cli(path: Path, repeat: int, wall: float, cpu: float) -> dict:
    """``mpisim replay REC -q`` as a user runs it: a new interpreter, with the bytecode of
    its modules cached (as after any first run; here in a cache of the benchmark's own, so
    an environment that writes none, PYTHONDONTWRITEBYTECODE, is not measured instead)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(path.parent / "pycache")
    command = [sys.executable, "-m", "mpisim", "replay", str(path), "-q"]

    def once() -> subprocess.CompletedProcess:
        done = subprocess.run(command, capture_output=True, text=True, cwd=HERE.parent,
                              env=env)
        assert done.returncode == 0, done.stderr
        return done
    once()  # the bytecode written
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        once()
        best_wall = min(best_wall, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best_cpu = min(best_cpu, after.ru_utime + after.ru_stime - before.ru_utime -
                       before.ru_stime)
    return {"seconds": best_wall, "cpu": best_cpu, "in_process": wall, "in_process_cpu": cpu,
            "ratio": best_wall / wall, "cpu_ratio": best_cpu / cpu}


def _peak() -> int:
    """This process's peak resident size (bytes): Linux's VmHWM, which starts anew at exec
    (``ru_maxrss`` keeps the parent's peak across it), else ``ru_maxrss``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _memory_child(path: str, trace: bool) -> None:
    """In a child: the peak resident growth of reading and replaying ``path``."""
    import mpisim as ms

    before = _peak()
    result = ms.replay(path, trace=trace)
    assert result.outcome is ms.Outcome.COMPLETED
    print(json.dumps({"peak_growth": _peak() - before, "before": before}))


def measure_memory(calls: int, tmp: Path) -> dict:
    path = tmp / "memory.trace"
    write_pingpong(path, max(1, (calls - 4) // 4))
    size = path.stat().st_size
    out: dict = {"calls": calls, "bytes": size}
    for trace in (False, True):
        spec = json.dumps([str(path), trace])
        done = subprocess.run([sys.executable, "-m", "bench.replay", "--memory-child", spec],
                              capture_output=True, text=True, cwd=HERE.parent)
        if done.returncode != 0:
            raise SystemExit(f"memory child failed:\n{done.stderr}")
        row = json.loads(done.stdout.splitlines()[-1])
        out["trace" if trace else "no_trace"] = {**row, "ratio": row["peak_growth"] / size}
    path.unlink()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.replay", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--round-trips", type=int, default=100_000)
    p.add_argument("--memory-calls", type=int, default=10_000_000,
                   help="calls of the recording replayed for the memory figure (0: skip)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    p.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.memory_child:
        _memory_child(*json.loads(args.memory_child))
        return 0
    with tempfile.TemporaryDirectory(prefix="mpisim-bench-") as tmp:
        path = Path(tmp) / "pingpong.trace"
        gaps = write_pingpong(path, args.round_trips)
        speed = measure_speed(path, gaps, args.repeat)
        memory = measure_memory(args.memory_calls, Path(tmp)) if args.memory_calls else None
    _print(speed, memory, args.repeat)
    if args.json:
        args.json.write_text(json.dumps({"speed": speed, "memory": memory}, indent=1) + "\n")
    return 0


def _print(s: dict, memory: dict | None, repeat: int) -> None:
    mb = s["bytes"] / 1e6
    print(f"2-rank ping-pong recording: {s['calls']:,} calls, {mb:.1f} MB (best of {repeat})")
    r = s["read"]
    print(f"  read          {r['rate']:>12,.0f} calls/s wall ({r['seconds']:.3f} s); "
          f"{r['cpu_rate']:,.0f} calls/s of CPU time   target >= 1,000,000")
    for label, name in (("replay", "replay"), ("replay_no_compute", "replay, scale 0")):
        x = s[label]
        print(f"  {name:15s} {x['seconds']:.3f} s vs native {x['native_seconds']:.3f} s: "
              f"{x['ratio']:.2f}x wall, {x['cpu_ratio']:.2f}x CPU "
              f"(same simulated time: {x['same_sim_time']})   target <= 1.5x")
    c = s["cli"]
    print(f"  mpisim replay {c['seconds']:.3f} s vs read+replay in process {c['in_process']:.3f} "
          f"s: {c['ratio']:.2f}x wall, {c['cpu_ratio']:.2f}x CPU   target <= 2x")
    if memory:
        size = memory["bytes"] / 1e6
        for key, name in (("no_trace", "trace off"), ("trace", "trace on")):
            m = memory[key]
            print(f"  memory ({name}) {m['peak_growth'] / 1e6:,.0f} MB peak growth replaying "
                  f"{memory['calls']:,} calls ({size:,.0f} MB on disk): {m['ratio']:.2f}x   "
                  "target <= 2x")


if __name__ == "__main__":
    raise SystemExit(main())
