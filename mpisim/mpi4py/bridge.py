"""One greenlet per rank: blocking mpi4py calls become events the engine waits for.

The engine runs rank programs that are generators yielding events. An mpi4py script is
ordinary blocking code, so each rank's script runs in its own greenlet and
:func:`bridge` is the rank program the engine sees: it switches into the greenlet, which
runs until its next blocking call; the call hands the handle's event back to the bridge
(``parent.switch(event)``), the bridge yields it, and the engine resumes the bridge at the
event's simulated time with its value (or its MPI error), which the bridge passes into the
greenlet as the call's return value (or raises there). A rank's script therefore stops in
simulated time exactly where a real process would block.

While a rank's greenlet runs — and only then — ``sys.modules`` maps ``mpi4py`` and
``mpi4py.MPI`` to the stand-in and ``time`` to :mod:`.clock`'s (whose sleep is simulated),
``sys.argv`` is the script's, and the script's directory is first on ``sys.path``
(:class:`Scope`): the hook is scoped to the script's own code, so nothing else in the
process ever imports the stand-in in place of the real mpi4py, or sleeps in simulated time.
Modules the script imports from its own directory are each rank's own, as in separate
processes (a helper module's globals are per rank); others (numpy, the standard library)
are shared.

The stand-in's objects (``MPI.COMM_WORLD``...) are shared by every rank; each call finds
its rank with :func:`current` (the greenlet it runs in).

A script's ``threading.Thread`` is a greenlet of its own too (:class:`ThreadGreenlet`,
:mod:`.run.simthreads`), driven by the same loop (:func:`drive`) in a program the rank's
handle runs as a simulated thread (``mpi.spawn_thread``): its blocking calls hand their
events back just as the script's do, and block that thread only. ``threading``, ``queue``
and ``concurrent.futures`` are simulated for the script's own code only (``Scope.scoped``).
"""

from __future__ import annotations

import builtins
import importlib.abc
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Generator
from importlib.machinery import ModuleSpec
from types import CodeType, FrameType, ModuleType
from typing import TYPE_CHECKING, Any

from greenlet import GreenletExit, getcurrent, greenlet

from ..engine.process import _copy
from ..handle.access import driven, port_of
from ..mpi.errors import MPIError
from .exceptions import as_exception, unsupported

if TYPE_CHECKING:  # for the annotations (a script's rank is the handle's)
    from ..handle.rank import Rank

