"""``mpisim examples``: the examples shipped inside the package, listed, found by name and
copied out, so that a ``pip install`` alone runs the documentation's commands.

They live in ``mpisim/examples/`` (a clone's ``scenarios/`` links there): the scenarios
(``*.yaml`` and the Python scenario), the mpi4py scripts (``mpi4py/``) and Example 3.10 in C
(``c/``, for ``mpisim record``). A scenario or a script named on the command line that is
not a file is looked up among them: ``mpisim run example-3.10-bsend`` and
``mpisim mpi4py -n 2 exchange.py`` run the shipped copies; a file of that name in the
current directory comes first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .common import EXIT_OK, Command, UsageError
from .shipped import EXAMPLES_DIR, KINDS, examples

__all__ = ["EXAMPLES", "copy_examples"]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3].rsplit(" ", 1)[0] + "..."


# -- the command -------------------------------------------------------------------------------
def examples_options(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    copy = sub.add_parser("copy", help="copy every example into DIR (never overwrites a file)",
                          description="copy every shipped example into DIR (created if "
                          "needed), keeping their folders (mpi4py/, c/); refused, writing "
                          "nothing, if any of them would overwrite a file")
    copy.add_argument("dir", metavar="DIR", help="the directory to copy them into")
    path = sub.add_parser("path", help="print the path of an installed example (or of their "
                          "folder)", description="print the path of the installed example "
                          "NAME, or of the folder that holds them all")
    path.add_argument("name", nargs="?", metavar="NAME", help="an example's name, as listed")


def examples_command(args: argparse.Namespace) -> int:
    if args.action == "copy":
        return _copy_command(Path(args.dir))
    if args.action == "path":
        return _path_command(args.name)
    _list()
    return EXIT_OK


def _list() -> None:
    shown = examples()
    columns = shutil.get_terminal_size().columns if sys.stdout.isatty() else 1000  # no cut
    print(f"The examples shipped with mpisim ({EXAMPLES_DIR}):")
    for kind, (_, heading) in KINDS.items():
        print(f"\n{heading}")
        of_kind = [e for e in shown if e.kind == kind]
        width = max(len(e.name) for e in of_kind) + 2
        ends = max(len(e.ends) + 2 for e in of_kind) if any(e.ends for e in of_kind) else 0
        room = max(40, columns - 1 - 2 - width - ends)
        for e in of_kind:
            print(f"  {e.name:<{width}}{e.ends:<{ends}}{_cut(e.summary, room)}")
    print("\nmpisim examples copy DIR copies them out; mpisim examples path NAME prints where "
          "one is.")


def _path_command(name: str | None) -> int:
    if name is None:
        print(EXAMPLES_DIR)
        return EXIT_OK
    for example in examples():
        if name in (example.name, example.relative, example.path.name):
            print(example.path)
            return EXIT_OK
    raise UsageError(f"{name}: no shipped example of that name (mpisim examples lists them)")


def _copy_command(dest: Path) -> int:
    copied = copy_examples(dest)
    scenario = dest / "example-3.10-bsend.yaml"
    print(f"copied {len(copied)} examples into {dest}{os.sep} (try: mpisim run {scenario} "
          "--plot)")
    return EXIT_OK


def copy_examples(dest: Path) -> list[Path]:
    """Copy every shipped example into ``dest``, keeping their folders; the paths written.

    Written whole or not at all: the files are copied into a temporary folder beside them,
    then moved into place with SIGINT and SIGTERM held. A UsageError, writing nothing, if
    ``dest`` is a file or any example would overwrite a file there.
    """
    relatives = [e.relative for e in examples()]
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"{dest}: not a directory")
    clashes = [r for r in relatives if os.path.lexists(dest / r)]
    if clashes:
        raise UsageError(f"{dest / clashes[0]}: exists; mpisim examples copy never overwrites "
                         f"a file ({len(clashes)} of the {len(relatives)} examples are there "
                         "already): choose another directory")
    parent = dest if dest.is_dir() else dest.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        with _held() as before:
            staging = Path(tempfile.mkdtemp(prefix=".examples.", suffix=".tmp", dir=parent))
            try:
                with _restored(before):
                    for relative in relatives:
                        (staging / relative).parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(EXAMPLES_DIR / relative, staging / relative)
                _move_in(staging, dest, relatives)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    except OSError as e:
        raise UsageError(f"{e.filename or dest}: {e.strerror or e}") from None
    return [dest / r for r in relatives]


def _move_in(staging: Path, dest: Path, relatives: list[str]) -> None:
    if not dest.exists():
        os.chmod(staging, 0o777 & ~_umask())
        os.rename(staging, dest)
        return
    for relative in relatives:
        (dest / relative).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / relative, dest / relative)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _held() -> Iterator[object]:
    """SIGINT and SIGTERM wait until the block ends; yields the mask in force before."""
    if not hasattr(signal, "pthread_sigmask"):
        yield None
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield before
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def _restored(before: object) -> Iterator[None]:
    """The mask of before :func:`_held` while the files are copied (an interrupt then
    abandons them: the temporary folder is removed)."""
    if before is None:
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_SETMASK, before)  # type: ignore[arg-type]
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


EXAMPLES = Command(
    "examples", options=examples_options, handler=examples_command,
    help="list the examples shipped with mpisim (scenarios, mpi4py scripts, C); copy them out",
    description="list the examples shipped with mpisim, one line each: the scenarios (run one "
                "by name: mpisim run example-3.10-bsend), the mpi4py scripts (mpisim mpi4py -n "
                "2 exchange.py) and Example 3.10 in C, to record. 'copy DIR' copies them all "
                "out; 'path NAME' prints where one is installed")
