"""Buffer specifications and integer arguments of point-to-point calls, as mpi4py 4.1 takes
them: one case per entry of CASES, each run on MPI_COMM_SELF (a message to oneself) and
printed as one JSON line ``{"case": name, "outcome": [...]}``.

The outcome is ``["ok", value]`` (what the receive buffer holds afterwards, the status's
count...), ``["MPI.Exception", error class]`` for an MPI error (the class, not the text,
which differs between libraries), or ``[exception type, message]`` for mpi4py's own checks.
``tests/mpi4py/msgbuffer/test_mpi4py_msgspec.py`` runs this script under the real mpi4py (one
process) and under the stand-in, and compares the lines. ``python msgspec_cases.py NAME``
runs one case.
"""

import array
import json
import sys

import numpy as np
from mpi4py import MPI

SELF = MPI.COMM_SELF
P = MPI.PROC_NULL


def sendrecv(smsg, rmsg, tag=0):
    """Send ``smsg`` to oneself and receive it into ``rmsg``; the status's byte count."""
    status = MPI.Status()
    SELF.Sendrecv(smsg, 0, tag, rmsg, 0, MPI.ANY_TAG, status)
    return status.Get_count(MPI.BYTE)


def isend_recv(smsg, rmsg, tag=0):
    """The same with Isend, Recv and Wait (the buffer read by the nonblocking send)."""
    req = SELF.Isend(smsg, 0, tag)
    status = MPI.Status()
    try:
        SELF.Recv(rmsg, 0, MPI.ANY_TAG, status)
    except Exception:  # the receive refused its buffer: take the message all the same
        SELF.Recv(bytearray(64), 0, MPI.ANY_TAG)
        raise
    finally:
        req.Wait()
    return status.Get_count(MPI.BYTE)


def data(buf):
    """A buffer's contents as a JSON list."""
    if isinstance(buf, np.ndarray):
        return buf.reshape(-1).tolist()
    if isinstance(buf, array.array):
        return buf.tolist()
    return list(bytes(buf))


def received(smsg, rmsg, via=sendrecv):
    """Send ``smsg``, receive into ``rmsg``: the count and the receive buffer's contents."""
    count = via(smsg, rmsg)
    rbuf = rmsg[0] if isinstance(rmsg, list | tuple) else rmsg
    return [count, None if rbuf is None or rbuf is MPI.BOTTOM else data(rbuf)]


def tag_of(tag):
    status = MPI.Status()
    SELF.Sendrecv(bytearray(1), 0, tag, bytearray(1), 0, MPI.ANY_TAG, status)
    return status.Get_tag()


def source_of(source):
    status = MPI.Status()
    SELF.Sendrecv(bytearray(1), 0, 0, bytearray(1), source, MPI.ANY_TAG, status)
    return [status.Get_source(), status.Get_count(MPI.BYTE)]


class Index:
    """Only ``__index__``: what operator.index takes."""

    def __index__(self):
        return 0


class Int:
    """Only ``__int__``: what int() takes."""

    def __int__(self):
        return 0


def i4(*values):
    return array.array("i", values)


def f8(*values):
    return np.array(values, dtype="d")


BYTES = b"abcdefgh"

