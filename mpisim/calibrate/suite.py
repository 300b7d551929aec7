"""Running the probes against the user's MPI: what to try, in which order, until each
boundary is found. Its output, the *observations*, is plain JSON that :mod:`.fit` turns into
settings (so a calibration can be refitted, or tested, without an MPI).

Every launch is ``<mpiexec...> <python> probes.py '<spec>'`` under a timeout; whatever rank 0
printed before a timeout or a crash is kept. Boundaries (eager limit, local sends, direct
bsends, the smallest attach for k entries) are found by a k-ary search: each launch tries a
dozen points strictly inside the bracket (largest yes, smallest no), so a boundary 4 KiB
wide takes four launches, and a launch of MPICH with mpi4py costs a fraction of a second.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["CalibrationError", "LaunchError", "Launcher", "headline", "observe"]

PROBES = Path(__file__).with_name("probes.py")
SLEEP = 0.12        # seconds a receiver sleeps to tell a local call from a waiting one
POINTS = 12         # points tried per launch inside a bracket
FLOOD_SIZES = (8, 64, 256)
FLOOD_COUNT = 300
RELEASE_POLLS = 4   # MPI_Iprobe calls of the receiver in the release probe
PINGPONG_SIZES = (8, 1024, 16384, 65536, 262144, 1048576)


class CalibrationError(RuntimeError):
    """A probe could not run or its output makes no sense (one line, says which)."""


class LaunchError(CalibrationError):
    """mpiexec started nothing that printed: it exited with an error and no Python exception
    says why, so the launcher itself failed (a busy machine, a session directory or socket
    it could not set up), which another attempt often gets past. ``reason``: the exit
    status and the launcher's own words, in one line."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


RETRIES = 2
"""Further attempts of a launch that fails with a :class:`LaunchError`."""
RETRY_PAUSE = 1.0   # seconds between them
EXCEPTION = re.compile(r"[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b[^:]*:")


def headline(stderr: str) -> str:
    """Why a launch failed, in one line: the last Python exception a rank raised, else the
    first paragraph of what the launcher printed (Open MPI boxes its messages in dashes)."""
    lines = [line.strip() for line in stderr.splitlines()]
    raised = [line for line in lines if EXCEPTION.match(line)]
    if raised:
        return raised[-1]
    paragraph: list[str] = []
    for line in lines:
        if line and not set(line) <= set("-=*"):
            paragraph.append(line)
        elif paragraph:
            break
    return " ".join(paragraph)[:300] or "no output"


class Launcher:
    """Runs one probe spec under the user's mpiexec and Python; returns rank 0's records.

    A launch that prints nothing is retried (:data:`RETRIES`) when it is the launcher's own
    failure (:class:`LaunchError`); a probe that raised is reported at once."""

    def __init__(self, mpiexec: str, python: str, timeout: float = 60.0,
                 log: Callable[[str], None] | None = None) -> None:
        self.mpiexec = shlex.split(mpiexec)
        self.python = python
        self.timeout = timeout
        self.launches = 0
        self.log = log or (lambda _msg: None)

    def run(self, spec: dict[str, Any], timeout: float | None = None
            ) -> tuple[list[dict[str, Any]], bool]:
        """(records printed by rank 0, whether the run timed out)."""
        attempt = 1
        while True:
            try:
                return self._launch(spec, timeout)
            except LaunchError as e:
                if attempt > RETRIES:
                    raise LaunchError(f"{e} (launched {attempt} times)", e.reason) from None
                self.log(f"probe {spec['probe']}: mpiexec started nothing ({e.reason}); "
                         f"launching again")
                attempt += 1
                time.sleep(RETRY_PAUSE)

    def _launch(self, spec: dict[str, Any], timeout: float | None
                ) -> tuple[list[dict[str, Any]], bool]:
        cmd = [*self.mpiexec, self.python, str(PROBES), json.dumps(spec)]
        self.launches += 1
        try:
            out = subprocess.run(cmd, capture_output=True, text=True,
                                 timeout=timeout or self.timeout)
            stdout, timed_out, err = out.stdout, False, out.stderr
        except subprocess.TimeoutExpired as e:
            stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            timed_out, err = True, ""
        except OSError as e:
            raise CalibrationError(f"cannot run {shlex.join(cmd[:2])}: "
                                   f"{e.strerror or e}") from None
        records = []
        for line in stdout.splitlines():
            if line.startswith("{"):
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        if not records and not timed_out:
            reason = f"exit {out.returncode}: {headline(err)}"
            message = (f"probe {spec['probe']} printed nothing ({reason}); command: "
                       f"{shlex.join(cmd[:-1])} '<spec>'")
            if out.returncode == 0 or "Traceback (most recent call last)" in err:
                raise CalibrationError(message)
            raise LaunchError(message, reason)
        return records, timed_out


def _inside(lo: int, hi: int, points: int = POINTS) -> list[int]:
    """Up to ``points`` distinct sizes strictly between lo and hi, evenly spread."""
    if hi - lo <= 1:
        return []
    step = (hi - lo) / (points + 1)
    return sorted({lo + max(1, round(step * i)) for i in range(1, points + 1)} - {hi})