__all__ = ["SITES", "THREAD_CALLS", "RankContext", "RankGreenlet", "Scope", "ThreadGreenlet",
           "bridge", "check_threads", "current", "drive", "own_code", "site", "thread_program",
           "where"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_MISSING = object()


class RankContext:
    """One rank's state in the stand-in: its ``mpi`` handle and the script's view of MPI."""

    def __init__(self, mpi: Rank, script: str) -> None:
        self.mpi = mpi
        self.port = port_of(mpi)  # where each call is made (``port.where``)
        driven(mpi)  # the stand-in takes each call's event itself (it answers one that has
        # already happened without a yield): not the program's yield to check
        self.script = script
        self.greenlet: RankGreenlet | None = None
        self.root: Any = None  # the greenlet of the event loop: every greenlet of the rank
        # (its script's, its threads') switches back to it
        self.scope: Any = None  # what the rank's greenlets see while they run (Scope)
        self.back: Any = None  # the switch to the bridge (the greenlet's parent's switch,
        # found once: it is the same at every call)
        self.closed = False            # the run is over: any further call unwinds the rank
        self.exited = False  # the script has ended: its daemon threads never run again
        self.finalized = False
        self.fatal: dict[Any, bool] = {}  # communicator key -> MPI_ERRORS_ARE_FATAL in force
        self.state: dict[str, Any] = {}  # per-rank state of the stand-in's modules (pkl5's
        # communicator duplicates), as a real process keeps it in its own memory

    def call(self, make: Callable[[], Any], comm: Any = "world") -> Any:
        """Make one blocking call: ``make()`` returns the handle's event; the value of the
        event is returned here once the engine reaches it. Its MPI error is raised in the
        script as MPI.Exception (MPI_ERRORS_RETURN, mpi4py's default), or, with
        MPI_ERRORS_ARE_FATAL on ``comm`` (a key of :attr:`fatal`), ends the run."""
        self.start(sys._getframe(1))
        return self.wait(make(), comm)

    def start(self, frame: FrameType) -> None:
        """Before a blocking call: a closed run unwinds the rank, a thread's call is
        reported, and the handle learns the script's line (:func:`where`, looked for from
        ``frame``: the stand-in's method's caller saves walking the stand-in's frames)."""
        if self.closed:
            raise GreenletExit
        if THREAD_CALLS:
            check_threads()
        known = SITES.get((id(frame.f_code), frame.f_lasti))  # (where's first step,
        self.port.where = where(frame) if known is None else known[0]  # inlined)

    def wait(self, ev: Any, comm: Any = "world") -> Any:
        """The value of the handle's event ``ev`` (see :meth:`call`). An event that has
        already happened (a bsend that fit, a receive of a message already there) is
        answered here, in the rank's greenlet: the engine would resume the rank with it at
        once (:meth:`~mpisim.engine.process.RankProcess._resume`), with nothing run in
        between, so the two greenlet switches and the scope's leave and enter around
        them would only cost time."""
        try:
            if getattr(ev, "callbacks", _MISSING) is None:
                if ev._ok:
                    return ev._value
                ev._defused = True
                raise _copy(ev)  # as the engine throws it into a rank
            return self.back(ev)
        except GreenletExit:
            self.closed = True
            raise
        except MPIError as e:
            if self.fatal.get(comm):
                raise Fatal(e) from None
            raise as_exception(e) from None

    def plain(self) -> Rank:
        """The handle, for a call that takes no simulated time; records where it is made."""
        self.port.where = where()
        return self.mpi


class Fatal(BaseException):
    """An MPI error under MPI_ERRORS_ARE_FATAL: it unwinds the script (no ``except
    Exception`` catches it) and the bridge ends the run with the MPI error itself."""

    def __init__(self, error: MPIError) -> None:
        super().__init__(error)
        self.error = error


class RankGreenlet(greenlet):
    """A rank's greenlet; ``ctx`` tells the stand-in which rank is calling."""

    ctx: RankContext


def current() -> RankContext:
    """The rank whose script (or one of its simulated threads) is calling. A call from a
    real thread of the process (one a library started: the script's own ``threading`` is
    simulated) is refused there and remembered: the rank running meanwhile fails at its
    next call or its end (:func:`check_threads`), so the run ends as ERROR rather than
    completing."""
    ctx = getattr(getcurrent(), "ctx", None)
    if ctx is None:
        if threading.current_thread() is not threading.main_thread():
            THREAD_CALLS.append(where() or "a thread")
            raise RuntimeError("MPI called from a real thread of the process (not one of "
                               "the script's simulated threads): the stand-in runs MPI calls "
                               "in simulated threads only")
        raise RuntimeError("the mpi4py stand-in is used outside a simulated rank: run the "
                           "script with `mpisim mpi4py -n N script.py` or ms.run_mpi4py()")
    return ctx


THREAD_CALLS: list[str] = []
"""Where a thread a script started called MPI (see :func:`current`)."""


def check_threads() -> None:
    """RuntimeError in the rank that runs now if a thread it started called MPI."""
    if THREAD_CALLS:
        at = THREAD_CALLS[0]
        THREAD_CALLS.clear()
        raise RuntimeError(f"a real thread of the process called MPI (at {at}): the "
                           "stand-in runs MPI calls in the script's simulated threads only "
                           "(threading.Thread)")


def where(frame: FrameType | None = None) -> str | None:
    """The script's line making the current call: the innermost frame outside this package
    (from ``frame``, by default the caller's), as ``file.py:line (function)``
    (:func:`site`)."""
    if frame is None:
        frame = sys._getframe(1)
    known = SITES.get((id(frame.f_code), frame.f_lasti))
    if known is not None:  # a line of the script's own, seen before (site, inlined: a
        return known[0]    # loop's call asks for the same one again and again)
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        frame = frame.f_back
    if frame is None:
        return None
    return site(frame)


def site(frame: FrameType) -> str:
    """``file.py:line (function)`` of ``frame``'s current instruction. Each one's text is
    made once, found again by its code and instruction offset (a loop's call asks for the
    same one again and again; its line number would cost a scan of the line table)."""
    code = frame.f_code
    key = (id(code), frame.f_lasti)
    known = SITES.get(key)
    if known is None:
        if len(SITES) >= SITES_MAX:  # code made on the fly (exec in a loop): start over
            SITES.clear()
        known = SITES[key] = (f"{os.path.basename(code.co_filename)}:{frame.f_lineno} "
                               f"({code.co_name})", code)  # (the code kept: its id stays its)
    return known[0]


SITES: dict[tuple[int, int], tuple[str, CodeType]] = {}
"""The text of each (code's id, instruction offset) a script called MPI from, with the code
(see :func:`site`)."""
SITES_MAX = 100_000


class _Provided(importlib.abc.Loader):
    """Loads a stand-in module that already exists (``mpi4py.util.pkl5``)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        return None


class _Submodules:
    """A finder, first while a script runs: a submodule of the stand-in it offers on
    demand (``mpi4py.util``, ``mpi4py.util.pkl5``...: ``lazy``) is found; any other
    submodule of mpi4py but MPI (``mpi4py.futures``) is refused by name, as an unsupported
    call is."""

    def __init__(self, lazy: dict[str, Any]) -> None:
        self.lazy = lazy

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name.startswith("mpi4py.") and name != "mpi4py.MPI":
            module = self.lazy.get(name)
            if module is None:
                raise unsupported("mpi4py", name[len("mpi4py."):])
            return importlib.util.spec_from_loader(name, _Provided(module))
        return None


class Scope:
    """What a rank's script sees while its greenlet runs: the stand-in modules, its argv and
    its directory on sys.path. Entered and left around every switch into the greenlet."""

    def __init__(self, modules: dict[str, Any], argv: list[str], directory: str,
                 output: str = "stdout", lazy: dict[str, Any] | None = None,
                 scoped: dict[str, Any] | None = None) -> None:
        self.scoped = dict(scoped or {})  # what only the script's own code imports
        # (threading, queue, concurrent.futures: simulated), see _import
        self._owns: dict[Any, bool] = {}
        self.init: Callable[[], Any] | None = None  # called once, when the script's own
        # code first imports mpi4py.MPI (mpi4py initializes MPI then, with mpi4py.rc's
        # thread level as the script has set it)
        self._real_import: Any = None
        self.modules = dict(modules)  # in sys.modules at every switch (a lazy one joins
        # them once the script imported it: most scripts never do, and pay nothing)
        self.lazy = dict(lazy or {})
        self.finder = _Submodules(self.lazy)
        self.argv = argv
        self.directory = directory
        self.output = output
        self._saved: dict[str, Any] = {}
        self._absent: list[str] = []
        self._argv: list[str] = sys.argv
        self._stdout: Any = None
        self.private: dict[str, Any] = {}  # the rank's own copies of the script's modules
        self._count = 0

    def enter(self) -> None:
        """Install the script's view (once per MPI call that waits: plain loops over the
        few names, measured cheaper than map/zip/compress forms; see :meth:`leave`)."""
        mods = sys.modules
        if self._count == 0 and self.lazy:  # the process already holds one: hide it always
            self.modules.update({n: m for n, m in self.lazy.items() if n in mods})
        saved: dict[str, Any] = {}  # the process's entries of the names, put back by leave
        absent: list[str] = []      # the names it has none of, removed by leave
        for name in self.modules:
            if name in mods:
                saved[name] = mods[name]
            else:
                absent.append(name)
        self._saved, self._absent, self._argv = saved, absent, sys.argv
        mods.update(self.modules)
        if self.private:
            mods.update(self.private)
        self._count = len(mods)
        sys.argv = self.argv
        sys.path.insert(0, self.directory)
        sys.meta_path.insert(0, self.finder)
        if self.output != "stdout":
            self._stdout = sys.stdout
            sys.stdout = sys.stderr if self.output == "stderr" else _discard()
        if self.scoped:
            self._real_import = builtins.__import__
            builtins.__import__ = self._import

    def _import(self, name: str, globals: Any = None, locals: Any = None,
                fromlist: Any = (), level: int = 0) -> Any:
        """``import`` while the rank runs: the script's own code (its ``__main__`` and the
        modules of its directory) gets the simulated modules of :attr:`scoped`; any other
        code (the standard library, numpy) the real ones, so that a module shared by the
        process never holds a simulated lock."""
        scoped = self.scoped
        if self.init is not None and level == 0 and (
                (name.startswith("mpi4py.") and name != "mpi4py.rc") or (
                name == "mpi4py" and fromlist and "MPI" in fromlist)) and \
                globals is not None and self._own(globals):
            init, self.init = self.init, None
            init()
        if level == 0 and name in scoped and globals is not None and self._own(globals):
            if not fromlist and "." in name:  # `import a.b` binds a
                return scoped.get(name.partition(".")[0], scoped[name])
            return scoped[name]
        return self._real_import(name, globals, locals, fromlist, level)

    def _own(self, namespace: dict[str, Any]) -> bool:
        key = namespace.get("__file__")
        own = self._owns.get(key)
        if own is None:
            own = self._owns[key] = _under(key, self.directory)
        return own or namespace.get("__name__") == "__main__"

    def leave(self) -> None:
        """Put the process's view back, exactly as :meth:`enter` found it (its entries
        replaced in place: sys.modules keeps its order)."""
        mods = sys.modules
        if len(mods) > self._count:  # the rank imported modules: its own are kept apart
            self._imported(mods)
        private = self.private
        if private:
            for name in private:
                private[name] = mods.pop(name, private[name])
        mods.update(self._saved)
        for name in self._absent:
            mods.pop(name, None)
        sys.argv = self._argv
        if self._real_import is not None:
            builtins.__import__, self._real_import = self._real_import, None
        if self._stdout is not None:
            sys.stdout, self._stdout = self._stdout, None
        meta = sys.meta_path
        if meta and meta[0] is self.finder:
            del meta[0]
        elif self.finder in meta:
            meta.remove(self.finder)
        path = sys.path
        if path and path[0] == self.directory:
            del path[0]
        elif self.directory in path:
            path.remove(self.directory)

    def _imported(self, mods: dict[str, Any]) -> None:
        """The modules the rank imported since :meth:`enter`: a stand-in submodule joins
        :attr:`modules`, one of the script's directory becomes the rank's own."""
        for name in list(mods)[self._count:]:
            if name in self.lazy and name not in self.modules:  # a stand-in
                self.modules[name] = self.lazy[name]  # submodule: there from now on
                self._absent.append(name)
            elif _under(getattr(mods[name], "__file__", None), self.directory):
                self.private[name] = None


_INSTALLED = tuple({os.path.abspath(p) + os.sep for p in (sys.prefix, sys.base_prefix,
                                                        sys.exec_prefix)})


def own_code(path: str | None, directory: str) -> bool:
    """Whether ``path`` is the script's own code (see :func:`_under`)."""
    return _under(path, directory)


