"""The ``mpi`` handle of a rank program: one class (``rank.Rank``), written as one mixin per
chapter of the standard, and the call table that names every call once."""
