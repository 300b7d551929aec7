"""``MPI.Datatype`` and what names one, below the buffer specs that read a datatype: the
class (:mod:`.datatype`), its predefined table (:mod:`.predefined`), the typecodes
(:mod:`.typecodes`), ``Create_darray``'s decomposition (:mod:`.darray`), C integer
arguments (:mod:`.integers`) and the attributes of datatypes and windows (:mod:`.objattrs`).
"""
