"""Control ops: ``loop``, ``if`` and ``compute``: grammar, reader, runners.

- ``loop: {times: N, var: i, ops: [...]}`` (``var`` optional, counts 0..N-1, visible in its
  body only).
- ``if: {cond: EXPR, then: [...], else: [...]}`` (``else`` optional).
- ``compute: 5us`` (a time; long form ``{seconds: 5us}``, the handle's argument, ``time``
  still accepted): the rank computes without MPI for that long.

A name must be set by an op earlier in the file to be used (checked at load); one set only
on a branch not taken is a run-time error.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..yamlload import line_of
from .reader import ReaderBase
from .running import UNSET, RankState
from .step import Op

__all__ = ["RUNNERS", "ControlOps"]


class ControlOps(ReaderBase):
    """The readers of loops, branches and computation."""

    def _compute(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        if isinstance(value, dict) and "time" in value and "seconds" not in value:
            value = {"seconds" if k == "time" else k: v for k, v in value.items()}  # old name
        m = self._mapping(value, path, line, ("seconds",), ("seconds",), short="seconds")
        self._arg(op, m, "seconds", "time", path, line)

    def _loop(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("times", "var", "ops"), ("times", "ops"))
        self._arg(op, m, "times", "int", path, line)
        if "var" in m:
            op.var = self._name(m["var"], f"{path}.var", line_of(m, "var", line))
        if op.var:
            self.loop_vars.append(op.var)
        op.body = self.read_ops(m.get("ops"), f"{path}.ops", line_of(m, "ops", line))
        if op.var:
            self.loop_vars.pop()

    def _if(self, op: Op, value: Any, path: str, line: int, _: str) -> None:
        m = self._mapping(value, path, line, ("cond", "then", "else"), ("cond", "then"))
        self._arg(op, m, "cond", "any", path, line)
        op.body = self.read_ops(m.get("then"), f"{path}.then", line_of(m, "then", line))
        op.orelse = self.read_ops(m.get("else"), f"{path}.else", line_of(m, "else", line))


def _loop(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """Run the body ``times`` times, ``var`` counting (restored after the loop)."""
    times = st.arg(op, "times")
    if times < 0:
        raise st.error(op, f"loop.times: must not be negative, got {times}")
    var, scope = op.var, st.scope
    saved = scope.get(var, UNSET) if var else UNSET
    for i in range(times):
        st.spin(op)
        if var:
            scope[var] = i
        yield from st.run(op.body)
    if var:
        if saved is UNSET:
            scope.pop(var, None)
        else:
            scope[var] = saved


def _if(st: RankState, op: Op) -> Generator[Any, Any, None]:
    """Run the branch the condition picks."""
    st.spin(op)
    yield from st.run(op.body if st.arg(op, "cond") else op.orelse)


RUNNERS = {"loop": _loop, "if": _if}
"""How the control ops run (by call: they are not the handle's calls)."""
