"""``MPI.Errhandler`` of the stand-in, its predefined handlers, and the handler in force on
a communicator, window or file (MPI 4.1 §9.3).

``ERRORS_RETURN`` (mpi4py's default: an MPI error raises ``MPI.Exception``),
``ERRORS_ARE_FATAL`` and ``ERRORS_ABORT`` (an MPI error ends the run, even where the script
would catch it), and ``ERRHANDLER_NULL``. As mpi4py's, an Errhandler is a value naming a
handle (observed with mpi4py 4.1.2 over MPICH 5.0.2): ``Get_errhandler`` gives a new object
equal to the handler in force; its ``Free`` (MPI_Errhandler_free, §9.3.4) makes that object
``ERRHANDLER_NULL`` while the module's constants stay as they are; freeing the null one,
or setting it, is ``MPI_ERR_ERRHANDLER``. ``Call_errhandler`` (§9.3.5) under
``ERRORS_RETURN`` returns without raising (the handler returned, so MPI_*_call_errhandler
gives MPI_SUCCESS); under the fatal ones it ends the run. mpi4py sets its default handler
(``ERRORS_RETURN``, ``mpi4py.rc.errors == "exception"``) on every communicator and window
it makes, so a new one does not inherit its parent's.
"""

from __future__ import annotations

from typing import Any

from ..bridge import Fatal, current
from ..datatypes.integers import c_int
from ..exceptions import CODES, Unsupporting, unsupported
from ..exceptions import Exception as MPIException

__all__ = ["ERRHANDLER_NULL", "ERRORS_ABORT", "ERRORS_ARE_FATAL", "ERRORS_RETURN",
           "Errhandler", "ErrhandlerMethods", "call_errhandler", "get_errhandler", "set_errhandler"]

_HANDLES = {"ERRHANDLER_NULL": 0x14000000, "ERRORS_ARE_FATAL": 0x54000000,
            "ERRORS_RETURN": 0x54000001, "ERRORS_ABORT": 0x54000003}
"""MPICH 5.0.2's handle of each (``MPI.ERRORS_RETURN.handle``, ``toint()``, ``py2f()``)."""
_BY_HANDLE = {handle: name for name, handle in _HANDLES.items()}
_FATAL = frozenset({"ERRORS_ARE_FATAL", "ERRORS_ABORT"})


class Errhandler(metaclass=Unsupporting):
    """mpi4py's MPI.Errhandler (see the module)."""

    __hash__ = None  # type: ignore[assignment]  # unhashable, as mpi4py's

    def __init__(self, errhandler: Errhandler | None = None) -> None:
        if errhandler is not None and not isinstance(errhandler, Errhandler):
            raise TypeError(f"Argument 'errhandler' has incorrect type (expected "
                            f"mpi4py.MPI.Errhandler, got {type(errhandler).__name__})")
        self._name: str = "ERRHANDLER_NULL" if errhandler is None else errhandler._name
        self._const = False

    @property
    def _fatal(self) -> bool:
        """Whether an MPI error under it ends the run."""
        return self._name in _FATAL

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Errhandler):
            return NotImplemented
        return self._name == other._name

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Errhandler):
            return NotImplemented
        return self._name != other._name

    def __bool__(self) -> bool:
        return self._name != "ERRHANDLER_NULL"

    @property
    def handle(self) -> int:
        return _HANDLES[self._name]

    def toint(self) -> int:
        return self.handle

    def py2f(self) -> int:
        return self.handle

    @classmethod
    def fromhandle(cls, handle: int) -> Errhandler:
        made = cls()
        made._name = _BY_HANDLE.get(handle, "ERRHANDLER_NULL")
        return made

    fromint = fromhandle
    f2py = fromhandle

    def Free(self) -> None:
        """MPI_Errhandler_free: this object becomes ERRHANDLER_NULL (the module's
        constants stay); the null handler is MPI_ERR_ERRHANDLER."""
        if not self:
            raise MPIException("Invalid errhandler: Null errhandler", None,
                               "MPI_ERR_ERRHANDLER")
        if not self._const:
            self._name = "ERRHANDLER_NULL"

    def free(self) -> None:
        """``Free`` if not null (and not one of the module's constants)."""
        if self and not self._const:
            self.Free()

    def __reduce__(self) -> str | tuple[Any, ...]:
        """A constant by name, another object as a copy of the constant it equals (every
        handler the stand-in has is a predefined one)."""
        return self._name if self._const else (Errhandler, (_CONSTANTS[self._name],))

    def __repr__(self) -> str:
        return f"<mpi4py.MPI.Errhandler {self._name}>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("Errhandler", name)


