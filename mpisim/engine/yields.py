"""The check that a rank program yields every MPI call it makes.

An MPI call of the ``mpi`` handle returns an event; only the program's ``yield`` of it
makes the call block, complete and give its result. A call whose event is never yielded
(``mpi.send(...)`` for ``yield mpi.send(...)``) still posts its message, but never waits:
the run would answer for a program that is not the one written (Example 3.10 of MPI 4.1,
which deadlocks, would complete). So a run refuses it, and stops at once with
``Outcome.ERROR`` (error class ``NotYielded``) naming the call, its ``file:line`` and the
fix:

- a call made while the event of the rank's previous call was never yielded (found at the
  next call: the handle's ``_enter``);
- a call whose event was not yielded when the program returned (found by the rank's
  process), or made by a program that is a plain function (no ``yield`` at all);
- a program that yields something that is not an MPI call's event (a number, ``None``, an
  uncalled ``mpi.send``, or a helper generator that needs ``yield from``);
- a helper generator function called without ``yield from`` (``helper(mpi)`` as a
  statement): its body never runs, so none of its calls happen; found in the program's
  source before it starts (:func:`discarded_generators`).

Finding the check costs one flag set per call and one cleared per yield; the place of an
unyielded call is looked up only once it is found, in the program's code (the calls whose
result is not yielded at once, :func:`locate`), since keeping the place of every call
would cost more than the call.
"""

from __future__ import annotations

import ast
import dis
import functools
import inspect
import textwrap
import types
from dataclasses import dataclass
from typing import Any

from .sites import INSIDE, place

__all__ = ["NotYielded", "discarded_generators", "locate", "method_name", "not_an_event",
           "program_frames", "unyielded"]


class NotYielded(BaseException):
    """A rank program made an MPI call without yielding its event, or yielded something
    that is not one. A BaseException, so that a program's ``except Exception`` does not
    hide it. ``call``: the MPI call (or None); ``where``: its place, ``file.py:line
    (function)``, or None when it could not be found."""

    def __init__(self, message: str, call: str | None = None, where: str | None = None) -> None:
        super().__init__(message, call, where)
        self.message, self.call, self.where = message, call, where

    def __str__(self) -> str:
        return self.message


def method_name(call: str) -> str:
    """The handle's method of an MPI call: ``MPI_Send`` -> ``send``."""
    return call[4:].lower() if call.startswith("MPI_") else call


def unyielded(call: str, where: str | None, plain: str | None = None,
              found: str | None = None) -> NotYielded:
    """The error of ``call``, made at ``where`` and never yielded. ``plain``: the name of a
    program that is a plain function (no ``yield``); ``found``: where the rank's next call
    found it (said when ``where`` is unknown). The message leaves the place to the error's
    ``where``, which reports print beside it."""
    method = method_name(call)
    at = f" (made before the call at {found})" if found and not where else ""
    fix = f"write `yield mpi.{method}(...)`"
    if plain:
        return NotYielded(f"the program {plain} has no `yield`, so none of its calls waits "
                          f"({call}{at} was called without one): {fix}", call, where)
    return NotYielded(f"{call}{at} was called without `yield`, so it never waited or "
                      f"completed: {fix}", call, where)


def not_an_event(value: Any, where: str | None) -> NotYielded:
    """The error of a program that yielded ``value`` (at ``where``), which is not an MPI
    call's event."""
    if isinstance(value, types.GeneratorType):
        name = value.__name__
        return NotYielded(f"the program yielded the generator {name}(...): delegate to a "
                          f"helper generator with `yield from {name}(...)`", None, where)
    owner = getattr(value, "__self__", None)
    if owner is not None and callable(value) and hasattr(owner, "_enter"):
        name = value.__name__
        return NotYielded(f"the program yielded mpi.{name} itself, not called: write "
                          f"`yield mpi.{name}(...)`", None, where)
    kind = type(value).__name__
    what = "a bare `yield` (None)" if value is None else \
        f"{_short(value)} ({'an' if kind[0] in 'aeiou' else 'a'} {kind})"
    return NotYielded(f"the program yielded {what}, which is not an MPI call's event: "
                      "yield the call itself (`yield mpi.recv(...)`; `yield "
                      "mpi.compute(seconds)` to pass time)", None, where)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- where the call is -----------------------------------------------------------------------
@dataclass(frozen=True)
class _Call:
    """A method call in a program's code: ``x.method(...)``, from the load of the method
    (``start``) to the instruction after the call (``end``)."""

    start: int
    end: int
    line: int | None
    method: str
    yielded: bool  # its result yielded at once (``yield x.method(...)``)


_CALL_OPS = frozenset({"CALL", "CALL_KW", "CALL_FUNCTION_EX"})
_LOAD_OPS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


