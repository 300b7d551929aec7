"""Buffered mode (MPI 4.1 §3.6, §3.6.1): the attached buffer of a process, communicator or
session (``mode``), the allocators that place its pending message entries (the standard's
circular model, first-fit, unbounded) and the buffer's summary and overflow errors.

Works on offsets only: nothing real is allocated for simulated memory.
"""
