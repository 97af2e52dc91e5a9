"""The rules as a judge needs them while he enters a game (docs/organiser.md).

The judge's card offers only what the rules allow and refuses the rest; it asks here,
so that every rule stays written in the engine once. Everything here is pure and
works on the engine's own values (``Role``, ``Result``, seats 1-10, judge's points in
integer hundredths as in ``rules.py``, best-move points as ``Fraction``s):

* penalties (8.5, D8): ``penalty_allowed``, ``penalties_allowed``, ``penalty_points``;
* judge's extra points (8.4): ``judge_points_allowed`` (8.4.7), ``judge_cap`` (8.4.3,
  8.4.4), ``needs_approval`` and ``APPROVAL_THRESHOLD`` (D7), ``judge_points_count``
  and ``counted_extras`` (8.4.2 with 8.4.6 and D4), ``extra_limit`` (the values a seat
  may still get and the rule that binds them), ``best_move_points`` (what 8.4.6 weighs
  them against);
* the best move and day 1 (8.3, 8.3.2, 8.3.6): ``best_move_allowed``,
  ``BEST_MOVE_NUMBERS_MAX``, ``DAY1_CHOICES``;
* Ci (8.6, D1): ``compensated``, ``first_night_deaths`` and ``first_killed_ci``;
* points for people: ``format_points`` (D3), and ``parse_points`` / ``POINTS_PATTERN``
  with ``points_hundredths`` (D6) for points a judge types.

``validate_game`` stays the judge of a whole game: what is offered here is accepted
by it and what is refused here is refused by it (``tests/scoring/test_judging.py``).

Light on purpose, like the command line that uses ``format_points``: no data classes,
no ``typing`` at run time.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .record import hundredths, record_of_game
from .rules import (
    BEST_MOVE_DAY1_LIMIT,
    BEST_MOVE_NUMBERS_MAX,
    JUDGE_APPROVAL_ABOVE,
    JUDGE_LOSER_MAX,
    JUDGE_PLAYERS_MAX,
    JUDGE_SUM_MAX,  # 8.4.2: at most 1.0 (hundredths) of what counts; re-exported
    JUDGE_WINNER_MAX,
)
from .rules import best_move_points as _best_move_hundredths
from .ruleset import PENALTIES, PENALTY_RULES, Ruleset
from .table import Result, Role
from .typing_shim import TYPE_CHECKING, NamedTuple
from .validate import DAY1_VOTED_OUT_MAX, check_record

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from .model import Game, Tournament

__all__ = [
    "APPROVAL_THRESHOLD",
    "BEST_MOVE_NUMBERS_MAX",
    "DAY1_CHOICES",
    "EXTRA_STEP",
    "JUDGE_SUM_MAX",
    "MINUS",
    "POINTS_PATTERN",
    "Cap",
    "CiInfo",
    "ExtraLimit",
    "best_move_allowed",
    "best_move_points",
    "compensated",
    "counted_extras",
    "extra_limit",
    "first_killed_ci",
    "first_night_deaths",
    "format_points",
    "judge_cap",
    "judge_points_allowed",
    "judge_points_count",
    "needs_approval",
    "parse_points",
    "penalties_allowed",
    "penalty_allowed",
    "penalty_points",
    "points_hundredths",
]

# -- the best move and day 1 (8.3) ---------------------------------------------------------

# How many players the day-1 vote can take (the protocol's choices, 0-3).
DAY1_CHOICES = range(DAY1_VOTED_OUT_MAX + 1)


def best_move_allowed(first_killed: int | None, day1_voted_out: int | None) -> bool:
    """8.3: somebody was shot on night 1, and fewer than 2 left by the day-1 vote (8.3.6).
    ``None``: not entered yet (then no best move yet either)."""
    return (
        first_killed is not None
        and day1_voted_out is not None
        and day1_voted_out < BEST_MOVE_DAY1_LIMIT
    )


# -- penalties (8.5, D8) ------------------------------------------------------------------


def penalty_allowed(role: Role | None, result: Result | None, rule: str) -> bool:
    """Whether a seat of ``role`` may get penalty ``rule`` in a game of ``result`` (D8);
    False while the role or the result is not known."""
    penalty = PENALTIES.get(rule)
    if penalty is None or role is None or result is None:
        return False
    return role.value in penalty.roles and result.value in penalty.results


def penalties_allowed(role: Role | None, result: Result | None) -> tuple[str, ...]:
    """The penalties of 8.5 a seat of ``role`` may get in a game of ``result``, in order."""
    return tuple(rule for rule in PENALTY_RULES if penalty_allowed(role, result, rule))


def penalty_points(rules: Sequence[str]) -> Fraction:
    """What the penalties ``rules`` (rule ids, "8.5.1"…) cost together (8.5: −0.4 each);
    an id that names no penalty costs nothing here (validation reports it, rule 8.5)."""
    return Fraction(sum(PENALTIES[rule].cost for rule in rules if rule in PENALTIES), 100)


# -- judge's extra points (8.4, D4-D7) -----------------------------------------------------

# The card's value buttons go in steps of 0.05 (typed values may have two decimals, D6).
EXTRA_STEP = 5
# Hundredths above which judge's points wait for the chief judge's approval, and to
# which he may lower them (8.4.3, D7).
APPROVAL_THRESHOLD = JUDGE_APPROVAL_ABOVE


class Cap(NamedTuple):
    """The most judge's points one seat may get, in hundredths, and the rule saying so."""

    most: int
    rule: str  # "8.4.3" (a winner) | "8.4.4" (a loser)


