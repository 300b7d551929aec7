"""``python -m mpisim.mpi4py [-n N] script.py [args...]``: as ``mpisim mpi4py``.

``python -m mpisim.mpi4py --supported-markdown`` prints the table of what the stand-in
offers (:func:`mpisim.mpi4py.run.supported.markdown`), as docs/guide/mpi4py.md shows it;
``... --supported-markdown --write docs/guide/mpi4py.md`` rewrites the page's table.
"""

import sys

if sys.argv[1:2] == ["--supported-markdown"]:
    from pathlib import Path

    from mpisim.mpi4py.run.supported import markdown, on_page

    if sys.argv[2:3] == ["--write"] and len(sys.argv) == 4:  # the page, regenerated
        page = Path(sys.argv[3])
        page.write_text(on_page(page.read_text()))
    else:
        sys.stdout.write(markdown())
    sys.exit(0)

from mpisim.cli.main import main

sys.exit(main(["mpi4py", *sys.argv[1:]]))
