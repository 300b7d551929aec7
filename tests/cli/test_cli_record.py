"""``mpisim record`` without a run to record: ``--shim`` names the recorder's C source, no
command is a one-line usage error (the record command's own ``command`` argument is not the
subcommand's name)."""

from __future__ import annotations

from pathlib import Path

from mpisim.cli import main


def test_record_shim_prints_the_path_of_the_recorder_s_c_source(capsys):
    assert main(["record", "--shim"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.name == "mpisim_record.c" and "#mpisim-trace" in path.read_text()


def test_record_without_a_command_says_so(capsys):
    assert main(["record"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("mpisim: record: no command")


def test_no_command_prints_the_help_and_exits_2(capsys):
    assert main([]) == 2
    assert capsys.readouterr().out.startswith("usage: mpisim")
