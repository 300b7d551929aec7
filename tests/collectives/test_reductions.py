"""6.9 to 6.11: every reduction collective gives what numpy gives, applied to every rank's
input directly, on random shapes (0-d included), datatypes and ops: natively (the ``mpi``
handle) and through the mpi4py stand-in, blocking and nonblocking, with every algorithm.

The inputs are small integers (as floats and complex numbers too), so that every
combination order the algorithms choose gives the same bits: the comparison is exact.
Ops are drawn among those 6.9.2 defines for the datatype (a wrong pair is MPI_ERR_OP, also
tested here).
"""

from __future__ import annotations

import json
import textwrap
from functools import reduce as fold
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mpisim as ms
from mpisim.collectives import ALGORITHMS
from mpisim.mpi import datatypes as dt

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
PAIRS = {"FLOAT_INT": dt.FLOAT_INT, "DOUBLE_INT": dt.DOUBLE_INT, "LONG_INT": dt.LONG_INT,
         "SHORT_INT": dt.SHORT_INT, "TWOINT": dt.TWOINT}
OPS_FOR = {"i": ["SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"],
           "f": ["SUM", "PROD", "MAX", "MIN"], "c": ["SUM", "PROD"],
           "b": ["LAND", "LOR", "LXOR"], "p": ["MAXLOC", "MINLOC"]}
"""6.9.2: the predefined ops defined for integers, floating point, complex, logicals
(C_BOOL) and the (value, index) pair types."""
KINDS = ["reduce", "allreduce", "scan", "exscan", "reduce_scatter_block", "reduce_scatter"]


def numpy_dtype(name: str) -> np.dtype:
    return PAIRS[name].numpy_dtype if name in PAIRS else np.dtype(name)


def klass(name: str) -> str:
    return "p" if name in PAIRS else {"u": "i"}.get(np.dtype(name).kind, np.dtype(name).kind)


# -- numpy's answer ---------------------------------------------------------------------------
def _loc(a: np.ndarray, b: np.ndarray, greater: bool) -> np.ndarray:
    """MAXLOC / MINLOC of two arrays of pairs, as 6.9.4 defines it: the better value, the
    lower index on a tie."""
    value, index = a.dtype.names
    better = a[value] > b[value] if greater else a[value] < b[value]
    take = better | ((a[value] == b[value]) & (a[index] <= b[index]))
    return np.where(take, a, b).astype(a.dtype)  # np.where packs the fields: keep the layout


