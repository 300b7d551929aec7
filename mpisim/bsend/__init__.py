"""Buffered mode (3.6, 3.6.1): the attached buffer of each process, the allocators that
place its pending message entries (the standard's circular model, first-fit, unbounded),
and the implementation profiles (standard, mpich, openmpi).

Works on offsets only: nothing real is allocated for simulated memory.
"""
