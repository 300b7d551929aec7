"""What travels between an executor and its workers, besides a task ``(fn, args, kwargs)``
and None (stop): the options message a worker takes first (:class:`Sync`) and a task's
exception on its way back (:class:`Raised`, unpickled as the exception itself with the
worker's traceback as its ``__cause__``, as mpi4py's)."""

from __future__ import annotations

import os
import traceback
from typing import Any

__all__ = ["Raised", "RemoteTraceback", "Sync", "raised", "unwrap"]


class RemoteTraceback(Exception):
    """The worker's traceback of a task's exception: that exception's ``__cause__``."""


RemoteTraceback.__module__ = "mpi4py.futures._core"  # (where mpi4py has it)


def unwrap(exc: BaseException, text: str) -> BaseException:
    """The exception a worker sent back, its ``__cause__`` the worker's traceback."""
    exc.__cause__ = RemoteTraceback(text)
    return exc


class Raised(Exception):
    """A task's exception on its way back: unpickled as the exception itself, its
    ``__cause__`` the worker's traceback (as mpi4py's)."""

    def __reduce__(self) -> Any:
        return unwrap, self.args


_STAND_IN = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) \
    + os.sep  # (the stand-in's frames are left out of a worker's traceback)


def raised(exc: BaseException, comm: Any) -> Raised:
    """A task's exception to send back, with the worker's traceback (its frames in the
    task's code: the stand-in's own are left out)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not os.path.abspath(f.filename).startswith(_STAND_IN)]
    body = "".join(["Traceback (most recent call last):\n", *traceback.format_list(frames),
                    *traceback.format_exception_only(type(exc), exc)])
    info = f"### Worker {comm.Get_rank()} of {comm.Get_size()} on mpisim\n"
    exc.__cause__ = exc.__context__ = exc.__traceback__ = None
    return Raised(exc, f'\n{info}"""\n{body}"""')


class Sync:
    """The first message to a worker from an executor: its options (import the script as
    ``__worker__``, globals, initializer); the worker answers whether its initializer
    succeeded."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
