"""Fuzzing profile files: any value (or none) for any field gives a profile, or a
ProfileFileError naming the file, the line and the field; never another exception."""

from __future__ import annotations

import re

from fuzz.render import yaml_text
from fuzz.strategies import FUZZ, VALUES
from hypothesis import given
from hypothesis import strategies as st

from mpisim.profiles.library import get_profile
from mpisim.profiles.profilefile import ProfileFileError

FIELDS = ["bsend_overhead", "allocator", "sizing", "alignment", "eager_limit", "attach_min",
          "detach_unattached_error", "bsend_direct_limit", "eager_cells", "eager_box",
          "local_send_limit", "rendezvous_needs_progress", "eager_release", "latency",
          "bandwidth", "rma_lock", "attach_twice_error_class", "unknown_field"]
TOP = ["mpisim_profile", "name", "description", "library", "based_on"]


def _file(top: dict[str, str], settings: dict[str, str]) -> str:
    lines = [f"{k}: {v}" for k, v in top.items()] + ["settings:"]
    lines += [f"  {k}: {v}" for k, v in settings.items()]
    return "\n".join(lines) + "\n"


BASE_TOP = {"mpisim_profile": "1", "name": "fuzzed", "based_on": "mpich-4.0"}
BASE_SETTINGS = {"eager_limit": "8192", "bsend_overhead": "{value: 96, evidence: {probe: x}}"}


@FUZZ
@given(field=st.sampled_from(FIELDS + TOP), value=VALUES, evidence=st.booleans(),
       drop=st.sets(st.sampled_from([*TOP, "eager_limit", "bsend_overhead"]), max_size=2))
def test_any_field_value_gives_a_profile_or_an_error_naming_the_field(
        tmp_path_factory, field, value, evidence, drop):
    top = {k: v for k, v in BASE_TOP.items() if k not in drop}
    settings = {k: v for k, v in BASE_SETTINGS.items() if k not in drop}
    text = yaml_text(value)
    if field in TOP:
        top[field] = text
    else:
        settings[field] = f"{{value: {text}, evidence: {{probe: fuzz}}}}" if evidence else text
    path = tmp_path_factory.mktemp("fuzz") / "p.yaml"
    path.write_text(_file(top, settings), encoding="utf-8")
    try:
        profile = get_profile(str(path))
    except ProfileFileError as e:
        message = str(e)
        assert message.startswith(f"{path}:") and "\n" not in message
        assert re.match(rf"{re.escape(str(path))}:\d+: ", message), message
        if field not in drop and "YAML" not in message:
            assert field in message or "settings" in message or "mpisim_profile" in message, \
                message
    else:
        assert profile.name


def test_a_missing_format_or_settings_is_named(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("name: x\n")
    try:
        get_profile(str(path))
    except ProfileFileError as e:
        assert str(e).startswith(f"{path}:") and ("mpisim_profile" in str(e)
                                                  or "settings" in str(e))
    else:
        raise AssertionError("loaded")
