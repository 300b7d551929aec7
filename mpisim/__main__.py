"""``python -m mpisim``: the command line."""

from .cli.main import main

raise SystemExit(main())
