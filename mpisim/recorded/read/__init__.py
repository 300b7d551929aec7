"""Reading a recording: the text lines a process's log holds (:mod:`.lines`, its grammar),
read fast into columns (:mod:`.columns`), as what a recording holds (:mod:`.records`: each
process's log, its calls, datatypes and call sites, the run), with the call sites' source
lines (:mod:`.sources`); :mod:`.trace` reads a ``.trace`` file or a directory of rank logs
and documents the log format. It imports nothing else of :mod:`mpisim.recorded`.
"""
