"""``python -m scoring``: see ``scoring.cli``."""

from .cli import main

raise SystemExit(main())
