"""Reading an op list: the op's one key, and the argument readers every family shares.

:class:`ReaderBase` walks a ``programs`` entry's ``ops``, names each op's location
(``programs[0].ops[2] (line 14)``), and hands the op to its family's reader: the method
``_<call>`` (``_sendop`` for every send mode, ``_collective`` for every collective that
carries data) of the op families mixed into :class:`mpisim.scenario.ops.OpReader`. The pieces
below read one argument each (a mapping's keys, a literal or an expression, a size, a
datatype, a request name, status variables) and report a problem with its key path and line
instead of raising, so that one load lists every mistake of a file.
"""

from __future__ import annotations

import re
from typing import Any

from ...mpi.datatypes import BASIC_TYPES
from ..expr import CONSTANTS, RESERVED, Expr, ExprError, constant, parse_expr
from ..values import Invalid, convert, describe, hint, is_unit_literal
from ..yamlload import Ambiguous, line_of
from .step import CALLS, COLLECTIVES, SELF, SENDS, WORLD, Op, RequestRef

__all__ = ["NON_NEGATIVE", "ReaderBase"]

_STATUS_FIELDS = ("source", "tag", "count")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REF = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")

NON_NEGATIVE = ("count", "messages", "bytes", "size")
"""Arguments whose literal values must not be negative (MPI_ERR_COUNT, MPI_ERR_ARG)."""


