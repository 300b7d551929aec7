"""Recordings generated from valid ones by truncation, byte flips, line shuffles and field
blow-ups (a count of 2^62, negative ids, unknown calls, binary junk, a header naming 10^7
processes): reading gives a TraceError naming the recording's file and line, or the replay
runs (with warnings, or ends in an MPI error of the call): never another exception, never a
hang (every replay here is bounded by ``max_events``)."""

from __future__ import annotations

import re

from helpers import paths
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpisim.recorded import TraceError, read_trace, replay_scenario
from mpisim.recorded.replayer.program import _TRACES

DATA = paths.DATA / "replay"
SOURCES = ["example-3.10-bsend.trace", "bsend-burst.trace", "slow-stopped.trace",
           "matched-probes.trace", "nested-persistent.trace"]
BLOWUPS = ["n=4611686018427387904", "n=-5", "T=-3", "comm=-7", "r=-1", "dest=99999",
           "tag=-42", "size=4611686018427387904", "g=-100", "g=99999999999999999999",
           "st=0:0:-8", "m=-9", "Ts=1,2,x", "ns=", "=", "NotACall g=0", "\x00\xff\xfe",
           "#rank 0 10000000"]
WHERE = re.compile(r"\.trace:\d+: |\.trace: ")


def _mutate(data: st.DataObject, text: bytes) -> bytes:
    lines = text.split(b"\n")
    kind = data.draw(st.sampled_from(["truncate", "flip", "shuffle", "blowup", "junk"]))
    if kind == "truncate":
        return text[:data.draw(st.integers(0, len(text)))]
    if kind == "flip":
        at = data.draw(st.integers(0, len(text) - 1))
        return text[:at] + bytes([text[at] ^ data.draw(st.integers(1, 255))]) + text[at + 1:]
    if kind == "shuffle":
        i = data.draw(st.integers(0, len(lines) - 1))
        j = data.draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    i = data.draw(st.integers(1, len(lines) - 1))
    if kind == "junk":
        lines.insert(i, data.draw(st.binary(min_size=1, max_size=40)))
        return b"\n".join(lines)
    blow = data.draw(st.sampled_from(BLOWUPS)).encode("latin-1")
    key = blow.split(b"=")[0] + b"="
    if key in lines[i] and key != b"=":
        lines[i] = re.sub(re.escape(key) + rb"\S*", blow, lines[i], count=1)
    else:
        lines[i] = lines[i] + b" " + blow if not blow.startswith((b"#", b"N")) else blow
    return b"\n".join(lines)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_damaged_recording_is_refused_plainly_or_replayed(tmp_path, data):
    name = data.draw(st.sampled_from(SOURCES))
    damaged = _mutate(data, (DATA / name).read_bytes())
    path = tmp_path / f"damaged-{name}"
    path.write_bytes(damaged)
    _TRACES.clear()
    try:
        read_trace(path, sources=False)
        scenario = replay_scenario(path)
    except (TraceError, ValueError) as e:
        text = str(e)
        assert (str(path) in text and "\n" not in text.strip()) or WHERE.search(text), text
        assert "Traceback" not in text
        return
    result = scenario.run(max_events=20_000)
    assert result.outcome.value in ("completed", "deadlock", "error", "timeout")
    if result.error is not None:  # an error of a call, not a crash of the replay
        assert result.error.error_class.startswith("MPI_ERR"), result.error
