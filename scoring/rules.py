"""The point rules of docs/rules.md, each written once, on ``GameRecord``s.

Points here are exact integers in hundredths (every point value but Ci is a multiple
of 0.05), so per-game work needs no ``Fraction``; Ci (8.6.1) is the only value that is
not, and ``ruleset.ci_value`` gives it exactly. ``points.py`` turns these into per-seat
``Fraction``s for one game's card; ``standings.py`` sums them over a tournament.

The functions assume a game without problems (``validate.py``), whose roles have an
``Arrangement``.
"""

from __future__ import annotations

from .record import Arrangement, GameRecord
from .ruleset import PENALTIES
from .table import Result

WIN = 100  # 8.2.1-8.2.2, hundredths
BEST_MOVE_THREE = 40  # 8.3.4
BEST_MOVE_TWO = 25  # 8.3.4
DISQUALIFICATION = -50  # 8.2.4
JUDGE_PLAYERS_MAX = 4  # 8.4.1
JUDGE_SUM_MAX = 100  # 8.4.2
JUDGE_WINNER_MAX = 70  # 8.4.3
JUDGE_LOSER_MAX = 40  # 8.4.4
JUDGE_APPROVAL_ABOVE = 50  # 8.4.3, D7
BEST_MOVE_NUMBERS_MAX = 3  # 8.3, 8.3.2
BEST_MOVE_DAY1_LIMIT = 2  # 8.3.6: no best move when this many left by the day-1 voting

RED = Result.RED.value
BLACK = Result.BLACK.value


def winning_team(record: GameRecord) -> str | None:
    """The team whose every player gets the win point (8.2.1-8.2.2); a draw: none (8.2.3)."""
    result = record.result
    return result if result in (RED, BLACK) else None


def team_seats(arrangement: Arrangement, team: str) -> frozenset[int]:
    return arrangement.red if team == RED else arrangement.black


def outcome(record: GameRecord, arrangement: Arrangement) -> Outcome:
    """The main points of a game, by name, in one call (the standings add these up):

    ``(winners, leader, first_killed, first_killed_red, compensated)`` — the players of
    the winning team, who get 1 each (8.2.1-8.2.2; none in a draw, 8.2.3); its sheriff
    or don, whose win counts for 8.7.3; the player shot on night 1 (8.7.4) or None;
    whether he was a civilian or the sheriff, which counts for i (8.6.1, D1); and whether
    this game compensates him with Ci: the red team lost (8.6, 8.6.2-8.6.3; a draw is
    not a red loss).
    """
    players = record.players
    team = winning_team(record)
    if team is None:
        winners: tuple[str, ...] = ()
        leading = None
    elif team == RED:
        winners = arrangement.red_players(players)
        leading = players[arrangement.sheriff]
    else:
        winners = arrangement.black_players(players)
        leading = players[arrangement.don]
    first = record.first_killed
    if first is None:
        return winners, leading, None, False, False
    red = first in arrangement.red
    return winners, leading, players[first - 1], red, red and team == BLACK  # type: ignore[operator]


Outcome = tuple[tuple[str, ...], "str | None", "str | None", bool, bool]


def best_move_points(record: GameRecord, arrangement: Arrangement) -> int:
    """The first-killed player's best-move points in hundredths (8.3.4-8.3.6, D5, D10)."""
    if (
        not record.best_move
        or record.best_move_hint  # 8.3.5
        or record.first_killed not in arrangement.red  # D10: a black player gets none
        or record.day1_voted_out >= BEST_MOVE_DAY1_LIMIT  # type: ignore[operator]  # 8.3.6
    ):
        return 0
    named = len(arrangement.black.intersection(record.best_move))
    if named == 3:
        return BEST_MOVE_THREE
    return BEST_MOVE_TWO if named == 2 else 0


def bonuses(
    record: GameRecord, arrangement: Arrangement, assume_approved: bool = False
) -> list[Bonus]:
    """Best move vs judge's points (8.3.4, 8.4.6, D4, D5, D7) for each seat with either.

    One ``(seat, best_move, judge, judge_counted, judge_pending, bonus)`` per seat, in
    hundredths. The judge's points count when they are larger than the player's best
    move (8.4.6; a tie goes to the best move, D4; a voided best move is 0, D5) and, above
    0.5, approved by the chief judge (8.4.3, D7; ``assume_approved`` takes every such
    value as approved, for the 8.4.2 check). ``bonus`` is what the player gets: the
    judge's points when they count, else his best move (pending points: not yet).
    """
    first: int = record.first_killed  # type: ignore[assignment]
    best = best_move_points(record, arrangement) if record.best_move else 0
    judged: _JudgeValues = record.judge_extras  # type: ignore[assignment]
    found: list[Bonus] = []
    for seat, value, _given in judged:
        own = 0
        if seat == first:
            own = best
            best = 0  # given here, with his judge's points
        if value <= own:  # 8.4.6, D4
            found.append((seat, own, value, False, False, own))
        elif (
            value > JUDGE_APPROVAL_ABOVE
            and not assume_approved
            and seat not in record.chief_approved  # D7
        ):
            found.append((seat, own, value, False, True, own))
        else:
            found.append((seat, own, value, True, False, value))
    if best:
        found.append((first, best, 0, False, False, best))
    return found


def disqualifications(record: GameRecord) -> list[tuple[int, int]]:
    """(seat, -0.5 in hundredths) for each disqualified seat (8.2.4)."""
    seats: tuple[int, ...] = record.disqualified  # type: ignore[assignment]
    return [(seat, DISQUALIFICATION) for seat in seats]


def penalty_points(record: GameRecord) -> list[tuple[int, int]]:
    """(seat, the cost of its penalties in hundredths, −0.4 each) for each penalised seat (8.5)."""
    penalties: _Penalties = record.penalties  # type: ignore[assignment]
    return [(seat, sum(PENALTIES[rule].cost for rule in rules)) for seat, rules in penalties]


Bonus = tuple[int, int, int, bool, bool, int]
_JudgeValues = tuple[tuple[int, int, object], ...]
_Penalties = tuple[tuple[int, tuple[str, ...]], ...]