class ReaderBase:
    """Reads op lists, reporting problems to ``problems`` (a Problems) with key paths.

    ``params`` are the load-time params (expressions using only them, ``size`` and the
    constants are evaluated once at load, so their errors are reported before any run).
    """

    def __init__(self, problems: Any, params: dict[str, Any], size: int) -> None:
        self.problems = problems
        self.params = params
        self.known = {**CONSTANTS, **params, "size": size}
        self.base = {*self.known, "rank", "BSEND_OVERHEAD"}
        self.bound: set[str] = set()
        self.request_names: set[str] = set()
        self.comm_names: set[str] = {WORLD, SELF}
        self.loop_vars: list[str] = []
        self.win_names: set[str] = set()  # windows named by an earlier win_allocate/create
        self.file_names: set[str] = set()  # files named by an earlier file_open
        self.thread_names: set[str] = set()  # threads named by an earlier thread op

    def read_ops(self, value: Any, path: str, line: int) -> list[Op]:
        if value is None:
            return []
        if not isinstance(value, list):
            self._problem(line, path, f"expected a list of ops, got {describe(value)}")
            return []
        ops = []
        for k, item in enumerate(value):
            op = self.read_op(item, f"{path}[{k}]", line_of(value, k, line))
            if op is not None:
                ops.append(op)
        return ops

    def read_op(self, item: Any, path: str, line: int) -> Op | None:
        if not isinstance(item, dict) or len(item) != 1:
            got = f"{len(item)} keys ({', '.join(map(str, item))})" if isinstance(item, dict) \
                else describe(item)
            self._problem(line, path, "an op is a mapping with one key naming the call "
                          f"(e.g. bsend: {{dest: 1, count: 10}}), got {got}")
            return None
        call, value = next(iter(item.items()))
        line = line_of(item, call, line)
        if call not in CALLS:
            self._problem(line, path, f"unknown call {str(call)!r}{hint(str(call), CALLS)}")
            return None
        op = Op(call, f"{path} (line {line})")
        reader = getattr(self, "_" + ("sendop" if call in SENDS else
                                      "collective" if call in COLLECTIVES else call))
        reader(op, value, f"{path}.{call}", line, f"{path}.{call}")
        return op

    def _mapping(self, value: Any, path: str, line: int, allowed: tuple[str, ...],
                 required: tuple[str, ...], short: str | None = None) -> dict:
        if short is not None and not isinstance(value, dict):
            value = {short: value}
        elif value is None:
            value = {}
        elif not isinstance(value, dict):
            self._problem(line, path, f"expected a mapping of arguments ({', '.join(allowed)})"
                          f", got {describe(value)}" if allowed else
                          f"takes no arguments (write {{}}), got {describe(value)}")
            return {}
        for key in value:
            if key not in allowed:
                valid = f" (valid: {', '.join(allowed)})" if allowed else " (it takes none)"
                self._problem(line_of(value, key, line), f"{path}.{key}",
                              f"unknown argument{hint(str(key), allowed)}{valid}")
        for key in required:
            if key not in value:
                self._problem(line, path, f"missing {key}")
        return value

    def _arg(self, op: Op, m: dict, key: str, kind: str, path: str, line: int,
             default: Any = None) -> None:
        if key not in m:
            if default is not None:
                op.args[key] = (kind, constant(default))
            return
        expr = self.value(m[key], kind, f"{path}.{key}", line_of(m, key, line))
        if expr is None:
            return
        op.args[key] = (kind, expr)
        if key in NON_NEGATIVE and expr.tree[0] == "c" and isinstance(expr.tree[1], int) \
                and expr.tree[1] < 0:  # MPI_ERR_COUNT when it runs: refuse it now
            self._problem(line_of(m, key, line), f"{path}.{key}",
                          f"must not be negative, got {expr.tree[1]}")

    def _size(self, op: Op, m: dict, path: str, line: int) -> None:
        if "bytes" in m:
            for other in ("count", "datatype"):
                if other in m:
                    self._problem(line_of(m, other, line), f"{path}.{other}",
                                  "give count (+ datatype) or bytes, not both")
            self._arg(op, m, "bytes", "size", path, line)
            op.args["count"] = op.args.pop("bytes", ("size", constant(0)))
            op.datatype = constant("BYTE")
            return
        if "count" not in m:
            self._problem(line, path, "missing count (with datatype) or bytes")
        self._arg(op, m, "count", "int", path, line)
        op.datatype = self._datatype(m.get("datatype", "BYTE"), f"{path}.datatype",
                                     line_of(m, "datatype", line))

    def _datatype(self, value: Any, path: str, line: int) -> Expr | None:
        if isinstance(value, str) and value in BASIC_TYPES:
            return constant(value)
        if isinstance(value, str) and value in self.params:
            held = self.params[value]
            if not (isinstance(held, str) and held in BASIC_TYPES):
                self._problem(line, path, f"param {value!r} holds {describe(held)}, not a "
                              "basic datatype name")
            return parse_expr(value)
        shown = value.text if isinstance(value, Ambiguous) else value
        close = hint(shown, BASIC_TYPES) if isinstance(shown, str) else ""
        self._problem(line, path, f"unknown datatype {shown!r}{close} (a basic type such as "
                      "BYTE, INT, REAL, DOUBLE, or a param holding one)")
        return None

    def _comm(self, op: Op, m: dict, path: str, line: int) -> None:
        if "comm" not in m:
            return
        name = m["comm"]
        if not isinstance(name, str) or name not in self.comm_names:
            shown = name if isinstance(name, str) else describe(name)
            self._problem(line_of(m, "comm", line), f"{path}.comm",
                          f"unknown communicator {shown!r}{hint(str(shown), self.comm_names)} "
                          f"({WORLD}, {SELF}, or a name an earlier comm_dup / comm_split / "
                          "cart_create gives with as:)")
            return
        op.comm = None if name == WORLD else name

    def _new_comm(self, op: Op, m: dict, path: str, line: int) -> None:
        if "as" in m:
            name = self._name(m["as"], f"{path}.as", line_of(m, "as", line))
            if name in (WORLD, SELF):
                self._problem(line_of(m, "as", line), f"{path}.as",
                              f"{name!r} names a predefined communicator; choose another name")
            elif name:
                op.binds["as"] = name
            if isinstance(m["as"], str):  # known from here on, even if refused (one problem)
                self.comm_names.add(m["as"])

    def _store_request(self, op: Op, m: dict, path: str, line: int) -> None:
        if "request" in m:
            op.request = self._ref(m["request"], f"{path}.request",
                                   line_of(m, "request", line), star=False, store=True)

    def _ref(self, value: Any, path: str, line: int, star: bool,
             store: bool = False) -> RequestRef | None:
        match = _REF.match(value) if isinstance(value, str) else None
        if match is None:
            self._problem(line, path, f"expected a request name (r, r[i] or r[*]), got "
                          f"{describe(value)}")
            return None
        name, index = match.group(1), match.group(2)
        if store:
            self.request_names.add(name)
        elif name not in self.request_names:
            self._problem(line, path, f"undefined request {name!r}"
                          f"{hint(name, self.request_names)}: no earlier op stores a request "
                          "under this name")
        if index is not None and index.strip() == "*":
            if not star:
                self._problem(line, path, f"{value!r}: [*] is only for lists (waitall ...)")
                return None
            return RequestRef(name, None, True, value)
        expr = None if index is None else self.value(index, "int", path, line)
        return RequestRef(name, expr, False, value)

    def _status(self, op: Op, m: dict, path: str, line: int) -> None:
        if "status" not in m:
            return
        value, sline = m["status"], line_of(m, "status", line)
        if not isinstance(value, dict):
            self._problem(sline, f"{path}.status", "expected a mapping of status fields to "
                          f"variable names (e.g. {{source: s}}), got {describe(value)}")
            return
        for key, var in value.items():
            kline = line_of(value, key, sline)
            if key not in _STATUS_FIELDS:
                self._problem(kline, f"{path}.status.{key}", "unknown status field (valid: "
                              f"{', '.join(_STATUS_FIELDS)})")
                continue
            name = self._name(var, f"{path}.status.{key}", kline)
            if name:
                op.binds[f"status.{key}"] = name
                self.bound.add(name)

    def _bind(self, op: Op, m: dict, key: str, path: str, line: int) -> None:
        if key in m:
            name = self._name(m[key], f"{path}.{key}", line_of(m, key, line))
            if name:
                op.binds[key] = name
                self.bound.add(name)

    def _name(self, value: Any, path: str, line: int) -> str | None:
        if not isinstance(value, str) or not _IDENT.match(value):
            self._problem(line, path, f"expected a variable name, got {describe(value)}")
            return None
        if value in RESERVED or value in self.params:
            what = "a param" if value in self.params else "a reserved name"
            self._problem(line, path, f"{value!r} is {what}; choose another variable name")
            return None
        return value

    def value(self, value: Any, kind: str, path: str, line: int) -> Expr | None:
        """A literal or expression for an argument of ``kind`` (int, size, time, any)."""
        try:
            if isinstance(value, str):
                if kind != "any" and is_unit_literal(value):
                    return constant(convert(kind, value), value)
                return self._expression(value, kind)
            if kind == "any":
                if isinstance(value, Ambiguous):
                    raise Invalid(value.reason)
                if not isinstance(value, bool | int | float):
                    raise Invalid(f"expected an expression, got {describe(value)}")
                return constant(value)
            return constant(convert(kind, value), str(value))
        except (Invalid, ExprError) as e:
            self._problem(line, path, str(e))
            return None

    def _expression(self, text: str, kind: str) -> Expr:
        expr = parse_expr(text)
        scope = self.base | self.bound | set(self.loop_vars)
        for name in sorted(expr.names - scope):
            raise Invalid(f"undefined name {name!r}{hint(name, scope)}")
        if expr.names <= self.known.keys():
            value = convert(kind, expr.evaluate(self.known))  # fail at load, not at run time
            if expr.is_constant:
                return constant(value, text)
        return expr

    def _problem(self, line: int, path: str, message: str) -> None:
        self.problems.add(line, path, message)
