"""The ``MPI`` namespace's objects, one module per mpi4py class (as mpi4py's ``MPI.src/``):
``Comm`` (:mod:`.comm`, its methods by chapter in :mod:`.pt2pt`, :mod:`.collective`,
:mod:`.topology`, :mod:`.intercomm`, :mod:`.group`, :mod:`.attributes`, :mod:`.errhandler`),
``Request``, ``Status``, ``Message``, ``Win``, ``File``, ``Info``, ``Group``, ``Op``, the
buffer calls (:mod:`.buffers`). They read their buffers with :mod:`..msgbuffer` and reach
the rank's handle through :func:`..bridge.current`; :mod:`..run.module` gathers them into the
``MPI`` module a script imports. The stand-in's mixins end in ``Methods`` (``P2PMethods``,
``CollectiveMethods``...), the handle's in ``Calls``.
"""
