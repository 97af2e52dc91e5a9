"""Each seat's points in one game, exactly (the game's card in the bot).

``game_breakdown(game, ci=...)`` needs the Ci of the game's first-killed player, which
depends on the whole tournament (8.6.1, D1); ``tournament_breakdowns(t)`` gives every
game's breakdown with the right, current Ci.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import lru_cache

from .record import Arrangement, GameRecord, record_of_game
from .rules import Bonus, bonuses, disqualifications, outcome, penalty_points
from .ruleset import Ruleset
from .table import Role
from .typing_shim import TYPE_CHECKING, NamedTuple
from .validate import InvalidGameError, check_record, check_records

if TYPE_CHECKING:
    from .model import Game, Tournament

__all__ = [
    "GameBreakdown",
    "SeatPoints",
    "game_breakdown",
    "game_ci",
    "tournament_breakdowns",
]

_ZERO = Fraction(0)
_ONE = Fraction(1)


class SeatPoints(NamedTuple):
    """One seat's points in one game; all ``Fraction``s (D3)."""

    seat: int
    player: str
    role: Role
    win: Fraction  # 1 for every player of the winning team, else 0 (8.2.1-8.2.3, D9)
    ci: Fraction  # compensation, main points (8.6.2-8.6.3)
    best_move: Fraction  # 8.3.4; 0 when voided (8.3.5) or not allowed (8.3.6)
    judge: Fraction  # judge's extra points as entered (8.4)
    judge_counted: bool  # they are what he gets (8.4.6, D4) and approved if > 0.5 (D7)
    judge_pending: bool  # > 0.5, would count, not approved yet: not counted (D7)
    bonus: Fraction  # what he gets of best move vs judge's points (8.4.6, D4)
    disqualification: Fraction  # -0.5 if disqualified (8.2.4)
    penalties: Fraction  # -0.4 each (8.5)
    main: Fraction  # win + ci
    extra: Fraction  # disqualification + bonus + penalties
    total: Fraction  # main + extra


class GameBreakdown(NamedTuple):
    game_id: str
    seats: tuple[SeatPoints, ...]  # seat n is seats[n - 1]

    @property
    def pending(self) -> bool:
        """Some judge's points wait for the chief judge's approval (D7)."""
        return any(seat.judge_pending for seat in self.seats)


def game_breakdown(game: Game, *, ci: Fraction) -> GameBreakdown:
    """Every seat's points in ``game``.

    ``ci`` is the Ci (8.6.1) of the game's first-killed player over the tournament,
    ``Ruleset.ci(i)``; it is added only when the game compensates him (a civilian or
    the sheriff shot on night 1 whose team lost). Raises ``InvalidGameError`` if the
    game breaks a rule.
    """
    record = record_of_game(game)
    problems = check_record(record)
    if problems:
        raise InvalidGameError(problems)
    return breakdown_of_record(record, ci)


def tournament_breakdowns(tournament: Tournament) -> dict[str, GameBreakdown]:
    """Every game's breakdown by game id, with the current Ci (D1).

    Raises ``InvalidGameError`` if any game breaks a rule.
    """
    records = [record_of_game(game) for game in tournament.games]
    problems = check_records(records)
    if problems:
        raise InvalidGameError(problems)
    rules = tournament.ruleset
    outcomes = [outcome(record, _teams(record)) for record in records]
    i = Counter(first for _won, _leader, first, first_red, _ci in outcomes if first_red)
    breakdowns: dict[str, GameBreakdown] = {}
    for record, (_won, _leader, first, _first_red, compensating) in zip(
        records, outcomes, strict=True
    ):
        ci = game_ci(compensating, i[first], rules)
        breakdowns[record.id] = breakdown_of_record(record, ci)
    return breakdowns


def game_ci(compensating: bool, i: int, rules: Ruleset) -> Fraction:
    """The Ci a game gives its first-killed player: ``rules.ci(i)`` with i his first-night
    deaths as a red player over the whole tournament (8.6.1, D1), when the game
    compensates him (8.6.2-8.6.3, ``rules.outcome``) and compensation is on (D14); else 0."""
    return rules.ci(i) if compensating else _ZERO


def breakdown_of_record(record: GameRecord, ci: Fraction) -> GameBreakdown:
    """The breakdown of a valid record (no validation here)."""
    teams = _teams(record)
    winners, _leader, _first, _first_red, compensating = outcome(record, teams)
    compensated_seat = record.first_killed if compensating else None
    bonus_of = {row[0]: row for row in bonuses(record, teams)}
    disqualified = dict(disqualifications(record))
    penalised: Counter[int] = Counter()
    for seat, points in penalty_points(record):
        penalised[seat] += points
    seats = []
    for seat, (player, role) in enumerate(zip(record.players, record.roles, strict=True), 1):
        win = _ONE if player in winners else _ZERO  # names are unique within a game
        seat_ci = ci if seat == compensated_seat else _ZERO
        _seat, best, judge, counted, pending, bonus = bonus_of.get(seat, _NO_BONUS)
        disqualification = _h(disqualified.get(seat, 0))
        penalties = _h(penalised[seat])
        main = _plus(win, seat_ci)
        extra = _plus(_plus(disqualification, _h(bonus)), penalties)
        seats.append(
            SeatPoints(
                seat=seat,
                player=player,
                role=Role(str(role)),
                win=win,
                ci=seat_ci,
                best_move=_h(best),
                judge=_h(judge),
                judge_counted=counted,
                judge_pending=pending,
                bonus=_h(bonus),
                disqualification=disqualification,
                penalties=penalties,
                main=main,
                extra=extra,
                total=_plus(main, extra),
            )
        )
    return GameBreakdown(record.id, tuple(seats))


_NO_BONUS: Bonus = (0, 0, 0, False, False, 0)


@lru_cache(maxsize=256)
def _h(hundredths: int) -> Fraction:
    return Fraction(hundredths, 100) if hundredths else _ZERO


def _plus(a: Fraction, b: Fraction) -> Fraction:
    """``a + b``; with a zero term, the other term itself. The standings keep every
    seat's points, most of them sums with zeros: shared this way, a 1,000-game
    tournament keeps ~1,800 Fractions instead of ~34,000 (1.5 MiB)."""
    if b is _ZERO:
        return a
    if a is _ZERO:
        return b
    return a + b


def _teams(record: GameRecord) -> Arrangement:
    if record.teams is None:  # validation reports it first
        raise InvalidGameError(check_record(record))
    return record.teams
