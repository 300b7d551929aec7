"""What differs between MPI libraries: the profiles (``standard``, ``mpich``, ``openmpi``
and the measured ``*-5.0`` files), their YAML file format and the evidence of each setting."""
