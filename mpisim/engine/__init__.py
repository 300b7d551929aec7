"""The SimPy kernel as runs use it: the clock and its cheap events, rank processes, the
trace recorder, the garbage-collector pause and program sites. Decides no MPI rule."""
