"""``mpi4py.futures.aplus``: Future chaining (Promises/A+), as mpi4py's: ``then`` and
``catch``, and the Future that has them as methods."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from ..simfutures import Future

__all__ = ["ThenableFuture", "catch", "then"]


class ThenableFuture(Future):
    """mpi4py.futures.aplus' Future with ``then`` and ``catch`` (Promises/A+ chaining)."""

    def then(self, on_success: Callable[[Any], Any] | None = None,
             on_failure: Callable[[BaseException], Any] | None = None) -> Future:
        """A future settled by ``on_success(result)`` or ``on_failure(exception)``: a
        Future returned is followed, an exception ``on_failure`` returns fails it."""
        return then(self, on_success, on_failure)

    def catch(self, on_failure: Callable[[BaseException], Any] | None = None) -> Future:
        """``then(None, on_failure)``; without ``on_failure`` a failure becomes None."""
        return catch(self, on_failure)


def then(future: Future, on_success: Callable[[Any], Any] | None = None,
         on_failure: Callable[[BaseException], Any] | None = None) -> Future:
    """``future.then(on_success, on_failure)`` (see :meth:`ThenableFuture.then`)."""
    new = type(future)()
    future.add_done_callback(lambda old: _resolve(new, old, on_success, on_failure))
    return new


def catch(future: Future, on_failure: Callable[[BaseException], Any] | None = None) -> Future:
    """``future.catch(on_failure)`` (see :meth:`ThenableFuture.catch`)."""
    return then(future, None, on_failure or (lambda _: None))


def _resolve(new: Future, old: Future, on_success: Callable[[Any], Any] | None,
             on_failure: Callable[[BaseException], Any] | None) -> None:
    if old.cancelled() or new.cancelled():
        new.cancel()
        new.set_running_or_notify_cancel()
        return
    reason = old.exception()
    if reason is None:
        try:
            result = old.result()
            _settle(new, on_success(result) if on_success else result, False)
            return
        except Exception as e:
            reason = e
    if on_failure is None:
        new.set_exception(reason)
        return
    try:
        _settle(new, on_failure(reason), True)
    except Exception as e:
        new.set_exception(e)


def _settle(new: Future, value: Any, failed: bool) -> None:
    if isinstance(value, Future):
        chain = new.__dict__.setdefault("_chained", weakref.WeakSet())
        if value is new or value in chain:
            raise RuntimeError(f"chain cycle detected: Future {value} already in chain")
        chain.add(value)
        value.add_done_callback(lambda old: _resolve(new, old, None, None))
    elif failed and isinstance(value, BaseException):
        new.set_exception(value)
    else:
        new.set_result(value)
