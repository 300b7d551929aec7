"""Buffer specs, read as mpi4py's ``msgbuffer.pxi`` reads them: a point-to-point message
(:mod:`.p2p`), a collective's blocks and vectors (:mod:`.collective`), ``MPI.buffer``
(:mod:`.membuffer`), ``MPI.BOTTOM`` addresses (:mod:`.bottom`) and ``MPI.Pickle``
(:mod:`.pickle`). They stand on :mod:`..datatypes` and serve the objects of :mod:`..MPI`.
"""
