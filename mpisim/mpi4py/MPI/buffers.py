"""Buffered mode's buffers in the stand-in (MPI 4.1 §3.6, and communicator buffers): the
functions behind ``MPI.Attach_buffer``, ``MPI.Detach_buffer``, ``MPI.Flush_buffer`` and
``MPI.Iflush_buffer`` (the process's buffer) and behind ``Comm``'s methods of the same names
(that communicator's buffer).
"""

from __future__ import annotations

from typing import Any

from ...mpi.constants import BUFFER_AUTOMATIC
from ..bridge import current
from ..exceptions import Exception, unsupported
from .request import Request

__all__ = ["attach", "detach", "flush", "iflush"]


def _size_of(buf: Any) -> Any:
    if buf is BUFFER_AUTOMATIC:
        return BUFFER_AUTOMATIC
    if isinstance(buf, int) and not isinstance(buf, bool):
        return buf
    try:
        return memoryview(buf).nbytes
    except TypeError:
        if hasattr(buf, "__cuda_array_interface__") or hasattr(buf, "__dlpack__"):
            raise unsupported("buffer", f"{type(buf).__name__} (GPU/DLPack buffers)") \
                from None
        raise Exception(f"Attach_buffer: a {type(buf).__name__} is not a buffer", None,
                        "MPI_ERR_BUFFER") from None


def _comm_call(name: str, comm: Any) -> tuple[Any, Any, dict[str, Any]]:
    """The handle's process-wide call, or its communicator form for ``comm``."""
    ctx = current()
    mpi = ctx.mpi
    if comm is None:
        return ctx, getattr(mpi, f"buffer_{name}"), {}
    method = getattr(mpi, f"comm_{name}_buffer", None)
    if method is None:
        raise unsupported("Comm", f"{name.capitalize()}_buffer")
    return ctx, method, {"comm": comm._c(mpi)}


def attach(buf: Any, comm: Any = None) -> None:
    """MPI_Buffer_attach (or MPI_Comm_attach_buffer): the size is the buffer's; the
    handle's ``buffer_attach`` is looked up at each call, so min-buffer can replace it."""
    size = _size_of(buf)
    ctx, _, kwargs = _comm_call("attach", comm)
    mpi = ctx.mpi
    if comm is None:
        ctx.call(lambda: mpi.buffer_attach(size, buf))
    else:
        ctx.call(lambda: mpi.comm_attach_buffer(size, buf=buf, **kwargs))


def detach(comm: Any = None) -> Any:
    """The buffer object given to attach (BUFFER_AUTOMATIC if that), once its messages
    have been sent; None when none was attached."""
    ctx, method, kwargs = _comm_call("detach", comm)
    address, _size = ctx.call(lambda: method(**kwargs))
    return address


def flush(comm: Any = None) -> None:
    ctx, method, kwargs = _comm_call("flush", comm)
    ctx.call(lambda: method(**kwargs))


def iflush(comm: Any = None) -> Request:
    ctx, method, kwargs = _comm_call("iflush", comm)
    return Request(ctx.call(lambda: method(**kwargs)))
