"""One run: a simulation assembled from its settings, stepped or run to its end, its
result, and the deadlock analysis of a run that stopped."""
