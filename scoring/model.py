"""The data model of a scored tournament (RULES.md).

Everything here is immutable and exact: points are ``Fraction``s (D3), never floats.
Seats are numbered 1-10 as at the table; ``Game.seats[n - 1]`` is seat ``n``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

SEATS = 10
SEAT_NUMBERS = range(1, SEATS + 1)
PENALTY_RULES = ("8.5.1", "8.5.2", "8.5.3", "8.5.4")


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


@dataclass(frozen=True, slots=True)
class Seat:
    player: str
    role: Role


@dataclass(frozen=True, slots=True)
class Game:
    """One game's protocol, as the judge records it (field names follow scoring-contract.md)."""

    id: str
    result: Result
    seats: tuple[Seat, ...]
    day1_voted_out: int = 0
    first_killed: int | None = None
    best_move: tuple[int, ...] = ()
    best_move_hint: bool = False
    disqualified: tuple[int, ...] = ()
    # seat -> judge's extra points (8.4), exact hundredths (D6)
    judge_extras: Mapping[int, Fraction] = field(default_factory=dict)
    # seats whose judge's points above 0.5 the chief judge approved (8.4.3, D7)
    chief_approved: frozenset[int] = frozenset()
    # seat -> penalty rule ids "8.5.1"..."8.5.4", -0.4 each (8.5)
    penalties: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    def seat(self, number: int) -> Seat:
        return self.seats[number - 1]


@dataclass(frozen=True, slots=True)
class Tournament:
    distance: int
    games: tuple[Game, ...]
    # the drawn lot (8.7.5, D12): still-tied players ordered by position here
    lot: tuple[str, ...] = ()
