"""Making a recording: ``mpisim record`` (:mod:`.recorder`: the recorder built with the
program's own ``mpicc`` and preloaded, the run, its logs merged), the MPI library and
launcher it finds (:mod:`.mpilib`), its stall watch (:mod:`.stall`), the MPI calls a program
uses that the recorder does not log (:mod:`.unlogged`), the generators of the shim's regular
C wrappers (:mod:`.cwrappers`) and Fortran bindings (:mod:`.fortran`) over their shared C
lines (:mod:`.cblock`), and synthetic recordings of any length (:mod:`.synthetic`). The shim
itself is ``recorded/shim/mpisim_record.c``, one C file users compile.
"""
