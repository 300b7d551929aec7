"""The recorder's regular C wrappers are generated from one table
(``mpisim.recorded.record.cwrappers``) into the one C file users compile."""

from __future__ import annotations

import dataclasses
import re

import pytest

from mpisim.recorded.record.cwrappers import BEGIN, END, WRAPPERS, render, render_one
from mpisim.recorded.record.recorder import shim_source


def test_the_shim_holds_the_wrappers_the_table_generates():
    """``python -m mpisim.recorded.record.cwrappers`` was run after the table last changed."""
    assert render() in shim_source().read_text()


def test_each_generated_call_is_defined_once_in_the_shim():
    text = shim_source().read_text()
    c_part = text[:text.index("===== Fortran bindings")]
    for w in WRAPPERS:
        assert len(re.findall(rf"\bint MPI_{w.name}\(", c_part)) == 1, w.name


def test_the_generated_block_stands_before_the_fortran_bindings_that_call_it():
    text = shim_source().read_text()
    assert text.index(BEGIN) < text.index(END) < text.index("===== Fortran bindings")


def test_a_wrapper_passes_every_parameter_through_and_logs_its_status():
    """MPI_Recv: the program's status, or a local one for MPI_STATUS_IGNORE, is logged."""
    recv = next(w for w in WRAPPERS if w.name == "Recv")
    c = render_one(recv)
    assert "return PMPI_Recv(buf, count, dt, source, tag, comm, status);" in c
    assert "int rc = PMPI_Recv(buf, count, dt, source, tag, comm, st);" in c
    assert "if (rc == MPI_SUCCESS) {\n        recv_hash(st);" in c
    assert "if (!memo_result(rw, 3, 0)) put_status(st);" in c


def test_the_large_count_forms_log_as_their_int_forms():
    """MPI 4.1 §6: MPI_Send_c is logged as Send, behind the MPI 4 guard."""
    send_c = next(w for w in WRAPPERS if w.name == "Send_c")
    assert send_c.logged == "Send" and send_c.guard == "MPI_VERSION >= 4"
    assert 'enter_memo("Send", CALLER, mw, 9)' in render_one(send_c)


def test_the_hot_calls_go_through_the_memo_and_the_rest_do_not():
    """The memo's words are scalars, buffers and handles: the v and w collectives (arrays)
    and the persistent forms log as before."""
    memo = {w.name for w in WRAPPERS if w.memo}
    assert {"Send", "Recv", "Isend", "Irecv", "Ssend", "Bsend", "Rsend", "Sendrecv", "Bcast",
            "Reduce", "Allreduce", "Barrier", "Alltoall", "Ibarrier", "Send_c"} <= memo
    assert not memo & {"Alltoallv", "Gatherv", "Alltoallw", "Send_init", "Put", "File_read"}
    isend = render_one(next(w for w in WRAPPERS if w.name == "Isend"))
    assert "memo_type(dt)" in isend and "memo_comm(comm)}" in isend
    assert "int id = req_new(*req, 's');" in isend
    assert 'if (!memo_result(rw, 1, id > 0 ? (uint64_t)id : 0)) putf(" r=%d", id);' in isend


def test_isendrecv_makes_one_request_of_its_own_kind():
    """MPI 4.1 §3.10: MPI_Isendrecv's one request completes when its send and receive have."""
    for name in ("Isendrecv", "Isendrecv_replace"):
        w = next(w for w in WRAPPERS if w.name == name)
        assert w.request == "x" and "req_new(*req, 'x')" in render_one(w)


def test_the_memo_refuses_a_call_whose_arguments_it_cannot_key():
    """An array (MPI_Alltoallv's counts) or a result beyond a status and a request
    (MPI_File_get_size's size, MPI_File_read's bytes moved) cannot be a memo's words: the
    generator says so."""
    by_name = {w.name: w for w in WRAPPERS}
    with pytest.raises(ValueError, match="cannot be a memo's word"):
        render_one(dataclasses.replace(by_name["Alltoallv"], memo=True))
    for name in ("File_get_size", "File_read"):
        with pytest.raises(ValueError, match=f"MPI_{name}: its result cannot be a memo's"):
            render_one(dataclasses.replace(by_name[name], memo=True))
