"""mpisim: a discrete-event simulator of MPI buffered communication."""

__version__ = "0.1.0"
