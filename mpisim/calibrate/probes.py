"""The probe programs of ``mpisim calibrate``, run with the user's Python under the user's
``mpiexec -n 2``: ``python probes.py '{"probe": "errors", ...}'``.

Standalone (only mpi4py and the standard library): it is shipped as package data and run by
another interpreter. Rank 0 prints one JSON object per line (flushed at once), so what was
measured before a hang or a crash is kept; the caller runs every probe under a timeout.
A blocking call is told from a local one by a receiver that sleeps before it enters MPI
(``SLEEP`` seconds): a call that returns well before that did not wait for it. Risky calls
(a bsend that may fail, after which some libraries stall the pair's communicator) are made
on a communicator of their own (``Dup``), so that the other traffic goes on.
"""

import json
import sys
import time

from mpi4py import MPI

WORLD = MPI.COMM_WORLD
RANK = WORLD.Get_rank()
CTRL = 7  # tag of the control messages on COMM_WORLD


def emit(**record):
    if RANK == 0:
        print(json.dumps(record), flush=True)


def error_class(e):
    """The MPI error class of an mpi4py exception, by name where the standard has one."""
    try:
        cls = e.Get_error_class()
    except Exception:
        return type(e).__name__
    for name in ("ERR_BUFFER", "ERR_ARG", "ERR_OTHER", "ERR_INTERN", "ERR_COUNT", "ERR_COMM",
                 "ERR_UNKNOWN", "ERR_TRUNCATE", "ERR_NO_MEM", "ERR_UNSUPPORTED_OPERATION"):
        if cls == getattr(MPI, name):
            return "MPI_" + name
    return f"class {cls}"


def attempt(call):
    """'ok' or the error class of ``call()``."""
    try:
        call()
        return "ok"
    except NotImplementedError:
        return "NotImplementedError"
    except MPI.Exception as e:
        return error_class(e)


