"""Every setting is declared once and accepted identically by a scenario file, ``--set``,
``--vary`` and ``mpisim.run``, with the same reason for a bad value (mpisim.runs.settings)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import ROOT

import mpisim as ms
from mpisim.runs import settings
from mpisim.scenario import ScenarioError, load
from mpisim.scenario.yamlload import read_scalar
from mpisim.values.readers import SettingError
from mpisim.whatif.target import Target
from mpisim.whatif.values import parse_values

# A good and a bad value (as text, the way a file, --set and --vary are written) per kind.
SAMPLES: dict[str, tuple[str, str]] = {
    "time": ("5us", "fast"),
    "size": ("4 KiB", "lots"),
    "bandwidth": ("10 GB/s", "fast"),
    "count": ("3", "0"),
    "bool": ("true", "maybe"),
    "text": ("renamed", "5"),
    "buffer": ("4 KiB", "lots"),
    "algorithms": ("{allreduce: ring}", "{allreduce: nosuch}"),
}
SPECIAL = {"seed": ("3", "-1"), "mpi.alignment": ("8", "3")}

BASE = """\
ranks: 4
programs:
  - ranks: all
    ops:
      - barrier: {}
"""


def _leaf_settings() -> list[Any]:
    return [s for s in settings._flat() if not s.keys]


def _samples(setting: Any) -> tuple[str, str]:
    if setting.key in SPECIAL:
        return SPECIAL[setting.key]
    if setting.choices:
        return setting.choices[-1], "nosuch"
    return SAMPLES[setting.kind]


def _yaml(key: str, text: str) -> str:
    parts = key.split(".")
    lines = [f"{'  ' * i}{part}:" for i, part in enumerate(parts[:-1])]
    lines.append(f"{'  ' * (len(parts) - 1)}{parts[-1]}: {text}")
    body = BASE if key != "ranks" else BASE.replace("ranks: 4\n", "")
    return body + "\n".join(lines) + "\n"


def _fingerprint(kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """What the engine made of the keywords: every resolved setting."""
    sim = ms.Simulation(**kwargs, trace=False)
    net = tuple((k, getattr(sim.net, k)) for k in type(sim.net).__slots__
                if k not in ("port_free", "rng"))
    return (net, sim.config, sim.until, sim.max_events, sim.buffer, sim.size, sim.name,
            sim.handles[0]._named_sizes)


def _program(mpi: Any) -> Any:
    yield from mpi.barrier()


@pytest.mark.parametrize("setting", _leaf_settings(), ids=lambda s: s.key)
def test_every_setting_is_read_alike_by_a_file_set_vary_and_run(setting: Any,
                                                                 tmp_path: Path) -> None:
    key = setting.key
    good, bad = _samples(setting)
    base = tmp_path / "base.yaml"
    base.write_text(BASE)
    scenario = load(base)

    # a scenario file
    (tmp_path / "file.yaml").write_text(_yaml(key, good))
    from_file = load(tmp_path / "file.yaml").run_kwargs()
    # --set
    from_set = scenario.with_overrides({key: good}).run_kwargs()
    # --vary (the values as the CLI reads them, then the sweep's own keywords)
    target = Target.of(scenario, {})
    values = parse_values(good)
    target.validate({key: values})
    from_vary = target.run_kwargs({key: values[0]})
    # mpisim.run: the value as a Python program writes it
    python = {"program": _program, "ranks": 4}
    if "." in key:
        settings.put(python, key, read_scalar(good))
    else:
        python[key] = read_scalar(good)

    if key != "ranks":
        from_file = {**from_file, "program": _program}
        from_set = {**from_set, "program": _program}
        from_vary = {**from_vary, "program": _program}
    else:
        python["program"] = [_program] * 3
    same = _fingerprint(python)
    for kwargs in (from_file, from_set, from_vary):
        kwargs.pop("params", None)
        if key != "name":
            kwargs.pop("name", None)
        if key == "ranks":
            kwargs["program"] = [_program] * kwargs["ranks"]
        assert _fingerprint(kwargs) == same, key

    # a bad value: the same reason everywhere
    python_bad = {"program": _program, "ranks": 4}
    if "." in key:
        settings.put(python_bad, key, read_scalar(bad))
    else:
        python_bad[key] = read_scalar(bad)
    with pytest.raises(SettingError) as info:
        ms.Simulation(**python_bad)
    expected = f"{key}: {info.value.reason}"
    (tmp_path / "bad.yaml").write_text(_yaml(key, bad))
    with pytest.raises(ScenarioError) as in_file:
        load(tmp_path / "bad.yaml")
    with pytest.raises(ScenarioError) as in_set:
        scenario.with_overrides({key: bad})
    with pytest.raises(ValueError) as in_vary:
        Target.of(scenario, {}).validate({key: parse_values(bad)})
    for error in (in_file, in_set, in_vary):
        first = str(error.value).splitlines()[0]
        assert first.endswith(expected), (key, first, expected)


def test_an_unknown_key_is_refused_alike_with_the_closest_one() -> None:
    with pytest.raises(SettingError, match=r"^network\.eager_cell: unknown key \(did you mean "
                                           r"'eager_cells'\?\)$"):
        ms.run(_program, ranks=2, network={"eager_cell": 4})
    scenario = load(ROOT / "scenarios" / "ring-bsend.yaml")
    with pytest.raises(ScenarioError, match="unknown key"):
        scenario.with_overrides({"network.eager_cell": 4})


def test_the_docs_and_mpisim_settings_show_the_declaration() -> None:
    page = (ROOT / "docs" / "reference" / "settings.md").read_text()
    block = page.split("<!-- settings: generated by `mpisim settings --markdown` -->\n")[1]
    assert block.split("<!-- /settings -->")[0] == settings.markdown_table()
    out = subprocess.run([sys.executable, "-m", "mpisim", "settings"], capture_output=True,
                         text=True, check=True).stdout
    for key in settings.every_key():
        assert f"\n{key}  [" in f"\n{out}", key


def test_one_setter_puts_dotted_keys_into_nested_mappings() -> None:
    root: dict[str, Any] = {"network": {"latency": 1}}
    settings.put(root, "network.intra.latency", 5)
    assert root == {"network": {"latency": 1, "intra": {"latency": 5}}}
    assert settings.get(root, "network.intra.latency") == 5
    assert settings.get(root, "mpi.profile") is None
