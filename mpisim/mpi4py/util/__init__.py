"""``mpi4py.util`` for the stand-in: :mod:`.pkl5` (pickled objects of any size, protocol 5)
and :mod:`.dtlib` (numpy dtypes and MPI datatypes). ``from mpi4py.util import pkl5`` in a
script gets :mod:`.pkl5`; the other submodules of mpi4py.util (``pool``, ``sync``) are
refused by name, as an unsupported call is.
"""