WINNER_CAP = Cap(JUDGE_WINNER_MAX, "8.4.3")
LOSER_CAP = Cap(JUDGE_LOSER_MAX, "8.4.4")


def judge_points_allowed(result: Result | None) -> bool:
    """8.4.7: no judge's extra points in a draw (``None``: the result is still open)."""
    return result is not Result.DRAW


def judge_cap(role: Role | None, result: Result | None) -> Cap | None:
    """A seat's cap (8.4.3 for the winning team, 8.4.4 for the losing one); None while
    the role or the result is not known, and in a draw (8.4.7)."""
    if role is None or result is None or result is Result.DRAW:
        return None
    return WINNER_CAP if role.team is result else LOSER_CAP


def needs_approval(value: int) -> bool:
    """D7: judge's points (hundredths) above 0.5 count only once the chief judge approves."""
    return value > APPROVAL_THRESHOLD


def judge_points_count(value: int, best: Fraction) -> bool:
    """8.4.6: judge's points (hundredths) count, towards 8.4.2 too, only when larger than
    the player's best-move points; a tie goes to the best move (D4)."""
    return Fraction(value, 100) > best


def counted_extras(extras: Mapping[int, int], best: Mapping[int, Fraction]) -> int:
    """Hundredths of judge's points that count towards the 1.0 of 8.4.2 (8.4.6, D4).
    ``extras``: seat → hundredths; ``best``: seat → best-move points."""
    zero = Fraction(0)
    return sum(v for seat, v in extras.items() if judge_points_count(v, best.get(seat, zero)))


class ExtraLimit(NamedTuple):
    """What one seat may still get: the values (hundredths, steps of ``EXTRA_STEP``) and
    the rule that stops them there: 8.4.3 / 8.4.4 its cap, 8.4.2 the sum, 8.4.1 four
    players, 8.4.7 a draw (or a seat without a cap yet)."""

    values: tuple[int, ...]
    rule: str

    @property
    def most(self) -> int:
        return max(self.values, default=0)


def extra_limit(
    seat: int, cap: Cap | None, extras: Mapping[int, int], best: Mapping[int, Fraction]
) -> ExtraLimit:
    """The values ``seat`` may get now, given its ``cap`` (``judge_cap``), the judge's
    points of the game (``extras``, seat → hundredths; the seat's own is replaced) and
    the seats' best-move points (``best_move_points``)."""
    if cap is None:
        return ExtraLimit((), "8.4.7")
    others = {s: v for s, v in extras.items() if s != seat}
    if len(others) >= JUDGE_PLAYERS_MAX:
        return ExtraLimit((), "8.4.1")
    values = tuple(
        value
        for value in range(EXTRA_STEP, cap.most + 1, EXTRA_STEP)
        if counted_extras({**others, seat: value}, best) <= JUDGE_SUM_MAX
    )
    if values and values[-1] == cap.most:
        return ExtraLimit(values, cap.rule)
    return ExtraLimit(values, "8.4.2")


