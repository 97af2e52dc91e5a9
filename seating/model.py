"""The data of a seating plan (docs/formats.md#seating): requests, rounds, plans, quality.

Everything here is immutable. Seats are numbered 1-10 as at the table;
``Table.seats[n - 1]`` sits in seat ``n``. Rounds and tables are numbered from 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

SEATS = 10  # players at a table, and seat numbers 1-10
MAX_GAMES = 30  # the largest games_per_player a request may ask for
DEFAULT_TIME_LIMIT = 20.0


class SeatingError(ValueError):
    """A request that cannot be planned: the message is one line for people, saying what
    is wrong and what to change."""


@dataclass(frozen=True, slots=True)
class Table:
    table: int
    seats: tuple[str, ...]  # seat n is seats[n - 1]


@dataclass(frozen=True, slots=True)
class Round:
    round: int
    tables: tuple[Table, ...]
    sitting_out: tuple[str, ...] = ()  # in the order of Request.players


@dataclass(frozen=True, slots=True)
class Request:
    """What to plan. Build one with ``parse_request`` (checked); ``generate`` checks a
    hand-built one again."""

    players: tuple[str, ...]
    games_per_player: int
    tables: int  # tables played at once in a round
    apart: tuple[tuple[str, str], ...] = ()
    fixed_rounds: tuple[Round, ...] = ()  # rounds already played, kept as given
    previous_rounds: tuple[Round, ...] = ()  # an earlier plan's other rounds, kept if they fit
    # players who left: they keep their games in the fixed rounds and play no more
    withdrawn: tuple[str, ...] = ()
    # games a player plays in all where it isn't games_per_player (one whose seat a
    # substitute played)
    games_of: Mapping[str, int] = field(default_factory=dict)
    seed: int = 0
    time_limit: float = DEFAULT_TIME_LIMIT

    @property
    def playing(self) -> int:
        """Players who play on (not withdrawn)."""
        return len(self.players) - len(set(self.withdrawn))

    def total(self, name: str) -> int:
        """Games ``name`` plays in all, unless he is withdrawn."""
        return self.games_of.get(name, self.games_per_player)

    @property
    def seats(self) -> int:
        """Seats in the whole plan: each player's games, the withdrawn players' those they
        played."""
        gone = set(self.withdrawn)
        played = sum(
            name in gone for round_ in self.fixed_rounds for t in round_.tables for name in t.seats
        )
        return sum(self.total(name) for name in self.players if name not in gone) + played

    @property
    def games(self) -> int:
        """Games in the whole plan: every game seats ten players."""
        return self.seats // SEATS

    @property
    def rounds(self) -> int:
        return -(-self.games // self.tables)

    def tables_in(self, number: int) -> int:
        """How many tables round ``number`` (from 1) has: all but possibly the last."""
        if number < self.rounds:
            return self.tables
        return self.games - (self.rounds - 1) * self.tables


@dataclass(frozen=True, slots=True)
class Quality:
    """How fair a plan is (the contract's ``quality`` object)."""

    seat_spread: int  # max over players of (most - fewest) games in one seat number
    meetings_min: int  # fewest games any pair of players shared (0 if a pair never met)
    meetings_max: int
    meetings_histogram: Mapping[int, int]  # meetings -> pairs, over all pairs
    table_spread: int  # max over players of (most - fewest) games at one physical table
    apart_violations: int  # games where an apart pair shares the table
    cut_short: bool = False  # the time limit stopped the search before its own end
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Plan:
    rounds: tuple[Round, ...]
    quality: Quality
