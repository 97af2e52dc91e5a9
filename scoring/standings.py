"""The tournament's standings (8.7): totals over all games, ordered and placed.

Per game everything is summed in integer hundredths with the rules of ``rules.py``;
exact ``Fraction``s are built once per player, Ci as k × ci_value(i, B) where k is
the number of games that compensate him and i his first-night deaths as a red
player (8.6.1, D1). The order compares exact values (D3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from itertools import chain
from math import lcm

from .record import GameRecord, record_of_game
from .rules import (
    b_value,
    bonuses,
    ci_value,
    disqualifications,
    outcome,
    penalty_points,
)
from .typing_shim import TYPE_CHECKING, NamedTuple
from .validate import InvalidGameError, check_records

if TYPE_CHECKING:
    from .model import Tournament


class StandingRow(NamedTuple):
    place: int  # 1-based; players still tied after 8.7.1-8.7.5 share a place
    player: str
    total: Fraction  # main + extra (8.7)
    main: Fraction  # wins + ci
    extra: Fraction  # 8.2.4, 8.3, 8.4, 8.5 (8.7.1)
    ci: Fraction  # compensation over the tournament (8.6)
    wins: int  # 8.7.2
    wins_don_sheriff: int  # 8.7.3
    first_night_deaths: int  # any role (8.7.4)
    games: int


class Standings(NamedTuple):
    B: int  # the B of 8.6.1: 40 % of the distance, rounded half up (D2)
    rows: tuple[StandingRow, ...]
    # ids of games with judge's points above 0.5 awaiting approval: not counted yet (D7)
    pending_games: tuple[str, ...] = ()

    def ties(self) -> list[list[str]]:
        """Groups of two or more players sharing a place: each needs a lot (8.7.5, D12)."""
        groups: dict[int, list[str]] = {}
        for row in self.rows:
            groups.setdefault(row.place, []).append(row.player)
        return [players for players in groups.values() if len(players) > 1]


def compute_standings(tournament: Tournament) -> Standings:
    """The standings of a tournament; raises ``InvalidGameError`` if a game breaks a rule."""
    records = [record_of_game(game) for game in tournament.games]
    problems = check_records(records)
    if problems:
        raise InvalidGameError(problems)
    return standings_of_records(tournament.distance, tournament.lot, records)


def unresolved_ties(tournament: Tournament) -> list[list[str]]:
    """The groups still tied after 8.7.1-8.7.4 and the lot: what the chief judge must
    draw a lot for (D12), each in standings order."""
    return compute_standings(tournament).ties()


def standings_of_records(
    distance: int, lot: Sequence[str], records: Iterable[GameRecord]
) -> Standings:
    """The standings of valid records (the caller has validated them)."""
    tally = Tally()
    add = tally.add
    for record in records:
        add(record)
    return tally.standings(distance, lot)


_Row = tuple[str, Fraction, Fraction, Fraction, Fraction, int, int, int, int]


class Tally:
    """Running totals over valid game records: ``add(record)`` each, then ``standings()``.

    Per game only names go into lists and integer hundredths into a dict; everything
    is counted and turned into exact ``Fraction``s once per player at the end.
    """

    __slots__ = ("_totals", "add")
    add: Callable[[GameRecord], None]

    def __init__(self) -> None:
        seated: list[tuple[str, ...]] = []
        winners: list[tuple[str, ...]] = []
        leaders: list[str] = []
        deaths: list[str] = []
        red_deaths: list[str] = []
        compensations: list[str] = []
        extra: dict[str, int] = {}
        pending: list[str] = []
        self._totals = (seated, winners, leaders, deaths, red_deaths, compensations, extra, pending)

        def add(record: GameRecord) -> None:
            (
                game_id,
                _,
                players,
                _,
                _,
                _,
                best_move,
                _,
                disqualified,
                judged,
                _,
                penalized,
                teams,
            ) = record
            if teams is None:
                raise InvalidGameError(check_records([record]))
            seated.append(players)
            won, leading, first, first_red, compensating = outcome(record, teams)
            if leading is not None:
                winners.append(won)  # 8.2.1-8.2.2
                leaders.append(leading)  # 8.7.3
            if first is not None:
                deaths.append(first)  # 8.7.4
                if first_red:
                    red_deaths.append(first)  # i of 8.6.1 (D1)
                    if compensating:
                        compensations.append(first)  # 8.6.2-8.6.3
            if judged or best_move:
                for seat, _best, _judge, _counted, waiting, bonus in bonuses(record, teams):
                    if bonus:
                        player = players[seat - 1]
                        extra[player] = extra.get(player, 0) + bonus
                    if waiting and (not pending or pending[-1] != game_id):
                        pending.append(game_id)
            if disqualified or penalized:
                for seat, points in chain(disqualifications(record), penalty_points(record)):
                    player = players[seat - 1]
                    extra[player] = extra.get(player, 0) + points

        self.add = add

    def standings(self, distance: int, lot: Sequence[str] = ()) -> Standings:
        seated, winners, leaders, deaths, red_deaths, compensations, extra, pending = self._totals
        b = b_value(distance)
        games = Counter(chain.from_iterable(seated))
        wins = Counter(chain.from_iterable(winners))
        wins_leader = Counter(leaders)
        first_night = Counter(deaths)
        i_of = Counter(red_deaths)
        k_of = Counter(compensations)
        rows: list[_Row] = []
        for player, played in games.items():
            # Exact, with integer numerators over Ci's denominator (Fraction arithmetic
            # is slow): ci = k × Ci (8.6.1), main = wins + ci, total = main + extra.
            k = k_of[player]
            each = ci_value(i_of[player], b)
            ci_over, over = k * each.numerator, each.denominator
            won = wins[player]
            main_over = won * over + ci_over
            hundredths = extra.get(player, 0)
            rows.append(
                (
                    player,
                    Fraction(main_over * 100 + hundredths * over, over * 100),
                    Fraction(main_over, over),
                    Fraction(hundredths, 100),
                    Fraction(ci_over, over),
                    won,
                    wins_leader[player],
                    first_night[player],
                    played,
                )
            )
        return Standings(B=b, rows=_placed(rows, lot), pending_games=tuple(pending))


_ZERO = Fraction(0)


def _placed(rows: list[_Row], lot: Sequence[str]) -> tuple[StandingRow, ...]:
    """Order by 8.7-8.7.4, then the lot (8.7.5); players still tied share a place."""
    # Exact comparison on integers: every total and extra over a common denominator.
    scale = lcm(*(row[1].denominator for row in rows), *(row[3].denominator for row in rows), 1)
    drawn: dict[str, int] = {}
    for position, name in enumerate(lot):
        drawn.setdefault(name, position)
    not_drawn = len(drawn)

    def key(row: _Row) -> tuple[int, int, int, int, int, int, str]:
        player, total, _main, extra, _ci, won, won_leading, deaths, _games = row
        return (
            -(total.numerator * (scale // total.denominator)),  # 8.7
            -(extra.numerator * (scale // extra.denominator)),  # 8.7.1
            -won,  # 8.7.2
            -won_leading,  # 8.7.3
            -deaths,  # 8.7.4
            drawn.get(player, not_drawn),  # 8.7.5
            player,  # still tied: listed by name
        )

    keyed = sorted((key(row), row) for row in rows)
    placed: list[StandingRow] = []
    previous: tuple[int, ...] = ()
    place = 0
    for position, (row_key, row) in enumerate(keyed, start=1):
        tied = row_key[:5] == previous[:5] and row[0] not in drawn and row_key[5] == previous[5]
        if not tied:
            place = position
        previous = row_key[:6]
        player, total, main, extra, ci, won, won_leading, deaths, played = row
        placed.append(
            StandingRow(place, player, total, main, extra, ci, won, won_leading, deaths, played)
        )
    return tuple(placed)
