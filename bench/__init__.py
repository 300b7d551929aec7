"""The benchmark package: ``python -m bench`` (see bench/run.py)."""
