"""mpi4py.futures' ``collect`` and ``compose``: futures made of other futures."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from ..simfutures import Future

__all__ = ["collect", "compose"]


def collect(fs: Iterable[Future]) -> Future:
    """One future whose result is the list of the results of ``fs`` (the first failure
    fails it; cancelling it cancels them)."""
    items = list(fs)
    if not items:
        future = Future()
        future.set_result([])
        return future
    future = type(items[0])()
    results: list[Any] = [None] * len(items)
    left = [len(items)]

    def settled(index: int, item: Future) -> None:
        if future.done():
            return
        if item.cancelled():
            future.cancel()
        elif (error := item.exception()) is not None:
            future.set_exception(error)
        else:
            results[index] = item.result()
            left[0] -= 1
            if not left[0]:
                future.set_result(results)

    future.add_done_callback(lambda f: [item.cancel() for item in items])
    for index, item in enumerate(items):
        item.add_done_callback(functools.partial(settled, index))
    return future


def compose(future: Future, resulthook: Callable[[Any], Any] | None = None,
            excepthook: Callable[[BaseException], Any] | None = None) -> Future:
    """A future settled by ``resulthook(result)`` or ``excepthook(exception)`` once
    ``future`` is (an exception ``excepthook`` returns fails it)."""
    new = type(future)()

    def complete(old: Future) -> None:
        try:
            if old.cancelled():
                new.cancel()
            elif old.exception() is not None:
                reason: Any = old.exception()
                if excepthook:
                    reason = excepthook(reason)
                if isinstance(reason, BaseException):
                    new.set_exception(reason)
                else:
                    new.set_result(reason)
            else:
                result = old.result()
                new.set_result(resulthook(result) if resulthook else result)
        except Exception as e:
            new.set_exception(e)

    new.add_done_callback(lambda f: future.cancel() if f.cancelled() else None)
    future.add_done_callback(complete)
    return new
