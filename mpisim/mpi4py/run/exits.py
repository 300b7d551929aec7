"""The end of a rank's script as the end of a real Python process running mpi4py.

A real process that reaches the end of its script runs its ``atexit`` handlers (the last
registered first), then tears ``__main__`` down (its objects' finalizers, ``__del__``,
run), and only then does mpi4py call MPI_Finalize (it registers it at the C level, after
everything else). So a handler or a finalizer that calls MPI works there, and what it
prints appears. :func:`finish` does the same inside the rank's greenlet, before the rank
ends: the handlers its script registered, then ``__main__``'s globals set to None, the last
bound first (so a finalizer still finds the communicator bound before its object, as in
the real run), and a garbage collection for cycles.

:func:`atexit_module` is the ``atexit`` a rank's script imports (only while it runs, as
:mod:`.clock`'s ``time``): ``register`` called from the script's own code (its file, the
modules of its directory) records the handler for that rank; called from elsewhere (a
library registering at import time) it registers with the real ``atexit``. As in Python, a
handler that raises is reported ("Exception ignored in atexit callback") and the others
still run; an MPI error under MPI_ERRORS_ARE_FATAL, or the run's end, still ends the rank.
"""

from __future__ import annotations

import atexit as _atexit
import gc
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

from ..bridge import own_code

__all__ = ["Handlers", "atexit_module", "finish"]


class Handlers:
    """One rank's atexit handlers: ``(func, args, kwargs)`` in registration order."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.items: list[tuple[Callable[..., Any], tuple, dict]] = []

    def register(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1).f_code.co_filename
        if not own_code(caller, self.directory):
            return _atexit.register(func, *args, **kwargs)
        self.items.append((func, args, kwargs))
        return func

    def unregister(self, func: Callable[..., Any]) -> None:
        self.items = [item for item in self.items if item[0] != func]
        _atexit.unregister(func)

    def run(self) -> None:
        """Run and forget the handlers, the last registered first (``_run_exitfuncs``)."""
        while self.items:
            func, args, kwargs = self.items.pop()
            try:
                func(*args, **kwargs)
            except Exception:  # a real interpreter reports it and goes on
                print(f"Exception ignored in atexit callback: {func!r}", file=sys.stderr)
                traceback.print_exc()

    def clear(self) -> None:
        self.items.clear()

    def count(self) -> int:
        return len(self.items)


def atexit_module(handlers: Handlers) -> types.ModuleType:
    """The ``atexit`` module one rank's script sees (see the module)."""
    module = types.ModuleType("atexit", _atexit.__doc__)
    module.register = handlers.register  # type: ignore[attr-defined]
    module.unregister = handlers.unregister  # type: ignore[attr-defined]
    module._run_exitfuncs = handlers.run  # type: ignore[attr-defined]
    module._clear = handlers.clear  # type: ignore[attr-defined]
    module._ncallbacks = handlers.count  # type: ignore[attr-defined]
    return module


def finish(namespace: dict[str, Any], handlers: Handlers) -> None:
    """The end of the process, before MPI_Finalize (see the module)."""
    handlers.run()
    full = _has_finalizers(namespace)
    for name in reversed(list(namespace)):  # __main__'s globals, the last bound first:
        if name != "__builtins__":          # what only they held is finalized now, while
            namespace[name] = None          # the names bound before it still work
    gc.collect(2 if full else 1)  # then the objects in reference cycles (a full collection,
    # some 60 ms, only when the script defines or holds a finalizer)


def _has_finalizers(namespace: dict[str, Any]) -> bool:
    """Whether the script's globals include a class of its own with ``__del__``, or an
    object of one."""
    for value in namespace.values():
        cls = value if isinstance(value, type) else type(value)
        if getattr(cls, "__module__", None) == "__main__" and hasattr(cls, "__del__"):
            return True
    return False
