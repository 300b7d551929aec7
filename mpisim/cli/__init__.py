"""The ``mpisim`` command line: parsing, printing and exit codes."""
