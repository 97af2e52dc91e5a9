"""``python -m scoring``: see ``scoring.cli``."""

from .cli import run

run()
