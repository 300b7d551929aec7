"""``python -m mpisim``: the command line."""

from .cli import main

raise SystemExit(main())
