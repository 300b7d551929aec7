# C types for bench/floor.py when it is compiled by Cython (python -m bench.floor
# --compiled): its records become C structs with typed fields, the ring's methods C
# functions, their numeric locals C numbers. The pure-Python module ignores this file.
cimport cython

ctypedef long long i64


cdef class Entry:
    cdef public bint done
    cdef public double done_at
    cdef public i64 offset, size
    cdef public Py_ssize_t row


cdef class Recv:
    cdef public int peer, ctx
    cdef public object tag, event, status


cdef class Status:
    cdef public object count, source, tag


cdef class Msg:
    cdef public int src, dst, ctx
    cdef public object tag
    cdef public i64 nbytes
    cdef public Py_ssize_t row


cdef class Pair:
    cdef public i64 posted
    cdef public double last_arrival


cdef class Rank:
    cdef public i64 capacity, head, tail, used, live, scan
    cdef public int rank, size
    cdef public list due, entries, posted, unexpected


cdef class Ring:
    cdef public object env
    cdef public int n
    cdef public bytearray calls, msgs, entries
    cdef public i64 sent
    cdef public dict pairs
    cdef public list port_free, ranks

    cpdef enter(self, Rank st, int code, object count, object peer, object tag)

    @cython.locals(now=double, start=double, end=double, arrive=double, pair=Pair, m=Msg,
                   key=i64)
    cpdef double post(self, Rank st, i64 count, int dest, object tag, int mode)

    @cython.locals(now=double, i=Py_ssize_t, n=i64, e=Entry, q=list, largest=i64)
    cpdef bsend(self, Rank st, i64 count, int dest, object tag)

    @cython.locals(i=Py_ssize_t, e=Entry, due=list)
    cpdef settle(self, Rank st, double now)

    @cython.locals(end=double)
    cpdef send(self, Rank st, i64 count, int dest, object tag)

    @cython.locals(r=Recv, m=Msg)
    cpdef recv(self, Rank st, i64 count, int source, object tag)

    @cython.locals(m=Msg, st=Rank, r=Recv)
    cpdef arrive(self, object ev)

    @cython.locals(now=double)
    cpdef Status deliver(self, Msg m)


cpdef _event(object env, object callbacks, object value)