def _constant(name: str) -> Errhandler:
    made = Errhandler.fromhandle(_HANDLES[name])
    made._const = True
    return made


Errhandler.__module__ = "mpi4py.MPI"  # the constants pickle by name, as mpi4py's
ERRHANDLER_NULL = _constant("ERRHANDLER_NULL")
ERRORS_RETURN = _constant("ERRORS_RETURN")
ERRORS_ARE_FATAL = _constant("ERRORS_ARE_FATAL")
ERRORS_ABORT = _constant("ERRORS_ABORT")
_CONSTANTS = {h._name: h for h in (ERRHANDLER_NULL, ERRORS_RETURN, ERRORS_ARE_FATAL,
                                   ERRORS_ABORT)}


def _in_force() -> dict[Any, str]:
    """This rank's handler in force per object key (absent: ERRORS_RETURN)."""
    return current().state.setdefault("errhandlers", {})


def get_errhandler(key: Any) -> Errhandler:
    """MPI_{Comm,Win,File}_get_errhandler: a new object equal to the handler in force."""
    return Errhandler.fromhandle(_HANDLES[_in_force().get(key, "ERRORS_RETURN")])


def set_errhandler(key: Any, errhandler: Errhandler) -> None:
    """MPI_{Comm,Win,File}_set_errhandler: a TypeError for what is not an Errhandler (as
    mpi4py's argument check), MPI_ERR_ERRHANDLER for ERRHANDLER_NULL."""
    if not isinstance(errhandler, Errhandler):
        raise TypeError(f"Argument 'errhandler' has incorrect type (expected "
                        f"mpi4py.MPI.Errhandler, got {type(errhandler).__name__})")
    if not errhandler:
        raise MPIException("Invalid errhandler: Null errhandler", None, "MPI_ERR_ERRHANDLER")
    ctx = current()
    _in_force()[key] = errhandler._name
    ctx.fatal[key] = errhandler._fatal


def call_errhandler(key: Any, errorcode: Any) -> None:
    """MPI_{Comm,Win,File}_call_errhandler (§9.3.5): under ERRORS_RETURN the handler
    returns, so the call does too; under a fatal one the run ends with that error."""
    code = c_int(errorcode)
    if not current().fatal.get(key):
        return
    name = next((n for n, c in CODES.items() if c == code), "MPI_ERR_OTHER")
    raise Fatal(MPIException(f"MPI_Call_errhandler with error code {code}", None, name))


class ErrhandlerMethods:
    """``Get_errhandler``, ``Set_errhandler`` and ``Call_errhandler`` of ``Comm``, ``Win``
    and ``File`` (needs ``_key()``: the object in the rank's table of handlers)."""

    def Get_errhandler(self) -> Errhandler:
        return get_errhandler(self._key())  # type: ignore[attr-defined]

    def Set_errhandler(self, errhandler: Errhandler) -> None:
        """MPI_ERRORS_RETURN (mpi4py's default: errors raise MPI.Exception) or
        MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT (an MPI error ends the run, even if the
        script would catch it)."""
        set_errhandler(self._key(), errhandler)  # type: ignore[attr-defined]

    def Call_errhandler(self, errorcode: int) -> None:
        call_errhandler(self._key(), errorcode)  # type: ignore[attr-defined]
