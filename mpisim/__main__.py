"""``python -m mpisim``: the command line, as the ``mpisim`` command runs it."""

from ._launch import main

raise SystemExit(main())