def combine(stack: list[np.ndarray], op: str) -> np.ndarray:
    """numpy's reduction over the ranks' inputs, in the input's dtype (MPI's result type).
    One contribution is the result as it is, no op applied (MPICH 5.0.2: a 1-rank
    Allreduce of 2 with MPI_LAND gives 2, and so does rank 0's Scan)."""
    if len(stack) == 1:
        return stack[0].copy()
    arr = np.stack(stack)
    kind = arr.dtype
    if op in ("MAXLOC", "MINLOC"):
        return fold(lambda a, b: _loc(a, b, op == "MAXLOC"), stack)
    ufunc = {"SUM": np.add, "PROD": np.multiply, "MAX": np.maximum, "MIN": np.minimum,
             "LAND": np.logical_and, "LOR": np.logical_or, "LXOR": np.logical_xor,
             "BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op]
    if op.startswith("L"):
        return ufunc.reduce(arr, axis=0).astype(kind)
    return ufunc.reduce(arr, axis=0, dtype=kind)


def expected(case: dict, inputs: list[np.ndarray]) -> list[np.ndarray | None]:
    """What each rank's receive buffer holds after the call (None: not defined)."""
    p, kind, op = case["ranks"], case["kind"], case["op"]
    if kind in ("reduce", "allreduce"):
        whole = combine(inputs, op)
        return [whole if kind == "allreduce" or r == case["root"] else None for r in range(p)]
    if kind in ("scan", "exscan"):
        upto = 1 if kind == "scan" else 0
        return [combine(inputs[:r + upto], op) if r + upto else None for r in range(p)]
    whole = combine(inputs, op)
    starts = np.concatenate(([0], np.cumsum(case["counts"])))
    return [whole[starts[r]:starts[r + 1]] for r in range(p)]


# -- the cases ---------------------------------------------------------------------------------
@st.composite
def cases(draw: st.DrawFn) -> dict:
    p = draw(st.integers(1, 5))
    kind = draw(st.sampled_from(KINDS))
    name = draw(st.sampled_from([*INTS, *FLOATS, *COMPLEX, "bool", *PAIRS]))
    op = draw(st.sampled_from(OPS_FOR[klass(name)]))
    case = {"ranks": p, "kind": kind, "dtype": name, "op": op,
            "nonblocking": draw(st.booleans()), "root": draw(st.integers(0, p - 1)),
            "algorithm": draw(st.sampled_from(sorted(ALGORITHMS[kind])))}
    if kind == "reduce_scatter_block":
        n = draw(st.integers(0, 3))
        case["counts"] = [n] * p
        case["shape"] = [n * p]
    elif kind == "reduce_scatter":
        case["counts"] = draw(st.lists(st.integers(0, 3), min_size=p, max_size=p))
        case["shape"] = [sum(case["counts"])]
    else:
        case["shape"] = draw(st.sampled_from([[], [1], [3], [2, 3]]))
    case["seed"] = draw(st.integers(0, 2**31 - 1))
    return case


def inputs_of(case: dict) -> list[np.ndarray]:
    """Each rank's input: small integers in the case's dtype (pairs: small values and
    indices), so any combination order gives the same exact result."""
    rng = np.random.default_rng(case["seed"])
    dtype, shape = numpy_dtype(case["dtype"]), tuple(case["shape"])
    out = []
    for _ in range(case["ranks"]):
        if dtype.names:
            x = np.zeros(shape, dtype)
            x[dtype.names[0]] = rng.integers(0, 3, shape)
            x[dtype.names[1]] = rng.integers(0, 4, shape)
        elif dtype.kind == "b":
            x = rng.integers(0, 2, shape).astype(dtype)
        elif dtype.kind == "c":
            x = (rng.integers(-2, 3, shape) + 1j * rng.integers(-2, 3, shape)).astype(dtype)
        else:
            low = 0 if dtype.kind == "u" else -3
            x = rng.integers(low, 4, shape).astype(dtype)
        out.append(np.asarray(x, dtype))
    return out


def check(case: dict, inputs: list[np.ndarray], got: list[np.ndarray]) -> None:
    for r, (want, have) in enumerate(zip(expected(case, inputs), got, strict=True)):
        if want is None:
            continue
        have = np.asarray(have)
        assert have.dtype == want.dtype and have.shape == want.shape, (r, have, want)
        fields = want.dtype.names or (None,)  # pairs field by field (their padding is junk)
        for f in fields:  # exact values (a zero's sign may depend on the order, 6.9.1)
            a, b = (have, want) if f is None else (have[f], want[f])
            assert np.array_equal(a, b), (case, r, have, want)


# -- natively ------------------------------------------------------------------------------------
def native(mpi, case, inputs):
    """One reduction on the handle; the receive buffer afterwards."""
    kind, op = case["kind"], getattr(ms, case["op"])
    x = inputs[mpi.rank].copy()
    call = getattr(mpi, ("i" if case["nonblocking"] else "") + kind)
    extra = {"algorithm": case["algorithm"], "op": op}
    if kind in ("reduce_scatter_block", "reduce_scatter"):
        out = np.zeros(case["counts"][mpi.rank], x.dtype)
        if kind == "reduce_scatter":
            extra["recvcounts"] = case["counts"]
        else:
            extra["count"] = case["counts"][0]
        got = yield call(x, recvbuf=out, **extra)
    else:
        out = np.zeros_like(x)
        if kind == "reduce":
            extra["root"] = case["root"]
        got = yield call(x, out, **extra)
    if case["nonblocking"]:
        yield mpi.wait(got)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_6_9_every_reduction_gives_numpys_answer_natively(case):
    """6.9.1 Reduce, 6.9.6 Allreduce, 6.11 Scan/Exscan, 6.10 Reduce_scatter(_block) and
    their nonblocking forms (6.12): the receive buffer holds numpy's reduction."""
    inputs = inputs_of(case)
    result = ms.run(native, ranks=case["ranks"], params={"case": case, "inputs": inputs})
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    check(case, inputs, result.returned)


def test_6_9_1_a_0d_array_and_a_numpy_scalar_are_one_element():
    """6.9.1: a 0-d array is a buffer of one element; its reduction is a 0-d array, written
    into a 0-d receive buffer; a numpy scalar travels as its bytes."""
    def prog(mpi):
        out = np.zeros((), "i")
        got = yield mpi.allreduce(np.asarray(mpi.rank + 1, "i"), out)
        scalar = yield mpi.allreduce(np.float64(mpi.rank))
        return got, out, scalar, mpi.now

    p = 4
    result = ms.run(prog, ranks=p, network={"latency": 0, "bandwidth": "8 B/s"})
    for got, out, scalar, _ in result.returned:
        assert isinstance(got, np.ndarray) and got.shape == () and int(got) == p * (p + 1) // 2
        assert int(out) == p * (p + 1) // 2 and scalar == sum(range(p))
    # recursive doubling on 4 ranks: 2 exchanges of 4 B (the int), then 2 of 8 B
    assert result.returned[0][3] == pytest.approx(2 * 4 / 8 + 2 * 8 / 8)


@pytest.mark.parametrize("name, op", [("float64", "BAND"), ("complex128", "MAX"),
                                      ("bool", "SUM"), ("float32", "LAND"),
                                      ("int32", "MAXLOC"), ("DOUBLE_INT", "SUM")])
def test_6_9_2_an_op_not_defined_for_the_datatype_is_err_op(name, op):
    """6.9.2 lists the datatypes each predefined op applies to; MPICH refuses the others
    with MPI_ERR_OP ("Invalid MPI_Op"), as mpisim does."""
    def prog(mpi):
        try:
            yield mpi.allreduce(np.zeros(2, numpy_dtype(name)), op=getattr(ms, op))
        except ms.MPIError as e:
            return e.error_class

    assert ms.run(prog, ranks=2).returned == ["MPI_ERR_OP"] * 2


def test_6_9_4_maxloc_of_an_int_array_sent_as_2int_compares_pairs():
    """6.9.4: a buffer is read as elements of its datatype: an int32 array of shape (n, 2)
    sent as MPI_2INT is n (value, index) pairs."""
    def prog(mpi):
        mine = np.array([[mpi.rank % 2, mpi.rank], [5, mpi.rank]], "i")
        out = np.zeros((2, 2), "i")
        yield mpi.allreduce(mine, out, count=2, datatype=ms.TWOINT, op=ms.MINLOC)
        return out

    for out in ms.run(prog, ranks=3).returned:
        assert out.tolist() == [[0, 0], [5, 0]]


# -- through the stand-in -----------------------------------------------------------------------
SCRIPT = """
    import json, sys
    import numpy as np
    from mpi4py import MPI
    case = json.load(open(sys.argv[1]))
    comm = MPI.COMM_WORLD
    r = comm.rank
    data = np.load(sys.argv[2])
    x = data[f"r{r}"]
    pair = case["dtype"] if case["dtype"] in ("FLOAT_INT", "DOUBLE_INT", "LONG_INT",
                                               "SHORT_INT") else "INT_INT" \\
        if case["dtype"] == "TWOINT" else None
    spec = (lambda b: [b, getattr(MPI, pair)]) if pair else (lambda b: b)
    op = getattr(MPI, case["op"])
    kind = case["kind"]  # Reduce_scatter_block, Ireduce_scatter_block...
    call = getattr(comm, "I" + kind if case["nonblocking"] else kind.capitalize())
    if case["kind"] in ("reduce_scatter_block", "reduce_scatter"):
        out = np.zeros(case["counts"][r], x.dtype)
        args = (spec(x), spec(out)) + ((case["counts"],) if case["kind"] == "reduce_scatter"
                                       else ())
        req = call(*args, op=op)
    else:
        out = np.zeros_like(x)
        kw = {"root": case["root"]} if case["kind"] == "reduce" else {}
        req = call(spec(x), spec(out), op=op, **kw)
    if case["nonblocking"]:
        req.Wait()
    np.save(f"{sys.argv[3]}/out{r}.npy", out)
"""


@pytest.fixture(scope="module")
def reduction_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("reductions") / "reduction.py"
    path.write_text(textwrap.dedent(SCRIPT))
    return path


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_6_9_every_reduction_gives_numpys_answer_through_the_stand_in(case, reduction_script,
                                                                      tmp_path):
    """The same through mpi4py's calls (Reduce, Ireduce, ..., Ireduce_scatter): the script's
    receive buffer holds numpy's reduction (pair types as ``[buf, MPI.DOUBLE_INT]``...)."""
    inputs = inputs_of(case)
    where = tmp_path / f"case{case['seed']}"
    where.mkdir(exist_ok=True)
    (where / "case.json").write_text(json.dumps(case))
    np.savez(where / "inputs.npz", **{f"r{r}": x for r, x in enumerate(inputs)})
    result = ms.run_mpi4py(reduction_script, ranks=case["ranks"],
                           args=[str(where / "case.json"), str(where / "inputs.npz"),
                                 str(where)])
    assert result.outcome is ms.Outcome.COMPLETED, result.report()
    check(case, inputs, [np.load(where / f"out{r}.npy") for r in range(case["ranks"])])


@pytest.mark.parametrize("kind", KINDS[:4])
@pytest.mark.parametrize("p", [1, 2, 3, 5, 8])
def test_6_9_5_a_non_commutative_op_combines_in_rank_order(kind, p):
    """6.9.5: a non-commutative op is combined as x0 op x1 op ... op x(p-1), whatever the
    algorithm and root (here string concatenation: the order shows in the result)."""
    concat = ms.Op("concat", lambda a, b: a + b, commutative=False)
    root = p - 1
    for alg in ALGORITHMS[kind]:
        def prog(mpi, alg=alg):
            extra = {"root": root} if kind == "reduce" else {}
            return (yield getattr(mpi, kind)(str(mpi.rank), op=concat, count=1,
                                             algorithm=alg, **extra))

        got = ms.run(prog, ranks=p).returned
        digits = "".join(str(k) for k in range(p))
        if kind == "reduce":
            want = [digits if k == root else None for k in range(p)]
        elif kind == "allreduce":
            want = [digits] * p
        elif kind == "scan":
            want = [digits[:k + 1] for k in range(p)]
        else:
            want = [None] + [digits[:k] for k in range(1, p)]
        assert got == want, (alg, got)
