"""MPI's objects and vocabulary: constants, error classes, causes, datatypes and their
type maps, addresses, communicators and sessions. Knows nothing of time or of a run."""
