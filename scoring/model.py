"""The data model of a scored tournament (docs/rules.md).

Everything here is immutable and exact: points are ``Fraction``s (D3), never floats.
Seats are numbered 1-10 as at the table; ``Game.seats[n - 1]`` is seat ``n``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from .ruleset import PENALTY_RULES, Ruleset
from .table import ROLE_COUNTS, SEAT_NUMBERS, SEATS, Result, Role

# Defined in ``table.py`` and ``ruleset.py`` (cheap to import, no data classes) and part
# of this model.
__all__ = [
    "PENALTY_RULES",
    "ROLE_COUNTS",
    "SEATS",
    "SEAT_NUMBERS",
    "Game",
    "Result",
    "Role",
    "Seat",
    "Tournament",
]


@dataclass(frozen=True, slots=True)
class Seat:
    player: str
    role: Role


@dataclass(frozen=True, slots=True)
class Game:
    """One game's protocol, as the judge records it (field names follow docs/formats.md)."""

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
    # What a caller that keeps ``games`` scored already counted (``ScoredGames``): a
    # player's i of 8.6.1 over ``games``, or None once it no longer describes them.
    # Not part of the value: ``judging.first_killed_ci`` asks it before counting.
    first_night_red: Callable[[str], int | None] | None = field(
        default=None, compare=False, repr=False, kw_only=True
    )

    @property
    def ruleset(self) -> Ruleset:
        """How the tournament is scored: one stage over its distance (D2)."""
        return Ruleset(self.distance)
