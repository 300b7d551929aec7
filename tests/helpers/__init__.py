"""What many test files share: ``paths`` (the repository's folders and tests/data), ``programs``
(rank programs used by tests in several layers), ``traces`` (synthetic traces and results),
``real_mpi`` (one program under a real MPI library and under the stand-in), ``mpi_tools``
(a real library's mpicc, mpif90 and mpiexec, all of one library) and ``mpi4py_suite``
(mpi4py's own tests, fetched). tests/ is on the path (``pythonpath`` in
pyproject.toml): ``from helpers.programs import exchange``."""
