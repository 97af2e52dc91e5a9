"""``python -m seating``: see ``seating.cli``."""

from .cli import main

raise SystemExit(main())