@functools.lru_cache(maxsize=256)
def _method_calls(code: types.CodeType) -> tuple[_Call, ...]:
    """The ``x.method(...)`` calls of ``code`` (its own instructions, nested functions
    apart): a method load paired with the call that starts where it does."""
    ins = list(dis.get_instructions(code))
    found: dict[int, _Call] = {}  # by the call's index: the last load before it wins
    for i, load in enumerate(ins):
        if load.opname not in _LOAD_OPS or not isinstance(load.argval, str) \
                or load.positions is None:
            continue
        start = (load.positions.lineno, load.positions.col_offset)
        for j in range(i + 1, len(ins)):
            call = ins[j]
            if call.opname in _CALL_OPS and call.positions is not None and \
                    (call.positions.lineno, call.positions.col_offset) == start:
                after = ins[j + 1] if j + 1 < len(ins) else None
                found[j] = _Call(load.offset, after.offset if after else call.offset + 2,
                                 load.positions.lineno, load.argval,
                                 after is not None and after.opname == "YIELD_VALUE")
                break
    return tuple(found.values())


def locate(code: types.CodeType, method: str, lasti: int | None = None) -> int | None:
    """The line of the call of ``method`` in ``code`` that was not yielded, or None.

    Only a call whose result is not yielded at once can be it. With ``lasti`` (the offset
    the code's frame is at: the next call, which found it), the nearest such call before
    that one; else, in a loop, the last one after it, or that call itself. Without
    (the code returned), the last one."""
    calls = [c for c in _method_calls(code) if c.method == method and not c.yielded]
    if not calls:
        return None
    if lasti is None:
        return calls[-1].line
    now = next((c for c in _method_calls(code) if c.start <= lasti < c.end), None)
    start = now.start if now is not None else lasti
    before = [c for c in calls if c.end <= start]
    if before:
        return before[-1].line
    after = [c for c in calls if c.start > lasti]
    if after:
        return after[-1].line
    return now.line if now is not None and now in calls else None


def program_frames(frame: Any) -> list[Any]:
    """The frames of the rank's program from ``frame`` outwards (mpisim's own skipped)."""
    frames = []
    while frame is not None:
        if not INSIDE[frame.f_code.co_filename]:
            frames.append(frame)
        frame = frame.f_back
    return frames


def site_in_frames(frames: list[Any], method: str) -> str | None:
    """The place of the unyielded call of ``method`` in the first of ``frames`` whose code
    has one."""
    for frame in frames:
        line = locate(frame.f_code, method, frame.f_lasti)
        if line is not None:
            return place(frame.f_code.co_filename, line, frame.f_code.co_name)
    return None


def site_in_code(code: types.CodeType | None, method: str) -> str | None:
    """The place of the unyielded call of ``method`` in ``code``, which has returned."""
    if code is None:
        return None
    line = locate(code, method)
    return None if line is None else place(code.co_filename, line, code.co_name)


# -- helper generators called without yield from ---------------------------------------------
def discarded_generators(program: Any) -> NotYielded | None:
    """The error of a program (or a helper of the same module it calls) that calls a
    generator function as a statement (``helper(mpi)`` without ``yield from``): its body
    never runs. None when there is none, or the source cannot be read."""
    seen: set[types.CodeType] = set()
    todo = [program]
    while todo:
        func = todo.pop()
        func = getattr(func, "__func__", func)  # (a bound method: its function)
        code = getattr(func, "__code__", None)
        if not isinstance(func, types.FunctionType) or code is None or code in seen \
                or INSIDE[code.co_filename]:
            continue
        seen.add(code)
        for line, name in _statement_calls(code):
            target = _resolve(func, name)
            if inspect.isgeneratorfunction(target):
                where = place(code.co_filename, line, func.__name__)
                return NotYielded(f"{name}(...) calls a generator function without "
                                  f"`yield from`, so none of its MPI calls run: write "
                                  f"`yield from {name}(...)`", None, where)
            if isinstance(target, types.FunctionType):
                todo.append(target)
    return None


@functools.lru_cache(maxsize=256)
def _statement_calls(code: types.CodeType) -> tuple[tuple[int, str], ...]:
    """(line, name) of each ``name(...)`` call that is a whole statement in ``code``'s
    function (its result dropped), from its source; none if the source is unavailable."""
    try:
        lines, first = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return ()
    func = next((n for n in ast.walk(tree)
                 if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None)
    if func is None:
        return ()
    found = []
    for node in _own_nodes(func):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name):
            found.append((node.lineno + first - 1, node.value.func.id))
    return tuple(sorted(found))


def _own_nodes(func: ast.AST) -> list[ast.AST]:
    """The nodes of ``func``'s body, nested functions and classes left out (their code is
    their own)."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                      | ast.Lambda):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _resolve(func: types.FunctionType, name: str) -> Any:
    """What ``name`` means in ``func``: a variable of an enclosing function, else a global,
    else a builtin."""
    if func.__closure__ is not None and name in func.__code__.co_freevars:
        try:
            return func.__closure__[func.__code__.co_freevars.index(name)].cell_contents
        except ValueError:  # an empty cell
            return None
    if name in func.__globals__:
        return func.__globals__[name]
    return None
