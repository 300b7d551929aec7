"""The command line keeps the conventions users rely on: every exit code listed in
``mpisim --help``, ``--json`` and ``-q`` honoured by every command that offers them (an error
as a JSON object too), a "did you mean" for a misspelt ``--set`` key or profile name."""

from __future__ import annotations

import re

import pytest
from helpers.paths import ROOT

from mpisim.cli import common
from mpisim.cli.main import main, parser

SCENARIOS = ROOT / "scenarios"
BSEND = str(SCENARIOS / "example-3.10-bsend.yaml")


def test_help_lists_every_exit_code():
    epilog = " ".join(parser().format_help().split())
    listed = {int(n) for n in re.findall(r"\b(\d+) [a-zA-Z(]", epilog)}
    codes = {v for k, v in vars(common).items() if k.startswith("EXIT_")}
    assert codes <= listed, sorted(codes - listed)
    assert "130/143 interrupted" in epilog


@pytest.mark.parametrize(("argv", "hint"), [
    (["run", BSEND, "--set", "network.eager_limt=1KiB"], "did you mean 'network.eager_limit'?"),
    (["check", BSEND, "--set", "mpi.alocator=first-fit"], "did you mean 'mpi.allocator'?"),
    (["sweep", BSEND, "--vary", "network.latncy=1us,2us"], "did you mean 'latency'?"),
])
def test_a_misspelt_set_key_or_profile_gets_did_you_mean(argv, hint, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.rstrip().endswith(f"({hint})")
    assert "(valid:" not in err  # not the list of every key