def progress(seconds):
    """Make progress without matching anything, for ``seconds``."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        WORLD.Iprobe(source=MPI.ANY_SOURCE, tag=99)


def data(n):
    return [bytearray(max(n, 1)), n, MPI.BYTE]


# -- probes --------------------------------------------------------------------------------
def info(p):
    emit(probe="info", library=MPI.Get_library_version().splitlines()[0].strip(),
         bsend_overhead=MPI.BSEND_OVERHEAD, size=WORLD.Get_size(),
         mpi_version=list(MPI.Get_version()))


def errors(p):
    """Detach with none attached, bsend with none attached (0 B and large), attaches of
    small sizes, attach while attached."""
    big = p.get("large", 100000)
    out = {}
    if RANK == 0:
        try:
            got = MPI.Detach_buffer()
            out["detach_none"] = "ok"
            out["detach_none_size"] = len(got) if got is not None else 0
        except MPI.Exception as e:
            out["detach_none"] = error_class(e)
    for key, n in (("bsend_none_0", 0), ("bsend_none_large", big)):
        comm = WORLD.Dup()
        if RANK == 0:
            out[key] = attempt(lambda n=n, comm=comm: comm.Bsend(data(n), dest=1, tag=1))
            WORLD.send(out[key] == "ok", dest=1, tag=CTRL)
        elif WORLD.recv(source=0, tag=CTRL):
            comm.Recv(data(n), source=0, tag=1)
    ov = MPI.BSEND_OVERHEAD
    for n in sorted({0, 1, 8, ov - 1, ov}, reverse=True):
        if RANK == 0:
            res = attempt(lambda n=n: MPI.Attach_buffer(bytearray(n)))
            out[f"attach_{n}"] = res
            if res != "ok":  # a refused attach may leave one attached: a valid one then fails
                again = attempt(lambda: MPI.Attach_buffer(bytearray(4096)))
                if again != "ok":
                    out[f"attach_{n}_left_attached"] = True
            attempt(MPI.Detach_buffer)
    if RANK == 0:
        MPI.Attach_buffer(bytearray(4096))
        out["attach_twice"] = attempt(lambda: MPI.Attach_buffer(bytearray(4096)))
        MPI.Detach_buffer()
    comm = WORLD.Dup()
    if RANK == 0:
        out["comm_attach_buffer"] = attempt(lambda: comm.Attach_buffer(bytearray(4096)))
        if out["comm_attach_buffer"] == "ok":
            comm.Detach_buffer()
    emit(probe="errors", **out)


def sleeping_send(p):
    """Standard sends of ``sizes`` to a receiver that sleeps, makes progress without
    matching (an Iprobe for another tag), sleeps again, then receives. Rank 0 reports how
    long each Send took: about 0 (local), about one sleep (it needed the receiver's
    progress), about two (it needed the match)."""
    sleep = p["sleep"]
    for n in p["sizes"]:
        if RANK == 0:
            WORLD.send(n, dest=1, tag=CTRL)
            time.sleep(sleep / 4)  # the receiver is asleep now
            t = time.perf_counter()
            WORLD.Send(data(n), dest=1, tag=1)
            emit(probe="sleeping_send", size=n, seconds=round(time.perf_counter() - t, 4))
            WORLD.recv(source=1, tag=CTRL)
        else:
            WORLD.recv(source=0, tag=CTRL)
            time.sleep(sleep)
            progress(sleep / 10)
            time.sleep(sleep)
            WORLD.Recv(data(n), source=0, tag=1)
            WORLD.send(None, dest=0, tag=CTRL)


def flood(p):
    """For each of ``sizes``: up to ``count`` standard sends of that many bytes to a
    receiver asleep ``sleep`` s: how many return at once, and which one first waited."""
    sleep, count = p["sleep"], p["count"]
    for n in p["sizes"]:
        comm = WORLD.Dup()
        if RANK == 0:
            WORLD.send(None, dest=1, tag=CTRL)
            time.sleep(sleep / 4)
            start = time.perf_counter()
            quick, first_wait = 0, None
            for i in range(count):
                t = time.perf_counter()
                comm.Send(data(n), dest=1, tag=1)
                took = time.perf_counter() - t
                if first_wait is None and took < sleep / 2 and \
                        time.perf_counter() - start < sleep * 0.75:
                    quick += 1
                elif first_wait is None:
                    first_wait = i
            emit(probe="flood", mode="send", size=n, count=count, sleep=sleep,
                 returned_at_once=quick, first_wait=first_wait)
        else:
            WORLD.recv(source=0, tag=CTRL)
            time.sleep(sleep)
            for _ in range(count):
                comm.Recv(data(n), source=0, tag=1)
        WORLD.Barrier()


def release(p):
    """How a receiver's progress frees the room of eager sends it has not taken: ``count``
    8-byte sends to a receiver that sleeps ``sleep`` s, then makes ``polls`` MPI_Iprobe calls
    (of a tag nobody sends) ``gap`` s apart, then receives every message, ``gap`` s apart.
    Which sends waited, and when (s after the receiver woke) each returned."""
    sleep, gap, count, polls = p["sleep"], p["gap"], p["count"], p["polls"]
    comm = WORLD.Dup()
    if RANK == 0:
        WORLD.send(None, dest=1, tag=CTRL)
        start = time.perf_counter()
        waited = []
        for i in range(count):
            t = time.perf_counter()
            comm.Send(data(8), dest=1, tag=1)
            now = time.perf_counter()
            if now - t > gap / 3:
                waited.append([i, round(now - start - sleep, 4)])
        emit(probe="release", sleep=sleep, gap=gap, count=count, polls=polls, waited=waited)
    else:
        WORLD.recv(source=0, tag=CTRL)
        time.sleep(sleep)
        for _ in range(polls):
            comm.Iprobe(source=0, tag=2)
            time.sleep(gap)
        for _ in range(count):
            comm.Recv(data(8), source=0, tag=1)
            time.sleep(gap)
    WORLD.Barrier()


def direct(p):
    """Bsends of each of ``sizes`` with no buffer attached, each on its own communicator:
    accepted (straight to the transport) or refused."""
    for n in p["sizes"]:
        comm = WORLD.Dup()
        if RANK == 0:
            res = attempt(lambda n=n, comm=comm: comm.Bsend(data(n), dest=1, tag=1))
            emit(probe="direct", size=n, result=res)
            WORLD.send(res == "ok", dest=1, tag=CTRL)
        elif WORLD.recv(source=0, tag=CTRL):
            comm.Recv(data(n), source=0, tag=1)


def behind_rendezvous(p):
    """An MPI_Isend of ``large`` bytes (not matched yet), then a standard send of
    ``small`` bytes to a receiver asleep ``sleep`` s: how long the small one took."""
    sleep, large, small = p["sleep"], p["large"], p["small"]
    if RANK == 0:
        WORLD.send(None, dest=1, tag=CTRL)
        time.sleep(sleep / 4)
        req = WORLD.Isend(data(large), dest=1, tag=1)
        t = time.perf_counter()
        WORLD.Send(data(small), dest=1, tag=2)
        took = time.perf_counter() - t
        req.Wait()
        emit(probe="behind_rendezvous", large=large, small=small, sleep=sleep,
             seconds=round(took, 4))
    else:
        WORLD.recv(source=0, tag=CTRL)
        time.sleep(sleep)
        WORLD.Recv(data(large), source=0, tag=1)
        WORLD.Recv(data(small), source=0, tag=2)


def posted_rendezvous(p):
    """A receiver that posts an Irecv, sleeps ``sleep`` s outside MPI, then waits; a
    standard send of ``size`` bytes (rendezvous) made while it sleeps: how long it took
    (about 0: the posted receive answered at once; about the sleep: the receiver answered
    the request-to-send only at its next MPI call)."""
    sleep, n = p["sleep"], p["size"]
    if RANK == 0:
        WORLD.recv(source=1, tag=CTRL)  # the receive is posted
        time.sleep(sleep / 4)
        t = time.perf_counter()
        WORLD.Send(data(n), dest=1, tag=1)
        emit(probe="posted_rendezvous", size=n, sleep=sleep,
             seconds=round(time.perf_counter() - t, 4))
    else:
        req = WORLD.Irecv(data(n), source=0, tag=1)
        WORLD.send(None, dest=0, tag=CTRL)
        time.sleep(sleep)
        req.Wait()


def rma_target(p):
    """One-sided communication to a target asleep ``sleep`` s outside MPI (MPI 4.1 §12.5):
    rank 0 locks rank 1, puts 8 bytes and unlocks, over a window of the program's memory
    (MPI_Win_create) and one MPI allocated (MPI_Win_allocate), with and without
    MPI_MODE_NOCHECK; the seconds each call took (about the sleep: it waited for the
    target's next MPI call)."""
    sleep = p["sleep"]
    for flavor in ("create", "allocate"):
        for nocheck in (False, True):
            try:
                if flavor == "create":
                    memory = bytearray(8)
                    win = MPI.Win.Create(memory, 1, MPI.INFO_NULL, WORLD)
                else:
                    win = MPI.Win.Allocate(8, 1, MPI.INFO_NULL, WORLD)
            except (NotImplementedError, MPI.Exception) as e:
                emit(probe="rma_target", flavor=flavor, error=str(e)[:200])
                return
            WORLD.Barrier()
            if RANK == 1:
                time.sleep(sleep)
            else:
                _time_lock_put_unlock(win, flavor, nocheck, sleep)
            WORLD.Barrier()
            win.Free()


def _time_lock_put_unlock(win, flavor, nocheck, sleep):
    """Rank 0's part of ``rma_target``: each call's seconds, emitted."""
    times = []
    for call in (lambda: win.Lock(1, MPI.LOCK_EXCLUSIVE, MPI.MODE_NOCHECK if nocheck else 0),
                 lambda: win.Put(bytearray(8), 1), lambda: win.Unlock(1)):
        t = time.perf_counter()
        call()
        times.append(round(time.perf_counter() - t, 4))
    emit(probe="rma_target", flavor=flavor, nocheck=nocheck, sleep=sleep, lock=times[0],
         put=times[1], unlock=times[2])


def fit_entries(p):
    """For each trial (attach, k, m): attach that many bytes, bsend k messages of m bytes
    (each on its own communicator, to a receiver that does not receive them yet), report
    how many were accepted, then let the receiver take them and detach."""
    for attach, k, m in p["trials"]:
        comms = [WORLD.Dup() for _ in range(k)]
        if RANK == 0:
            MPI.Attach_buffer(bytearray(attach))
            ok = 0
            error = None
            for c in comms:
                res = attempt(lambda c=c, m=m: c.Bsend(data(m), dest=1, tag=1))
                if res != "ok":
                    error = res
                    break
                ok += 1
            emit(probe="fit_entries", attach=attach, k=k, size=m, accepted=ok, error=error)
            WORLD.send(ok, dest=1, tag=CTRL)
            MPI.Detach_buffer()
        else:
            ok = WORLD.recv(source=0, tag=CTRL)
            for c in comms[:ok]:
                c.Recv(data(m), source=0, tag=1)
        WORLD.Barrier()


def holes(p):
    """For each case: four pending entries of m bytes in ``attach`` bytes; the receiver
    takes the entries named in ``receive``; then a bsend of ``then`` bytes: accepted?"""
    m, attach = p["size"], p["attach"]
    for receive, then in p["cases"]:
        comms = [WORLD.Dup() for _ in range(5)]
        if RANK == 0:
            MPI.Attach_buffer(bytearray(attach))
            placed = [attempt(lambda c=c: c.Bsend(data(m), dest=1, tag=1)) for c in comms[:4]]
            WORLD.send(placed, dest=1, tag=CTRL)
            WORLD.recv(source=1, tag=CTRL)  # the receiver has taken its entries
            progress(0.02)
            res = attempt(lambda then=then, c=comms[4]: c.Bsend(data(then), dest=1, tag=1))
            emit(probe="holes", size=m, attach=attach, receive=receive, then=then,
                 placed=placed, result=res)
            WORLD.send(res == "ok", dest=1, tag=CTRL)
            MPI.Detach_buffer()
        else:
            placed = WORLD.recv(source=0, tag=CTRL)
            for i in receive:
                if placed[i] == "ok":
                    comms[i].Recv(data(m), source=0, tag=1)
            WORLD.send(None, dest=0, tag=CTRL)
            for i in range(4):
                if i not in receive and placed[i] == "ok":
                    comms[i].Recv(data(m), source=0, tag=1)
            if WORLD.recv(source=0, tag=CTRL):
                comms[4].Recv(data(then), source=0, tag=1)
        WORLD.Barrier()


def ibsend(p):
    """MPI_Ibsend of ``size`` bytes to a receiver asleep ``sleep`` s: is the request
    complete at once; how long does detach then wait."""
    sleep, n = p["sleep"], p["size"]
    if RANK == 0:
        MPI.Attach_buffer(bytearray(n + 4 * MPI.BSEND_OVERHEAD + 64))
        WORLD.send(None, dest=1, tag=CTRL)
        time.sleep(sleep / 4)
        req = WORLD.Ibsend(data(n), dest=1, tag=1)
        done = req.Test()
        if not done:
            req.Wait()
        t = time.perf_counter()
        MPI.Detach_buffer()
        emit(probe="ibsend", size=n, sleep=sleep, complete_at_once=bool(done),
             detach_seconds=round(time.perf_counter() - t, 4))
    else:
        WORLD.recv(source=0, tag=CTRL)
        time.sleep(sleep)
        WORLD.Recv(data(n), source=0, tag=1)


def fallback(p):
    """A bsend that fails for want of buffer, then a small MPI_Send on the same
    communicator: is it matched? (Some libraries stall the pair: the caller's timeout ends
    the run, and this record is never printed after the first.)"""
    n = p["size"]
    comm = WORLD.Dup()
    if RANK == 0:
        MPI.Attach_buffer(bytearray(max(MPI.BSEND_OVERHEAD, 128)))
        res = attempt(lambda: comm.Bsend(data(n), dest=1, tag=1))
        emit(probe="fallback", size=n, bsend=res, stage="bsend")
        comm.Send(data(4), dest=1, tag=2)
        comm.recv(source=1, tag=3)
        emit(probe="fallback", size=n, bsend=res, stage="matched")
        MPI.Detach_buffer()
    else:
        comm.Recv(data(4), source=0, tag=2)
        comm.send(None, dest=0, tag=3)


def pingpong(p):
    """Round trips of each size (``repeat`` of them, after a warm-up); half the best one."""
    for n in p["sizes"]:
        buf = data(n)
        best = None
        for i in range(p["repeat"] + 2):
            WORLD.Barrier()
            t = time.perf_counter()
            if RANK == 0:
                WORLD.Send(buf, dest=1, tag=5)
                WORLD.Recv(buf, source=1, tag=5)
            else:
                WORLD.Recv(buf, source=0, tag=5)
                WORLD.Send(buf, dest=0, tag=5)
            dt = time.perf_counter() - t
            if i >= 2:
                best = dt if best is None else min(best, dt)
        emit(probe="pingpong", size=n, one_way=best / 2)


def spawn(p):
    """MPI_Comm_spawn of one process (this script, which disconnects at once) from
    MPI_COMM_SELF, ``repeat`` times: the best time from the call to its return (MPI 4.1
    §11.8.2; it returns once the child has called MPI_Init); a failure is its error class."""
    if RANK != 0:
        return
    best, failure = None, None
    for _ in range(p["repeat"]):
        t = time.perf_counter()
        try:
            child = MPI.COMM_SELF.Spawn(sys.executable, args=[__file__, '{"probe": "child"}'],
                                        maxprocs=1)
        except MPI.Exception as e:
            failure = error_class(e)
            break
        dt = time.perf_counter() - t
        child.Disconnect()
        best = dt if best is None else min(best, dt)
    emit(probe="spawn", seconds=best, error=failure)


PROBES = {f.__name__: f for f in (info, errors, sleeping_send, flood, release, direct,
                                  behind_rendezvous, posted_rendezvous, fit_entries, holes,
                                  ibsend, fallback, pingpong, rma_target, spawn)}

if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    if spec["probe"] == "child":  # spawned by the spawn probe: it only connects back
        MPI.Comm.Get_parent().Disconnect()
    elif WORLD.Get_size() < 2 and spec["probe"] != "info":
        emit(probe="error", message="needs 2 processes (mpiexec -n 2)")
    else:
        PROBES[spec["probe"]](spec)
    WORLD.Barrier()
