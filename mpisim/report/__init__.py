"""Views over a run's data: the text report's blocks, Jupyter's HTML, files written by
``--out`` and Chrome traces. They import no model type: they read data, never drive a run."""