CASES = {
    # -- a buffer alone: anything with the buffer protocol, its format giving the type ---
    "bytes": lambda: received(BYTES, bytearray(8)),
    "bytearray": lambda: received(bytearray(BYTES), bytearray(8)),
    "memoryview": lambda: received(memoryview(BYTES), bytearray(8)),
    "memoryview of a slice": lambda: received(memoryview(BYTES)[2:5], bytearray(3)),
    "array.array": lambda: received(i4(1, 2, 3), i4(0, 0, 0)),
    "numpy array": lambda: received(f8(1.5, 2.5), f8(0, 0)),
    "numpy 2-d array": lambda: received(np.arange(6.0).reshape(2, 3), np.zeros((2, 3))),
    "numpy Fortran-ordered": lambda: received(np.asfortranarray(np.arange(6.0).reshape(2, 3)),
                                              np.zeros((3, 2))),
    "numpy 0-d array": lambda: received(np.array(7.25), np.zeros(())),
    "numpy scalar": lambda: received(np.float64(7.25), np.zeros(1)),
    "numpy int32 scalar": lambda: received(np.int32(-3), np.zeros(1, "i")),
    "numpy bool array": lambda: received(np.array([True, False]), np.zeros(2, bool)),
    "numpy complex": lambda: received(np.array([1 + 2j]), np.zeros(1, complex)),
    "numpy int8 into uint8": lambda: received(np.array([-1, 2], "b"), np.zeros(2, "B")),
    "numpy into bytearray": lambda: received(np.array([1], "i"), bytearray(4)),
    "numpy read-only send": lambda: received(np.frombuffer(BYTES, "B"), bytearray(8)),
    "numpy non-contiguous": lambda: received(np.arange(6.0)[::2], np.zeros(3)),
    "numpy non-native byte order": lambda: received(np.array([1], ">i4"), np.zeros(1, ">i4")),
    "numpy non-native with a datatype": lambda: received([np.array([1], ">i4"), MPI.INT],
                                                         [np.zeros(1, ">i4"), MPI.INT]),
    "numpy structured": lambda: received(np.zeros(2, "i4,f8"), np.zeros(2, "i4,f8")),
    "numpy object array": lambda: received(np.array([None]), np.zeros(1)),
    "empty bytearray": lambda: received(bytearray(), bytearray()),
    "Alloc_mem": lambda: received(BYTES, MPI.Alloc_mem(8)),
    # -- refused buffers -------------------------------------------------------------
    "into bytes": lambda: received(BYTES, b"12345678"),
    "into a read-only numpy array": lambda: received(BYTES, np.frombuffer(b"12345678", "B")),
    "into a read-only memoryview": lambda: received(BYTES, memoryview(bytearray(8)).toreadonly()),
    "into a numpy scalar": lambda: received(np.float64(2.5), np.float64(0)),
    "an int": lambda: received(5, bytearray(1)),
    "a list of ints": lambda: received([1, 2, 3, 4], bytearray(4)),
    "a dict": lambda: received({1: 2}, bytearray(1)),
    "a str": lambda: received("abcd", bytearray(4)),
    "None": lambda: received(None, bytearray(1)),
    "an object": lambda: received(object(), bytearray(1)),
    "a list of one": lambda: received([BYTES], bytearray(8)),
    "a list of five": lambda: received([BYTES, 8, 0, "B", None], bytearray(8)),
    "an empty list": lambda: received([], bytearray(8)),
    # -- [buf, datatype], typecodes ------------------------------------------------------
    "[buf, MPI.INT]": lambda: received([BYTES, MPI.INT], bytearray(8)),
    "[buf, 'i']": lambda: received([BYTES, "i"], [bytearray(8), "i"]),
    "[buf, 'd']": lambda: received([BYTES, "d"], [bytearray(8), "d"]),
    "[buf, 'B'] of doubles": lambda: received([f8(1.0), "B"], f8(0)),
    "[buf, 'c']": lambda: received([BYTES, "c"], [bytearray(8), MPI.CHAR]),
    "[buf, 'q']": lambda: received([BYTES, "q"], [bytearray(8), "Q"]),
    "[buf, 'Zd']": lambda: received([BYTES * 2, "Zd"], [bytearray(16), "Zd"]),
    "[buf, 'f8']": lambda: received([BYTES, "f8"], [bytearray(8), "f8"]),
    "[buf, 'i4']": lambda: received([BYTES, "i4"], [bytearray(8), "i4"]),
    "[buf, '?']": lambda: received([b"\x01\x00", "?"], [bytearray(2), "?"]),
    "[buf, 'float']": lambda: received([BYTES, "float"], [bytearray(8), "f"]),
    "[buf, 'zz']": lambda: received([BYTES, "zz"], bytearray(8)),
    "[buf, '']": lambda: received([BYTES, ""], bytearray(8)),
    "[buf, DATATYPE_NULL]": lambda: received([BYTES, MPI.DATATYPE_NULL], bytearray(8)),
    "[buf, 1-byte type of 3 bytes]": lambda: received([b"abc", "i"], bytearray(4)),
    "[buf, None]": lambda: received([BYTES, None], bytearray(8)),
    "[buf, a vector type]": lambda: received(
        [BYTES, MPI.CHAR.Create_vector(2, 1, 4).Commit()], bytearray(2)),
    "[buf, 1, a vector type]": lambda: received(
        [BYTES, 1, MPI.CHAR.Create_vector(2, 1, 4).Commit()], bytearray(2)),
    "[buf, uncommitted type]": lambda: received([BYTES, 1, MPI.CHAR.Create_contiguous(2)],
                                                bytearray(2)),
    # -- [buf, count], [buf, count, type], [buf, (count, displ), type], 4 items -----------
    "[buf, 3]": lambda: received([BYTES, 3], bytearray(8)),
    "[buf, 0]": lambda: received([BYTES, 0], bytearray(8)),
    "[buf, 2, 'i']": lambda: received([BYTES, 2, "i"], bytearray(8)),
    "[buf, 1, MPI.DOUBLE]": lambda: received([BYTES, 1, MPI.DOUBLE], f8(0)),
    "[buf, (2, 1), 'B']": lambda: received([BYTES, (2, 1), "B"], bytearray(8)),
    "[buf, [2, 1], 'B']": lambda: received([BYTES, [2, 1], "B"], bytearray(8)),
    "[buf, (2, 3)]": lambda: received([BYTES, (2, 3)], bytearray(8)),
    "[buf, (None, 3)]": lambda: received([BYTES, (None, 3)], bytearray(8)),
    "[buf, (None, None)]": lambda: received([BYTES, (None, None)], bytearray(8)),
    "[buf, (2, 1, 0), 'B']": lambda: received([BYTES, (2, 1, 0), "B"], bytearray(8)),
    "[buf, 2, 1, 'B']": lambda: received([BYTES, 2, 1, "B"], bytearray(8)),
    "[buf, None, 1, 'B']": lambda: received([BYTES, None, 1, "B"], bytearray(8)),
    "[buf, 2, None, 'B']": lambda: received([BYTES, 2, None, "B"], bytearray(8)),
    "[buf, 1, 1, 'i']": lambda: received([BYTES, 1, 1, "i"], bytearray(8)),
    "into [buf, 1, 1, 'i']": lambda: received([BYTES, 1, "i"], [bytearray(8), 1, 1, "i"]),
    "into [buf, (None, 1), 'i'] later bytes": lambda: received(
        [BYTES, 1, "i"], [bytearray(8), (None, 1), "i"]),
    "[buf, 3, 'i'] past the end": lambda: received([BYTES, 3, "i"], bytearray(12)),
    "into [buf, 3, 'i'] larger than buf": lambda: received([BYTES, 2, "i"],
                                                          [bytearray(8), 3, "i"]),
    "[buf, -1]": lambda: received([BYTES, -1], bytearray(8)),
    "[buf, 0, -1, 'B']": lambda: received([BYTES, 0, -1, "B"], bytearray(8)),
    "[buf, 0, 9, 'B']": lambda: received([BYTES, 0, 9, "B"], bytearray(8)),
    "[buf, 0, 8, 'B']": lambda: received([BYTES, 0, 8, "B"], bytearray(8)),
    "[buf, 1, 3, 'i'] displacement out of bounds": lambda: received([BYTES, 1, 3, "i"],
                                                                   bytearray(8)),
    "[buf, (None, 1), 'B'] of 3 ints": lambda: received([i4(1, 2, 3), (None, 1), "B"],
                                                        bytearray(12)),
    "[buf, 1.0, 'B']": lambda: received([BYTES, 1.0, "B"], bytearray(8)),
    "[buf, '2', 'B']": lambda: received([BYTES, "2", "B"], bytearray(8)),
    "[buf, True, 'B']": lambda: received([BYTES, True, "B"], bytearray(8)),
    "[buf, np.int64(2), 'B']": lambda: received([BYTES, np.int64(2), "B"], bytearray(8)),
    "[buf, np.array(2), 'B']": lambda: received([BYTES, np.array(2), "B"], bytearray(8)),
    "[buf, np.array([2]), 'B']": lambda: received([BYTES, np.array([2]), "B"], bytearray(8)),
    "[buf, np.float64(2), 'B']": lambda: received([BYTES, np.float64(2), "B"], bytearray(8)),
    "[buf, Index(), 'B']": lambda: received([BYTES, Index(), "B"], bytearray(8)),
    "[buf, Int(), 'B']": lambda: received([BYTES, Int(), "B"], bytearray(8)),
    "[buf, 1, 1.0, 'B']": lambda: received([BYTES, 1, 1.0, "B"], bytearray(8)),
    "[buf, 2, 'B'] of a tuple spec": lambda: received((BYTES, 2, "B"), bytearray(8)),
    "[bytes, 'B', extra None] (3 items)": lambda: received([BYTES, None, "B"], bytearray(8)),
    # -- None and BOTTOM ---------------------------------------------------------------
    "[None, 0, 'B']": lambda: received([None, 0, "B"], [None, 0, "B"]),
    "[None, 'B']": lambda: received([None, "B"], [None, "B"]),
    "[None, 1, 'B']": lambda: received([None, 1, "B"], bytearray(1)),
    "[None, 0]": lambda: received([None, 0], [None, 0]),
    "[BOTTOM, 0, 'B']": lambda: received([MPI.BOTTOM, 0, "B"], [MPI.BOTTOM, 0, "B"]),
    "[BOTTOM, 'B']": lambda: received([MPI.BOTTOM, "B"], [MPI.BOTTOM, "B"]),
    "BOTTOM alone": lambda: received(MPI.BOTTOM, bytearray(0)),
    "[BOTTOM, 0]": lambda: received([MPI.BOTTOM, 0], bytearray(0)),
    "BOTTOM with absolute addresses": lambda: bottom(),
    "BOTTOM with a struct of two arrays": lambda: bottom_struct(),
    "[buf, 'B'] into BOTTOM": lambda: bottom_recv(),
    # -- PROC_NULL: the buffer is not read ------------------------------------------------
    "Send(object(), PROC_NULL)": lambda: SELF.Send(object(), P),
    "Send(None, PROC_NULL)": lambda: SELF.Send(None, P),
    "Recv(object(), PROC_NULL)": lambda: status_of(lambda s: SELF.Recv(object(), P, 0, s)),
    "Recv(bytes, PROC_NULL)": lambda: status_of(lambda s: SELF.Recv(BYTES, P, 0, s)),
    "Isend([buf, 1, 2, 3, 4], PROC_NULL)": lambda: SELF.Isend([BYTES, 1, 2, 3, 4], P).Wait(),
    "Send_init(object(), PROC_NULL)": lambda: start_wait(SELF.Send_init(object(), P)),
    "Sendrecv(object(), PROC_NULL)": lambda: SELF.Sendrecv(object(), P, 0, None, P),
    # -- integer arguments: dest, source, tag ---------------------------------------------
    "tag 1.7": lambda: tag_of(1.7),
    "tag np.float64(2.9)": lambda: tag_of(np.float64(2.9)),
    "tag True": lambda: tag_of(True),
    "tag np.int8(4)": lambda: tag_of(np.int8(4)),
    "tag np.array(5)": lambda: tag_of(np.array(5)),
    "tag np.array([6])": lambda: tag_of(np.array([6])),
    "tag np.bool_(True)": lambda: tag_of(np.bool_(True)),
    "tag Index()": lambda: tag_of(Index()),
    "tag Int()": lambda: tag_of(Int()),
    "tag '3'": lambda: tag_of("3"),
    "tag None": lambda: tag_of(None),
    "tag 3+0j": lambda: tag_of(3 + 0j),
    "tag -5": lambda: tag_of(-5),
    "tag 2**31": lambda: tag_of(2**31),
    "tag -(2**31) - 1": lambda: tag_of(-(2**31) - 1),
    "tag 2**40": lambda: tag_of(2**40),
    "tag 32767 (the least TAG_UB)": lambda: tag_of(32767),
    "tag ANY_TAG on a send": lambda: tag_of(MPI.ANY_TAG),
    "source 0.0": lambda: source_of(0.0),
    "source np.array(0)": lambda: source_of(np.array(0)),
    "source False": lambda: source_of(False),
    "source Int()": lambda: source_of(Int()),
    "source Index()": lambda: source_of(Index()),
    "source None": lambda: source_of(None),
    "source 1": lambda: source_of(1),
    "source ANY_SOURCE": lambda: source_of(MPI.ANY_SOURCE),
    "dest 0.5": lambda: SELF.Sendrecv(bytearray(1), 0.5, 0, bytearray(1), 0),
    "dest 1": lambda: SELF.Send(bytearray(1), 1),
    "dest -7": lambda: SELF.Send(bytearray(1), -7),
    "dest '0'": lambda: SELF.Send(bytearray(1), "0"),
    "dest 2**40": lambda: SELF.Send(bytearray(1), 2**40),
    "dest ANY_SOURCE": lambda: SELF.Send(bytearray(1), MPI.ANY_SOURCE),
    "dest PROC_NULL as np.int64": lambda: SELF.Send(bytearray(1), np.int64(P)),
    # -- receives: truncation, counts ----------------------------------------------------
    "truncated": lambda: received(BYTES, bytearray(4)),
    "shorter message": lambda: received(b"ab", bytearray(4)),
    "count in elements": lambda: count_of([BYTES, "i"], MPI.INT),
    "count not whole": lambda: count_of([b"abc", "B"], MPI.INT),
    # -- Isend reads the buffer spec the same way ---------------------------------------
    "Isend [buf, (2, 1), 'B']": lambda: received([BYTES, (2, 1), "B"], bytearray(8),
                                                 via=isend_recv),
    "Isend numpy 0-d": lambda: received(np.array(1.5), np.zeros(1), via=isend_recv),
    "Isend into bytes": lambda: received(BYTES, b"12345678", via=isend_recv),
    # -- lowercase calls take the tag and dest the same way --------------------------------
    "send obj tag 2.5": lambda: obj_tag(2.5),
    "send obj tag '1'": lambda: obj_tag("1"),
    "recv obj into a buffer": lambda: obj_into(),
    "probe source 0.0": lambda: probe_source(0.0),
    "iprobe source '0'": lambda: SELF.Iprobe("0"),
}


