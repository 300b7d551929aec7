"""Principle 3, deterministic: the same scenario, program, script or recording run twice,
in two processes with different hash seeds, gives byte-identical result JSON and trace
arrays (for every way in: a YAML scenario, a Python scenario, a rank program given to
``mpisim.run``, an mpi4py script, a recorded run), with jitter on (seeded)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from dataclasses import fields

import pytest
from helpers.paths import ROOT, SCENARIOS

import mpisim as ms
from mpisim.engine.trace import Trace

RUNNER = """\
import hashlib, sys
from dataclasses import fields
import mpisim as ms
from mpisim.engine.trace import Trace
kind, target = sys.argv[1], sys.argv[2]
net = {"jitter": 0.2}
if kind == "scenario":
    from mpisim.scenario import load
    result = load(target).with_overrides({"network.jitter": "0.2", "seed": "7"}).run()
elif kind == "script":
    result = ms.run_mpi4py(target, ranks=4, network=net, seed=7)
elif kind == "recording":
    from mpisim.recorded import replay
    result = replay(target)
else:
    sys.path.insert(0, target)
    from helpers.programs import exchange
    result = ms.run(exchange, ranks=2, params={"count": 5000}, network=net, seed=7)
digest = hashlib.sha256(result.to_json().encode())
for f in fields(Trace):
    digest.update(getattr(result.trace, f.name).tobytes())
print(result.outcome.value, digest.hexdigest())
"""

WAYS = [
    ("scenario", SCENARIOS / "ring-bsend.yaml"),
    ("scenario", SCENARIOS / "example-3.10-python.py"),
    ("scenario", SCENARIOS / "circular-head-of-line.yaml"),
    ("program", ROOT / "tests"),
    ("script", SCENARIOS / "mpi4py" / "fan_in.py"),
    ("recording", ROOT / "tests" / "data" / "replay" / "bsend-ring.trace"),
]


def _digest(kind: str, target, seed: str) -> str:
    p = subprocess.run([sys.executable, "-c", RUNNER, kind, str(target)], capture_output=True,
                       text=True, timeout=120, env={**_env(), "PYTHONHASHSEED": seed})
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout.strip().splitlines()[-1]


def _env() -> dict[str, str]:
    import os
    return {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "target"), WAYS, ids=[f"{k}-{t.name}" for k, t in WAYS])
def test_two_runs_under_two_hash_seeds_are_byte_identical(kind, target):
    first = _digest(kind, target, "1")
    assert first == _digest(kind, target, "2")
    assert first.split()[0] in {o.value for o in ms.Outcome}


def test_two_runs_in_one_process_are_byte_identical():
    """The fast tier's guard: the same run twice in this process (jitter seeded)."""
    def digest():
        from helpers.programs import exchange
        r = ms.run(exchange, ranks=2, params={"count": 5000}, network={"jitter": 0.2}, seed=3)
        h = hashlib.sha256(r.to_json().encode())
        for f in fields(Trace):
            h.update(getattr(r.trace, f.name).tobytes())
        return h.hexdigest()
    assert digest() == digest()
