"""An mpi4py script as a rank program, and :func:`run_mpi4py`.

:class:`Script` is a program like any other (``ms.run(Script("ring.py"), ranks=4)``; it
pickles as its path and arguments, so sweeps and min-buffer send it to worker processes):
called with a rank's handle it returns the :func:`~.bridge.bridge` generator that runs the
script in that rank's greenlet, in a fresh ``__main__`` namespace, with ``sys.argv`` set and
``time`` the :mod:`.clock` module (``time.sleep`` advances the rank's simulated clock).

When the script ends, its ``atexit`` handlers and its objects' finalizers run, in the rank,
before the rank's MPI_Finalize, as in a real process (:mod:`.exits`).

``output`` sends what the script prints to stdout (as mpiexec does), to stderr, or nowhere.
A script that ends with ``sys.exit(0)`` (or ``sys.exit()``) ends its rank normally; any other
exit status ends the run as ERROR, as a real MPI job is aborted when one process fails. A
Python exception ends the run as ERROR too, its report noting (:data:`HANGS`) that a real
job would often hang there instead.
"""

from __future__ import annotations

import builtins
import os
import signal
import threading
import types
from typing import Any

from ...mpi.errors import MPIError
from ..bridge import RankContext, Scope, bridge, check_threads
from .clock import time_module
from .exits import Handlers, atexit_module, finish
from .futures import MODULES as _RUN_MODULES
from .futures import modules as mpi4py_futures_modules
from .futures import run_module
from .module import init_level, modules, submodules
from .simfutures import futures_modules
from .simthreads import join_threads, queue_module, thread_module, threading_module

__all__ = ["Script", "ScriptError", "ScriptExit", "ScriptInterrupt", "run_mpi4py"]

_CODE: dict[tuple[str, float], Any] = {}

OUTPUTS = ("stdout", "stderr", "discard")
"""Where a script's prints go: ``stderr`` keeps stdout for JSON, ``discard`` is for the many
runs of check and min-buffer."""


class ScriptError(ValueError):
    """The script cannot be run (missing, unreadable, a syntax error): one line naming it."""


class ScriptExit(RuntimeError):
    """A rank's script called sys.exit with a non-zero status."""


def _compile(path: str) -> Any:
    try:
        stamp = os.stat(path).st_mtime
    except OSError as e:
        raise ScriptError(f"{path}: cannot read the script: {e.strerror or e}") from None
    code = _CODE.get((path, stamp))
    if code is None:
        try:
            with open(path, "rb") as f:
                source = f.read()
            code = compile(source, path, "exec", dont_inherit=True)
        except SyntaxError as e:
            raise ScriptError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
        except (OSError, ValueError) as e:
            raise ScriptError(f"{path}: cannot read the script: {e}") from None
        _CODE[(path, stamp)] = code
    return code


class Script:
    """The rank program that runs an mpi4py script (see the module).

    Pass it where a program goes (``ms.run(Script("ring.py"), ranks=4)``, the what-if
    functions); :func:`mpisim.run_mpi4py` does that for you.

    Parameters
    ----------
    path
        The script's path (read and compiled at once: a missing file or a syntax error is
        a ``ScriptError`` here).
    argv
        The script's command-line arguments, its ``sys.argv[1:]``. Default: none.
    output
        Where the script's prints go: ``"stdout"`` (the default), ``"stderr"`` (keeps
        stdout for JSON) or ``"discard"`` (for the many runs of check and min-buffer).
    module
        Run the script as ``python -m MODULE script.py`` does: ``"mpi4py.futures"`` (rank
        0 runs the script, the other ranks are its MPIPoolExecutor's workers), or
        ``"mpi4py"`` (the same as none). Default: None, ``python script.py``.
    """

    def __init__(self, path: str | os.PathLike[str], argv: list[str] | tuple[str, ...] = (),
                 output: str = "stdout", module: str | None = None) -> None:
        if output not in OUTPUTS:
            raise ValueError(f"output: expected one of {', '.join(OUTPUTS)}, got {output!r}")
        if module not in _RUN_MODULES:
            raise ValueError(f"-m {module}: a script runs under -m mpi4py or -m "
                             "mpi4py.futures only")
        self.module = None if module == "mpi4py" else module
        self.output = output
        self.path = os.path.abspath(os.fspath(path))
        self.argv = [os.fspath(path), *(str(a) for a in argv)]
        self.__name__ = os.path.splitext(os.path.basename(self.path))[0]
        _compile(self.path)  # a missing file or a syntax error is found now, once

    def __repr__(self) -> str:
        return f"<mpi4py script {os.path.basename(self.path)}>"

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "argv": self.argv, "__name__": self.__name__,
                "output": self.output, "module": self.module}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def child(self, path: str, argv: list[str], module: str | None = None) -> Script:
        """The program of a process this script's rank spawns (MPI 4.1 §11.8.2): the
        script ``path`` with ``argv`` (under ``python -m module``), its prints where this
        one's go."""
        return Script(path, argv, self.output, module)

    def __call__(self, mpi: Any, **params: Any) -> Any:
        if params:
            raise TypeError(f"an mpi4py script takes command-line arguments, not params "
                            f"({', '.join(sorted(params))})")
        code = _compile(self.path)
        ctx = RankContext(mpi, self.path)
        ctx.state["spawn"] = self.child  # what its MPI_Comm_spawn runs (MPI/dynamic.py)
        directory = os.path.dirname(self.path)
        handlers = Handlers(directory)
        main = types.ModuleType("__main__")  # the rank's own: pickle finds the script's
        # functions and classes in it (mpi4py.futures' workers know it as __worker__)
        scope = Scope(modules() | {"time": time_module(), "atexit": atexit_module(handlers),
                                   "__main__": main, "__worker__": main},
                      list(self.argv), directory, self.output,
                      submodules() | mpi4py_futures_modules(), scoped())
        scope.init = lambda: init_level(ctx)
        return bridge(ctx, lambda: _execute(ctx, code, main, handlers, self.module), scope)


