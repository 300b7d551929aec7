"""``MPI.pickle`` and ``MPI.Pickle`` of the stand-in: how lowercase calls serialize objects.

As mpi4py's: ``pickle.HIGHEST_PROTOCOL`` unless ``PROTOCOL`` is set, and for protocol 5's
out-of-band buffers (``dumps_oob``/``loads_oob``, used by ``mpi4py.util.pkl5``) a buffer
of ``THRESHOLD`` bytes or more (256 KiB by default) travels out of band, as an
``MPI.buffer``; smaller ones stay in the stream.
"""

from __future__ import annotations

import pickle as _pickle
from typing import Any

from .membuffer import buffer

__all__ = ["THRESHOLD", "Pickle"]

THRESHOLD = 256 * 1024
"""mpi4py's default out-of-band threshold, in bytes."""


class Pickle:
    """mpi4py's MPI.Pickle (see the module)."""

    def __init__(self, dumps: Any = _pickle.dumps, loads: Any = _pickle.loads,
                 protocol: int | None = None, threshold: int | None = None) -> None:
        self._dumps, self._loads = dumps, loads
        self.PROTOCOL = protocol
        self.THRESHOLD = threshold

    @property
    def PROTOCOL(self) -> int | None:
        return self._protocol

    @PROTOCOL.setter
    def PROTOCOL(self, protocol: int | None) -> None:
        self._protocol = _pickle.HIGHEST_PROTOCOL if protocol is None and \
            self._dumps is _pickle.dumps else protocol

    @property
    def THRESHOLD(self) -> int:
        return self._threshold

    @THRESHOLD.setter
    def THRESHOLD(self, threshold: int | None) -> None:
        self._threshold = THRESHOLD if threshold is None else threshold

    def dumps(self, obj: Any) -> bytes:
        if self._protocol is None:
            return self._dumps(obj)
        return self._dumps(obj, self._protocol)

    def loads(self, data: Any) -> Any:
        return self._loads(data)

    def dumps_oob(self, obj: Any) -> tuple[bytes, list[buffer]]:
        """The stream (protocol 5 at least) and its out-of-band buffers."""
        protocol = max(self._protocol if self._protocol is not None else
                       _pickle.HIGHEST_PROTOCOL, 5)
        bufs: list[buffer] = []

        def out_of_band(ob: Any) -> bool:
            mem = buffer.frombuffer(ob, readonly=True)
            if mem.nbytes >= self._threshold:
                bufs.append(mem)
                return False
            return True

        return self._dumps(obj, protocol, buffer_callback=out_of_band), bufs

    def loads_oob(self, data: Any, buffers: Any) -> Any:
        return self._loads(data, buffers=buffers)


Pickle.__module__ = "mpi4py.MPI"