def _under(path: str | None, directory: str) -> bool:
    """A module of the script's own (its directory's), not an installed package (a virtual
    environment inside the script's directory stays shared)."""
    if not path:
        return False
    path = os.path.abspath(path)
    return (path.startswith(directory + os.sep) and not path.startswith(_INSTALLED)
            and "site-packages" not in path and "dist-packages" not in path)


_DEVNULL: list[Any] = []


def _discard() -> Any:
    if not _DEVNULL:
        _DEVNULL.append(open(os.devnull, "w"))  # noqa: SIM115 - kept for the process
    return _DEVNULL[0]


def bridge(ctx: RankContext, body: Callable[[], Any], scope: Scope) -> Generator[Any, Any, Any]:
    """The rank program the engine runs for one rank's script (see the module)."""
    g = RankGreenlet(body)
    g.ctx = ctx
    ctx.greenlet = g
    ctx.root = g.parent
    ctx.back = g.parent.switch
    ctx.scope = scope
    return (yield from drive(g, ctx, scope))


class ThreadGreenlet(greenlet):
    """A simulated thread's greenlet (``threading.Thread.start`` in a script): ``ctx`` is
    its rank's, ``thread`` the script's Thread object."""

    ctx: RankContext
    thread: Any


def thread_program(ctx: RankContext, run: Callable[[], Any]) -> tuple[Any, ThreadGreenlet]:
    """The program of a new simulated thread running ``run()`` in a greenlet of its own,
    for ``mpi.spawn_thread``: (the generator, the greenlet). The greenlet's parent is the
    rank's (the event loop's), so its blocking calls hand their events to the generator as
    the rank's do to :func:`bridge`."""
    g = ThreadGreenlet(run, parent=ctx.root)
    g.ctx = ctx
    return drive(g, ctx, ctx.scope), g