def status_of(call):
    status = MPI.Status()
    call(status)
    return [status.Get_source(), status.Get_tag(), status.Get_count(MPI.BYTE)]


def start_wait(req):
    req.Start()
    req.Wait()
    req.Free()


def count_of(smsg, datatype):
    status = MPI.Status()
    SELF.Sendrecv(smsg, 0, 0, bytearray(16), 0, 0, status)
    return [status.Get_count(datatype), status.Get_elements(datatype)]


def bottom():
    src = np.array([1, 2, 3, 4], dtype="i")
    dst = np.zeros(4, dtype="i")
    stype = MPI.INT.Create_hindexed([2], [MPI.Get_address(src) + 4]).Commit()
    rtype = MPI.INT.Create_hindexed([2], [MPI.Get_address(dst)]).Commit()
    try:
        count = sendrecv([MPI.BOTTOM, 1, stype], [MPI.BOTTOM, 1, rtype])
    finally:
        stype.Free()
        rtype.Free()
    return [count, dst.tolist()]


def bottom_struct():
    a = np.array([1.5], dtype="d")
    b = np.array([7], dtype="i")
    ra = np.zeros(1, dtype="d")
    rb = np.zeros(1, dtype="i")
    stype = MPI.Datatype.Create_struct([1, 1], [MPI.Get_address(a), MPI.Get_address(b)],
                                       [MPI.DOUBLE, MPI.INT]).Commit()
    rtype = MPI.Datatype.Create_struct([1, 1], [MPI.Get_address(ra), MPI.Get_address(rb)],
                                       [MPI.DOUBLE, MPI.INT]).Commit()
    try:
        count = sendrecv([MPI.BOTTOM, stype], [MPI.BOTTOM, rtype])
    finally:
        stype.Free()
        rtype.Free()
    return [count, ra.tolist(), rb.tolist()]


