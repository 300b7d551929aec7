"""One table of MPI calls (mpisim.handle.calltable) that the rank handle, the scenario parser and
the scenario interpreter share: adding a call touches one place, and these tests say where
the three disagree."""

from __future__ import annotations

import inspect
import re

import pytest

import mpisim as ms
from mpisim.handle.calltable import CALLS, LOCAL, OPS, mpi_name
from mpisim.handle.rank import Rank
from mpisim.scenario import interpret, ops


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_call_of_the_table_is_a_handle_method_named_after_its_mpi_function(name):
    method = getattr(Rank, name)
    doc = inspect.getdoc(method) or ""
    not_mpi = ("compute", "spawn_thread", "current_thread")  # what a program does beside MPI
    assert re.match(rf"{mpi_name(name)}\b", doc) or name in not_mpi, (name, doc[:40])
    returns = str(inspect.signature(method).return_annotation)
    if CALLS[name].runs == LOCAL:  # its value at once, nothing to yield
        assert "Event" not in returns, (name, returns)
    else:
        assert "Event" in returns or returns == "Any", (name, returns)


@pytest.mark.parametrize("name", sorted(OPS))
def test_each_ops_arguments_are_the_handles_parameters(name):
    """An op's arguments carry the handle's names (``compute: {seconds: ...}`` as
    ``mpi.compute(seconds)``), so the interpreter passes them through by name."""
    call = OPS[name]
    params = set(inspect.signature(getattr(Rank, name)).parameters) - {"self"}
    assert set(call.args) <= params, set(call.args) - params
    # what an op binds is a part of the value the call yields (outcount: how many indices
    # MPI_Waitsome gave), or for comm_dup / comm_split the name of the new communicator
    parts = set(call.yields) | ({"outcount"} if "indices" in call.yields else set())
    assert set(call.binds) <= parts | {"as"}, set(call.binds) - parts
    if call.op == "buffer":  # with comm: the communicator's buffer, comm_<verb>_buffer
        variant = inspect.signature(getattr(Rank, f"comm_{name[len('buffer_'):]}_buffer"))
        assert "comm" in variant.parameters


def test_the_parser_and_the_interpreter_know_exactly_the_tables_ops():
    assert (*OPS, "loop", "if", "thread", "join") == ops.CALLS
    assert set(interpret._CALLS) == set(ops.CALLS)  # a runner for each, the control ops too
    for name in ops.CALLS:  # the parser has a reader for each
        reader = "sendop" if name in ops.step.SENDS else \
            "collective" if name in ops.step.COLLECTIVES else name
        assert callable(getattr(ops.OpReader, "_" + reader)), name


def test_the_handles_public_calls_are_exactly_the_table():
    seen: list = []

    def program(mpi):
        seen.append(mpi)
        yield mpi.barrier()

    ms.run(program, ranks=1)
    public = {n for n in dir(seen[0]) if not n.startswith("_")}
    assert {n for n in public if callable(getattr(seen[0], n))} == set(CALLS)


def test_compute_takes_seconds_in_a_scenario_and_the_old_name_time(tmp_path):
    for key in ("seconds", "time"):
        path = tmp_path / f"{key}.yaml"
        path.write_text(f"ranks: 1\nprograms:\n  - ops:\n      - compute: {{{key}: 5us}}\n")
        assert ms.load_scenario(path).run().sim_time == pytest.approx(5e-6)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_call_is_written_in_a_class_body_under_its_own_name(name):
    """The handle is one class of per-chapter mixins: every call is found in the body of
    one of them, under its own name (help(mpi.ibcast) says ibcast, an editor follows it),
    and no call is set on the class from outside."""
    method = inspect.unwrap(getattr(Rank, name))
    owner = next(c for c in Rank.__mro__ if name in vars(c))
    assert owner.__module__.startswith("mpisim.handle."), owner
    assert method.__name__ == name
    assert method.__qualname__ == f"{owner.__name__}.{name}"
    assert inspect.getsourcefile(method) == inspect.getsourcefile(owner)