def scoped() -> dict[str, Any]:
    """The modules only the script's own code imports simulated: ``threading``,
    ``queue``, ``_thread``, ``concurrent.futures`` (:mod:`.simthreads`, :mod:`.simfutures`)."""
    return {"threading": threading_module(), "queue": queue_module(),
            "_thread": thread_module(), **futures_modules()}


def _execute(ctx: RankContext, code: Any, main: types.ModuleType, handlers: Handlers,
             module: str | None = None) -> None:
    """The script in a fresh ``__main__`` (under ``python -m module``: :func:`.futures.
    run_module`), then the end of the process before MPI_Finalize: its non-daemon threads
    joined (:func:`.simthreads.join_threads`), then :func:`.exits.finish` (atexit handlers,
    finalizers)."""
    namespace = main.__dict__
    namespace.update({"__name__": "__main__", "__file__": ctx.script, "__builtins__": builtins,
                      "__package__": None, "__spec__": None, "__cached__": None})
    modules()["mpi4py"].rc.__dict__.clear()  # a new process: mpi4py.rc's defaults (what
    # a script sets before it imports mpi4py.MPI is read then, by init_level)
    _watch_sigint()
    try:
        if module is None:
            exec(code, namespace)
        else:
            run_module(module, code, namespace)
        check_threads()
    except SystemExit as e:
        if e.code not in (None, 0):
            raise ScriptExit(f"the script exited with status {e.code!r}") from None
    except KeyboardInterrupt as e:
        if _SIGINT or hasattr(e, "signum"):
            raise  # Ctrl-C (or SIGTERM): the user stops the run
        raise ScriptInterrupt("the script raised KeyboardInterrupt itself (no Ctrl-C was "
                              "received)").with_traceback(e.__traceback__) from None
    except Exception as e:
        if not isinstance(e, MPIError):
            e.add_note(HANGS)
        raise
    join_threads(ctx)
    finish(namespace, handlers)


class ScriptInterrupt(RuntimeError):
    """A script raised KeyboardInterrupt with no Ctrl-C received: its own error."""


_SIGINT: list[bool] = []


def _watch_sigint() -> None:
    """Tell a Ctrl-C from a script's own ``raise KeyboardInterrupt``: Python's default
    SIGINT handler, wrapped once to note that the signal came (it behaves as before)."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _noted_sigint)


def _noted_sigint(signum: int, frame: Any) -> None:
    _SIGINT.append(True)
    signal.default_int_handler(signum, frame)


HANGS = ("(A real run does not end here: this process exits with this traceback and the "
         "others go on; under MPICH's mpiexec the job then often hangs, every other rank "
         "waiting in MPI for this one, until a time limit ends it; Open MPI's mpiexec aborts "
         "the job. The simulator ends the run at the exception.)")
"""The note a script's Python exception carries in the run's report."""


def run_mpi4py(script: str | os.PathLike[str], ranks: int, args: list[str] | tuple[str, ...] = (),
               **run_kwargs: Any) -> Any:
    """Run an mpi4py script on ``ranks`` simulated ranks and return the Result.

    The script runs unchanged: ``from mpi4py import MPI`` gives it mpisim's stand-in, whose
    calls are simulated (times are simulated seconds). Its own output is printed as it
    runs; mpisim prints nothing (the Result says what happened).

    Parameters
    ----------
    script
        The script's path (``"ring.py"``).
    ranks
        How many MPI processes run it (MPI_COMM_WORLD's size), at least 1.
    args
        The script's command-line arguments, its ``sys.argv[1:]`` (strings). Default:
        none.
    **run_kwargs
        The other arguments of :func:`mpisim.run`: ``network``, ``mpi``, ``buffer``,
        ``seed``, ``until``, ``max_events``, ``name`` (default: the script's name),
        ``trace``.

    Returns
    -------
    Result
        As :func:`mpisim.run` returns it.

    Examples
    --------
    >>> from pathlib import Path
    >>> _ = Path("exchange.py").write_text('''
    ... from mpi4py import MPI
    ... import numpy as np
    ... comm = MPI.COMM_WORLD
    ... peer = 1 - comm.Get_rank()
    ... data = np.full(100, comm.Get_rank(), dtype="i")
    ... comm.Send(data, dest=peer)
    ... comm.Recv(data, source=peer)
    ... print("rank", comm.Get_rank(), "got", data[0])
    ... ''')
    >>> import mpisim as ms
    >>> ms.run_mpi4py("exchange.py", ranks=2).outcome
    rank 1 got 0
    rank 0 got 1
    <Outcome.COMPLETED: 'completed'>
    >>> ms.run_mpi4py("exchange.py", ranks=2, mpi={"force_ssend": True}).outcome
    <Outcome.DEADLOCK: 'deadlock'>
    """
    from ...runs.simulation import run

    program = Script(script, args)
    run_kwargs.setdefault("name", program.__name__)
    return run(program, ranks=ranks, **run_kwargs)
