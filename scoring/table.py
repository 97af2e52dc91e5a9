"""What sits at a table (docs/rules.md, "The game"): seats, roles, teams and results.

Split from ``model.py`` so that the command line's hot path can use them without the
data classes (importing ``dataclasses`` costs more than the rest of the engine);
``scoring.model`` re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

SEATS = 10
SEAT_NUMBERS = range(1, SEATS + 1)


class Role(StrEnum):
    CIVILIAN = "civilian"
    SHERIFF = "sheriff"
    MAFIA = "mafia"
    DON = "don"

    @property
    def is_red(self) -> bool:
        return self in (Role.CIVILIAN, Role.SHERIFF)

    @property
    def team(self) -> Result:
        return Result.RED if self.is_red else Result.BLACK


# How many of each role sit at a table of ten (the game's background).
ROLE_COUNTS: Mapping[Role, int] = {Role.CIVILIAN: 6, Role.SHERIFF: 1, Role.MAFIA: 2, Role.DON: 1}


class Result(StrEnum):
    RED = "red"
    BLACK = "black"
    DRAW = "draw"