def _bracket(results: dict[int, bool]) -> tuple[int, int]:
    """(largest yes below the first no, smallest no)."""
    no = min((n for n, ok in results.items() if not ok), default=None)
    if no is None:
        raise CalibrationError(f"no boundary up to {max(results)} B")
    yes = max((n for n, ok in results.items() if ok and n < no), default=-1)
    return yes, no


def observe(launcher: Launcher, progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the whole suite; the observations :func:`mpisim.calibrate.fit.fit` reads."""
    t0 = time.perf_counter()
    steps = 12

    def say(i: int, text: str) -> None:
        progress(f"[{i}/{steps}] {text} ({time.perf_counter() - t0:.0f} s)")

    records, _ = launcher.run({"probe": "info"})
    if not records:  # the launch timed out before the probe printed anything
        raise CalibrationError(f"probe info printed nothing within {launcher.timeout:g} s "
                               f"(the MPI hangs?); command: {shlex.join(launcher.mpiexec)} "
                               f"{launcher.python} ...")
    info = records[0]
    if info.get("probe") != "info":
        raise CalibrationError(info.get("message", "the info probe failed"))
    if info["size"] != 2:
        raise CalibrationError(f"the probes need exactly 2 processes, mpiexec started "
                               f"{info['size']} (use --mpiexec \"mpiexec -n 2\")")
    obs: dict[str, Any] = {"library": info["library"], "bsend_overhead": info["bsend_overhead"],
                           "mpi_version": info["mpi_version"], "sleep": SLEEP}
    say(1, f"{info['library']}: MPI_BSEND_OVERHEAD {info['bsend_overhead']}")

    (errors,), _ = launcher.run({"probe": "errors"})
    obs["errors"] = errors
    say(2, "error classes and the smallest attach: " + ", ".join(
        f"{k} {v}" for k, v in errors.items() if k != "probe" and not k.endswith("attached")))

    obs["sleeping_send"] = _sleeping_sends(launcher)
    timed = {r["size"]: r["seconds"] for r in obs["sleeping_send"]}
    eager, _ = _bracket({n: s < 1.5 * SLEEP for n, s in timed.items()})
    local, _ = _bracket({n: s < 0.5 * SLEEP for n, s in timed.items()})
    say(3, f"eager limit {eager} B, sends to a sleeping receiver return at once up to "
           f"{local} B")

    sizes = [n for n in FLOOD_SIZES if n <= min(local, eager)]
    obs["flood"], _ = launcher.run({"probe": "flood", "sleep": 2 * SLEEP, "count": FLOOD_COUNT,
                                    "sizes": sizes}) if sizes else ([], False)
    from .fit import released_by_polls

    absorbed = {r["size"]: r["returned_at_once"] for r in obs["flood"]}
    if 0 < absorbed.get(8, FLOOD_COUNT) < FLOOD_COUNT:  # a limit: how is its room freed?
        (obs["release"],), _ = launcher.run({
            "probe": "release", "sleep": 2 * SLEEP, "gap": SLEEP / 4, "polls": RELEASE_POLLS,
            "count": absorbed[8] + RELEASE_POLLS + 8}, timeout=120)
    say(4, "sends a sleeping receiver absorbs: " + ", ".join(
        f"{r['returned_at_once']} of {r['size']} B" for r in obs["flood"])
        + (f"; its MPI_Iprobe calls let {released_by_polls(obs['release'])} more go"
           if "release" in obs else ""))

    obs["direct"] = _search(launcher, "direct", [1, 8, 64, 256, 1024, 4096, eager, eager + 1],
                            lambda r: r["result"] == "ok", eager + 1)
    direct = _bracket({r["size"]: r["result"] == "ok" for r in obs["direct"]} | {
        eager + 1 + 1: False})[0]
    say(5, f"bsends with no buffer attached accepted up to {direct} B" if direct > 0 else
        "bsends with no buffer attached are refused")

    big = (max(eager, direct) // 4096 + 2) * 4096
    obs["fit_entries"] = _entries(launcher, [big, big + 1, big + 15, big + 4095])
    say(6, f"bytes per pending entry searched for 1-3 entries of {big}..{big + 4095} B "
           f"({len(obs['fit_entries'])} attaches)")

    from .fit import fit_entry_rule, predicted_attach
    rule, _ = fit_entry_rule(obs["fit_entries"])
    four = predicted_attach(rule, 4, big)
    obs["holes"], _ = launcher.run({"probe": "holes", "size": big, "attach": four,
                                    "cases": [[[1, 2], 2 * big], [[0], big], [[3], big]]})
    say(7, "holes: " + ", ".join(f"receive {h['receive']} then {h['then']} B: {h['result']}"
                                 for h in obs["holes"]))

    (obs["ibsend"],), _ = launcher.run({"probe": "ibsend", "size": big, "sleep": 4 * SLEEP})
    recs, _ = launcher.run({"probe": "behind_rendezvous", "large": big, "small": 4,
                            "sleep": 4 * SLEEP})
    obs["behind_rendezvous"] = recs[0]
    (obs["posted_rendezvous"],), _ = launcher.run({"probe": "posted_rendezvous", "size": big,
                                                   "sleep": 4 * SLEEP})
    say(8, f"Ibsend complete at once: {obs['ibsend']['complete_at_once']}, detach waited "
           f"{obs['ibsend']['detach_seconds']} s; a small send behind a rendezvous one took "
           f"{recs[0]['seconds']} s; a rendezvous send to a receiver asleep after posting "
           f"took {obs['posted_rendezvous']['seconds']} s")

    recs, timed_out = launcher.run({"probe": "fallback", "size": big}, timeout=15)
    obs["fallback"] = {"size": big, "bsend": recs[0]["bsend"], "timed_out": timed_out,
                       "matched": any(r["stage"] == "matched" for r in recs)}
    say(9, f"after a failed bsend ({recs[0]['bsend']}), a send on the same communicator "
           + ("was matched" if obs["fallback"]["matched"] else "was never matched"))

    obs["pingpong"], _ = launcher.run({"probe": "pingpong", "sizes": list(PINGPONG_SIZES),
                                       "repeat": 20})
    say(10, "ping-pong: " + ", ".join(f"{r['size']} B {r['one_way'] * 1e6:.1f} us"
                                      for r in obs["pingpong"]))
    obs["rma_target"], _ = launcher.run({"probe": "rma_target", "sleep": 4 * SLEEP})
    say(11, "one-sided, target asleep: " + ", ".join(
        f"{r['flavor']}{' NOCHECK' if r.get('nocheck') else ''} lock {r.get('lock')} s unlock "
        f"{r.get('unlock')} s" for r in obs["rma_target"]))
    recs, _ = launcher.run({"probe": "spawn", "repeat": 3}, timeout=60)
    obs["spawn"] = recs[0] if recs else {"probe": "spawn", "seconds": None,
                                         "error": "timed out"}
    say(12, f"MPI_Comm_spawn of one Python process: {obs['spawn']['seconds']} s"
        if obs["spawn"]["seconds"] is not None else
        f"MPI_Comm_spawn failed: {obs['spawn']['error']}")
    obs["launches"] = launcher.launches
    obs["seconds"] = round(time.perf_counter() - t0, 1)
    return obs


def _sleeping_sends(launcher: Launcher) -> list[dict[str, Any]]:
    """Search both boundaries of a standard send to a sleeping receiver: where it stops
    returning at once, and where it starts waiting for the match."""
    first = [0, 64, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144,
             1 << 20]
    records, _ = launcher.run({"probe": "sleeping_send", "sleep": SLEEP, "sizes": first},
                              timeout=60)
    for _ in range(8):
        timed = {r["size"]: r["seconds"] for r in records}
        todo: set[int] = set()
        for limit in (1.5, 0.5):
            try:
                lo, hi = _bracket({n: s < limit * SLEEP for n, s in timed.items()})
            except CalibrationError:
                continue
            todo.update(_inside(lo, hi, POINTS // 2))
        if not todo:
            return records
        more, _ = launcher.run({"probe": "sleeping_send", "sleep": SLEEP,
                                "sizes": sorted(todo)}, timeout=60)
        records += more
    return records


def _search(launcher: Launcher, probe: str, first: list[int], good: Callable[[Any], bool],
            cap: int) -> list[dict[str, Any]]:
    """A k-ary search of a probe whose records have ``size`` and pass ``good``."""
    records, _ = launcher.run({"probe": probe, "sizes": sorted(set(first))})
    for _ in range(8):
        results = {r["size"]: good(r) for r in records} | {cap + 1: False}
        lo, hi = _bracket(results)
        todo = [n for n in _inside(lo, hi) if n <= cap]
        if not todo:
            break
        more, _ = launcher.run({"probe": probe, "sizes": todo})
        records += more
    return records


def _entries(launcher: Launcher, sizes: list[int]) -> list[dict[str, Any]]:
    """The smallest attach that takes k = 1, 2, 3 pending entries of each size."""
    brackets = {(k, m): (k * (m - 64) - 1, k * (m + 2048) + 4096)
                for m in sizes for k in (1, 2, 3)}
    trials: list[dict[str, Any]] = []
    first = [[lo, k, m] for (k, m), (lo, hi) in brackets.items()] + \
            [[hi, k, m] for (k, m), (lo, hi) in brackets.items()]
    batch = first
    for _ in range(10):
        more, _ = launcher.run({"probe": "fit_entries", "trials": batch}, timeout=120)
        trials += more
        batch = []
        for (k, m) in brackets:
            results = {t["attach"]: t["accepted"] >= k for t in trials
                       if (t["k"], t["size"]) == (k, m)}
            if not any(results.values()) or all(results.values()):
                raise CalibrationError(f"no attach size between {min(results)} and "
                                       f"{max(results)} B bounds {k} entries of {m} B")
            yes = min(n for n, ok in results.items() if ok)
            no = max(n for n, ok in results.items() if not ok and n < yes)
            batch += [[n, k, m] for n in _inside(no, yes)]
        if not batch:
            return trials
    raise CalibrationError("the search for the bytes per entry did not converge")