def drive(g: greenlet, ctx: RankContext, scope: Scope) -> Generator[Any, Any, Any]:
    """Run greenlet ``g`` as a program of the engine: switch into it (in the script's
    scope), yield each event it hands back, send the event's value (or throw its error)
    into it; its return value is the program's. A program closed before its greenlet ended
    (the run is over) unwinds the greenlet, and the rank's calls from then on end at once."""
    value: Any = None
    error: BaseException | None = None
    started = False
    enter, leave, switch = scope.enter, scope.leave, g.switch  # (bound once: per call)
    daemon = isinstance(g, ThreadGreenlet) and g.thread.daemon
    try:
        while True:
            if daemon and ctx.exited:  # as CPython at exit: a daemon thread is not resumed
                yield ctx.port.env.event()  # (an event nothing fires: parked for good)
            enter()
            try:
                if error is None and started:
                    ev = switch(value)
                elif error is not None:
                    ev = g.throw(error)
                else:
                    started = True
                    ev = switch()
            except Fatal as fatal:
                raise fatal.error from None
            finally:
                leave()
            if g.dead:
                return ev
            try:
                value, error = (yield ev), None
            except GeneratorExit:
                raise
            except BaseException as e:  # the event's MPI error: raised at the script's call
                value, error = None, e
    finally:
        if started and not g.dead:
            ctx.closed = True
            _unwind(g, scope)


def _unwind(g: RankGreenlet, scope: Scope) -> None:
    """End a rank the run left blocked (a deadlock, a stop): its ``finally`` blocks run now,
    in its scope, and any MPI call they make ends the greenlet at once."""
    scope.enter()
    try:
        g.throw(GreenletExit)
    except BaseException:  # a rank's clean-up code cannot change the result
        pass
    finally:
        scope.leave()
