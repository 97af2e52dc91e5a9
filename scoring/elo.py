"""The career rating: the Elo rule of the rating site mafiaratings (docs/formats.md#rating).

Every player has two sums, **red** (his rating as a civilian or the sheriff) and **black**
(as mafia or the don), 0 and 0 before his first rated game unless given; his rating is
``1000 + red + black``. A rated game moves every player of a side by the same amount,
added to the sum of the colour he played. Floats throughout, computed in the rule's own
order of operations, so that the same games in the same order give the same figures as
the site (within 1e-9).

The bot keeps the sums and applies each saved game once (``apply_elo``, the cost of the
game's players, not of the history); a correction replays from the game it touches with
the sums before that game (``replay_elo(games[i:], sums_before_i)``). The sums are
immutable, so a shallow copy of the mapping is a snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from enum import StrEnum

from .table import Result, Role

RATING_BASE = 1000.0
FULL_TABLE = 10  # players of a full game; fewer halve the factors
_SIDES = (Result.RED, Result.BLACK)  # the winners of a game that counts
_RED = frozenset({Role.CIVILIAN, Role.SHERIFF})


class EloKind(StrEnum):
    """The kind of event a game belongs to, which sets how much it moves the sums."""

    CLUB = "club"
    TOURNAMENT = "tournament"
    ELITE = "elite"

    @property
    def factors(self) -> tuple[float, float]:
        """``(win, loss)`` of a full table."""
        return _FACTORS[self]


_FACTORS = {
    EloKind.CLUB: (4.0, 3.0),
    EloKind.TOURNAMENT: (16.0, 12.0),
    EloKind.ELITE: (64.0, 48.0),
}


@dataclass(frozen=True, slots=True)
class EloSeat:
    player: str
    role: Role


@dataclass(frozen=True, slots=True)
class EloGame:
    """One game as the rating sees it: who played which role, and who won.

    ``winner`` None or ``Result.DRAW``, or ``rated`` False: the game changes nothing.
    """

    id: str
    kind: EloKind
    seats: tuple[EloSeat, ...]
    winner: Result | None
    rated: bool = True

    def __post_init__(self) -> None:
        if not 1 <= len(self.seats) <= FULL_TABLE:
            raise ValueError(f"game {self.id}: {len(self.seats)} players, not 1 to 10")
        if len({seat.player for seat in self.seats}) != len(self.seats):
            raise ValueError(f"game {self.id}: a player plays twice")

    @property
    def counts(self) -> bool:
        """The game moves the sums: rated, and won by a side."""
        return self.rated and self.winner in _SIDES


@dataclass(frozen=True, slots=True)
class EloSums:
    red: float = 0.0
    black: float = 0.0

    @property
    def rating(self) -> float:
        return RATING_BASE + self.red + self.black


NEWCOMER = EloSums()


@dataclass(frozen=True, slots=True)
class EloChange:
    """What one game did: red's odds before it and each player's change, in the game's
    order of seats (0.0 for everyone in a game that does not count)."""

    id: str
    red_odds: float
    changes: dict[str, float]
    counts: bool


@dataclass(frozen=True, slots=True)
class EloReplay:
    """A list of games applied in order: each game's change, and the sums after the last
    (everyone of the initial sums and of every rated game)."""

    games: list[EloChange]
    sums: dict[str, EloSums]


def red_odds(avg_red: float, avg_black: float) -> float:
    """The chance of red to win: ``1 / (1 + 10 ** ((avg_black - avg_red) / 400))``."""
    try:
        power = 10 ** ((avg_black - avg_red) / 400)
    except OverflowError:  # Python raises where IEEE arithmetic gives infinity
        return 0.0  # 1 / (1 + inf)
    return 1 / (1 + power)


def elo_factors(kind: EloKind, players: int) -> tuple[float, float]:
    """``(win, loss)`` of a game of ``kind`` with ``players`` players: halved when fewer
    than ten."""
    win, loss = _FACTORS[kind]
    if players < FULL_TABLE:
        return win / 2, loss / 2
    return win, loss


def game_odds(sums: Mapping[str, EloSums], game: EloGame) -> float:
    """Red's odds in ``game`` from the sides' average sums; 0.0 when a side has no player."""
    return _odds(_seated(sums, game))


def apply_elo(sums: MutableMapping[str, EloSums], game: EloGame) -> EloChange:
    """Apply one game to ``sums`` (player → sums; a player absent is at 0 and 0) and say
    what it changed. A game that does not count leaves ``sums`` as it was."""
    seated = _seated(sums, game)
    odds = _odds(seated)
    if not game.counts:
        return EloChange(game.id, odds, {player: 0.0 for player, _, _ in seated}, False)
    win, loss = elo_factors(game.kind, len(seated))
    if game.winner == Result.RED:
        red_change = win * (1 - odds)
        black_change = loss * (odds - 1)
    else:
        # The rule's -loss * red_odds; written so that red_odds 0.0 (no black player)
        # gives 0.0 rather than -0.0, the same figure.
        red_change = 0.0 - loss * odds
        black_change = win * odds
    changes: dict[str, float] = {}
    for player, red, mine in seated:
        if red:
            changes[player] = red_change
            sums[player] = EloSums(mine.red + red_change, mine.black)
        else:
            changes[player] = black_change
            sums[player] = EloSums(mine.red, mine.black + black_change)
    return EloChange(game.id, odds, changes, True)


def _seated(sums: Mapping[str, EloSums], game: EloGame) -> list[tuple[str, bool, EloSums]]:
    """Each seat's player, whether he is red, and his sums before the game."""
    get = sums.get
    return [(seat.player, seat.role in _RED, get(seat.player, NEWCOMER)) for seat in game.seats]


def _odds(seated: list[tuple[str, bool, EloSums]]) -> float:
    """Each side's sum is added up seat by seat in a plain loop, as the rule does
    (``sum()`` of floats compensates its rounding from Python 3.12)."""
    red_total = 0.0
    black_total = 0.0
    reds = 0
    blacks = 0
    for _player, red, mine in seated:
        if red:
            red_total += mine.red
            reds += 1
        else:
            black_total += mine.black
            blacks += 1
    if not reds or not blacks:
        return 0.0
    return red_odds(red_total / reds, black_total / blacks)


def replay_elo(games: Iterable[EloGame], initial: Mapping[str, EloSums] | None = None) -> EloReplay:
    """Apply ``games`` in order to a copy of ``initial`` (the sums before the first)."""
    sums = dict(initial) if initial else {}
    return EloReplay([apply_elo(sums, game) for game in games], sums)
