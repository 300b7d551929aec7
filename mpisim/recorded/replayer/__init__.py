"""Replaying a recording: each process's log run as its rank's program
(:mod:`.program`), with the calls of each family replayed by their own tables
(communicators :mod:`.comms`, MPI-IO :mod:`.files`, one-sided :mod:`.onesided`, datatypes,
ops, groups and the other objects :mod:`.objects`), the recording given to the what-if
tools as a scenario (:mod:`.scenario`) and the replay's outcome judged against the recorded
one (:mod:`.verdict`).
"""
