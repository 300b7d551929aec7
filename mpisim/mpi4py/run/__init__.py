"""How a script runs on the engine: the script as a rank program (:mod:`.script`), with its
settings as a scenario (:mod:`.scenario`), the ``mpi4py`` package and ``MPI`` module it
imports (:mod:`.module`) and its ``mpi4py.futures`` (:mod:`.futures`), its ``time``
(:mod:`.clock`) and ``atexit`` (:mod:`.exits`), and the table of what the stand-in offers
(:mod:`.supported`). The greenlets and the import scope are :mod:`..bridge`'s, the ground
floor every object stands on.
"""
