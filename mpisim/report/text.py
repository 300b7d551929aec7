"""Text blocks the reports share (the run's report, min-buffer's, check's, the HTML view).

Pure formatting of data a run produced: it imports no model type."""

from __future__ import annotations

from typing import Any

from ..values.units import format_size

__all__ = ["settings_text"]


def settings_text(settings: dict[str, dict[str, Any]]) -> str:
    """``profile mpich (MPICH 4.0) (--set), allocator first-fit (profile), ...`` in one
    line: a profile's short name with the release it stands for."""
    parts = []
    for key, entry in settings.items():
        name = key.split(".", 1)[1].replace("_", " ")
        value = entry["value"]
        if key in ("network.eager_limit", "mpi.bsend_overhead") and isinstance(value, int):
            value = format_size(value).split(" (")[0]
        elif value is None:
            value = "none"
        if entry.get("release"):
            value = f"{value} ({entry['release']})"
        parts.append(f"{name} {value} ({entry['from']})")
    return ", ".join(parts)