def best_move_points(game: Game) -> dict[int, Fraction]:
    """Seat → the best-move points it gets in ``game`` (8.3.4-8.3.6, D5, D10), the
    judge's points left out: what 8.4.6 weighs them against. Empty while the game
    breaks another rule (then nothing is weighed)."""
    record = record_of_game(game)._replace(judge_extras=(), chief_approved=())
    teams = record.teams
    if teams is None or check_record(record):
        return {}
    points = _best_move_hundredths(record, teams)
    if not points or game.first_killed is None:
        return {}
    return {game.first_killed: Fraction(points, 100)}


# -- Ci (8.6.1, D1) ------------------------------------------------------------------------


def compensated(role: Role | None, result: Result | None) -> bool:
    """Whether a game gives its first-killed player of ``role`` Ci (8.6.2-8.6.3): he was
    a civilian or the sheriff (8.6) and the red team lost (a draw is no loss)."""
    return role is not None and role.is_red and result is Result.BLACK


class CiInfo(NamedTuple):
    i: int  # first-night deaths as a civilian or the sheriff over the tournament
    b: int  # B of 8.6.1
    ci: Fraction  # Ruleset.ci(i): ci_value(i, B), 0 with compensation off (D14)


def first_night_deaths(games: Iterable[Game], player: str, *, skip: str = "") -> int:
    """i of 8.6.1 over ``games`` (but the game with id ``skip``): the games in which
    ``player`` was shot on night 1 as a civilian or the sheriff, whatever the result (D1)."""
    count = 0
    for game in games:
        first = game.first_killed
        if first is None or game.id == skip:
            continue
        seat = game.seat(first)
        if seat.player == player and seat.role.is_red:
            count += 1
    return count


def first_killed_ci(
    tournament: Tournament, game: Game, *, replaces: str = "", rules: Ruleset | None = None
) -> CiInfo:
    """(i, B, Ci) of ``game``'s first-killed player over ``tournament`` with ``game``
    counted (8.6.1, D1). ``replaces``: the id of the stored game ``game`` is a new
    version of (a correction), not counted besides it. ``rules``: the ruleset the games
    are scored by (a stage's, D14: then ``tournament`` holds that stage's games only);
    by default the tournament's own."""
    rules = tournament.ruleset if rules is None else rules
    b = rules.B
    first = game.first_killed
    if first is None:
        return CiInfo(0, b, Fraction(0))
    seat = game.seat(first)
    known = tournament.first_night_red
    i = known(seat.player) if known is not None and not replaces else None
    if i is None:  # (a correction's old version is not counted: counted here)
        i = first_night_deaths(tournament.games, seat.player, skip=replaces)
    if seat.role.is_red:
        i += 1
    return CiInfo(i, b, rules.ci(i))


# -- points for people (D3, D6) --------------------------------------------------------------

MINUS = "\u2212"  # −: the minus sign people read


def format_points(
    value: Fraction | int, *, fixed: bool = False, minus: str = MINUS, point: str = "."
) -> str:
    """Exact points for display, rounded half away from zero to 2 decimals (D3).

    Short by default ("0.5", "1", "−0.4": the judge's card and messages); ``fixed``
    keeps both decimals ("0.50", "1.00": tables of standings). ``minus="-"`` for files
    that programs read (CSV, the command line); ``point`` is the decimal separator
    (a comma for Russian readers).
    """
    exact = Fraction(value)
    scaled, rest = divmod(abs(exact.numerator) * 100, exact.denominator)
    if 2 * rest >= exact.denominator:
        scaled += 1
    sign = minus if exact < 0 and scaled else ""
    whole, cents = divmod(scaled, 100)
    if fixed:
        return f"{sign}{whole}{point}{cents:02d}"
    if not cents:
        return f"{sign}{whole}"
    return f"{sign}{whole}{point}{cents:02d}".rstrip("0")


# A number of points as typed: digits, then "." or "," and decimals. The digits are
# bounded so that a pasted monster is simply not a number of points.
POINTS_PATTERN = r"[0-9]{1,6}(?:[.,][0-9]{1,12})?"
_POINTS = re.compile(POINTS_PATTERN)


def parse_points(text: str) -> Fraction | None:
    """The exact number in ``text`` ("0.35", "0,35", "1"), or None if it is not one."""
    if _POINTS.fullmatch(text) is None:
        return None
    return Fraction(text.replace(",", "."))


def points_hundredths(value: Fraction) -> int | None:
    """``value`` in hundredths, if it has at most two decimals (D6); else None."""
    return hundredths(value)