def bottom_recv():
    dst = bytearray(4)
    rtype = MPI.BYTE.Create_hindexed([4], [MPI.Get_address(dst)]).Commit()
    try:
        count = sendrecv([b"wxyz", "B"], [MPI.BOTTOM, rtype])
    finally:
        rtype.Free()
    return [count, list(dst)]


def obj_tag(tag):
    req = SELF.isend("x", 0, tag)
    status = MPI.Status()
    obj = SELF.recv(None, 0, MPI.ANY_TAG, status)
    req.wait()
    return [obj, status.Get_tag()]


def obj_into():
    req = SELF.isend({"a": 1}, 0, 0)
    obj = SELF.recv(bytearray(64), 0, 0)
    req.wait()
    return obj


def probe_source(source):
    req = SELF.isend("x", 0, 0)
    status = MPI.Status()
    SELF.probe(source, 0, status)
    SELF.recv(None, 0, 0)
    req.wait()
    return status.Get_source()


def outcome(case):
    """What one case gives (see the module)."""
    try:
        value = case()
    except MPI.Exception as e:
        return ["MPI.Exception", e.Get_error_class()]
    except Exception as e:  # the exception is the outcome
        return [type(e).__name__, str(e)]
    return ["ok", value]


def main(names):
    for name in names or CASES:
        print(json.dumps({"case": name, "outcome": outcome(CASES[name])}, default=repr), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
