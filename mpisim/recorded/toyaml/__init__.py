"""``mpisim replay --to-yaml``: a recording written as a scenario file, its calls as the
scenario's ops (:mod:`.write`: repeated calls folded into loops, peers made rank-relative),
with the ops of one-sided communication and MPI-IO and the names of their windows and files
(:mod:`.ops`).
"""
