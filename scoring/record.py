"""The compact, tolerant form of one game's protocol that the rules read.

Validation (``validate.py``) and points (``points.py``, ``standings.py``) work on a
``GameRecord``: plain tuples of what the judge recorded, built either from a JSON
object (``parse.py``, the fast path of the command line) or from a ``model.Game``
(the bot). Each rule is therefore written once, whatever the source of the game.

A record keeps values *as given*: an unknown role, a seat number 11 or judge's points
of 0.333 stay in it so that validation can name them. Judge's points are also held in
exact integer hundredths (D6) when they have at most two decimals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from operator import itemgetter

from .table import ROLE_COUNTS, SEAT_NUMBERS, Result, Role
from .typing_shim import TYPE_CHECKING, NamedTuple, cast

if TYPE_CHECKING:
    from typing import TypeVar

    from .model import Game

    _T = TypeVar("_T")

RED_ROLES = frozenset(role.value for role in Role if role.is_red)
RESULTS = frozenset(result.value for result in Result)
ROLES_BY_VALUE: Mapping[str, Role] = {role.value: role for role in Role}
RESULTS_BY_VALUE: Mapping[str, Result] = {result.value: result for result in Result}
# The ten roles of a table, sorted: a valid game's roles sort to exactly this.
TABLE_ROLES = tuple(sorted(role.value for role, n in ROLE_COUNTS.items() for _ in range(n)))
# JSON object keys that name a seat.
SEAT_KEYS: Mapping[str, int] = {str(n): n for n in SEAT_NUMBERS}


def is_seat(value: object) -> bool:
    """A seat number 1-10 (an ``int``, not a ``bool`` nor ``3.0``)."""
    return value.__class__ is int and value in _SEAT_SET


def are_seats(values: tuple[object, ...]) -> bool:
    """``is_seat`` of every value, in two C-level steps (best moves, every game)."""
    return _INT.issuperset(map(type, values)) and _SEAT_SET.issuperset(values)


_SEAT_SET = frozenset(SEAT_NUMBERS)
_INT = frozenset({int})


# Judge's extra points for one seat, as recorded: (seat, hundredths, given). ``seat`` is
# the seat number (a JSON key "1"…"10" read as 1…10; any other key stays as given);
# ``hundredths`` is the exact value × 100 when it has at most two decimals (D6), else
# None; ``given`` is the value as recorded, for messages. (A plain tuple: a tournament
# has tens of thousands.)
JudgeValue = tuple[object, int | None, object]


class Arrangement(NamedTuple):
    """Where the teams sit in a game with valid roles (seats are 1-based)."""

    red: frozenset[int]
    black: frozenset[int]
    red_players: Callable[[tuple[str, ...]], tuple[str, ...]]  # players of the team
    black_players: Callable[[tuple[str, ...]], tuple[str, ...]]
    sheriff: int  # index into players (0-based)
    don: int


class GameRecord(NamedTuple):
    id: str
    result: object
    players: tuple[str, ...]
    roles: tuple[object, ...]
    day1_voted_out: object
    first_killed: object
    best_move: tuple[object, ...]
    best_move_hint: bool
    disqualified: tuple[object, ...]
    judge_extras: tuple[JudgeValue, ...]
    chief_approved: tuple[object, ...]
    penalties: tuple[tuple[object, tuple[object, ...]], ...]
    # the teams' seats, from ``arrangement(roles)``: None when the roles break the rule
    teams: Arrangement | None


_Pick = Callable[[tuple[str, ...]], tuple[str, ...]]
# Arrangements by role tuple (at most 2,520 valid ones), and the teams' seats by the
# (sorted) black seats (120 possible): a miss in the first costs little.
_ARRANGEMENTS: dict[tuple[object, ...], Arrangement] = {}
_TEAMS: dict[tuple[int, ...], tuple[frozenset[int], frozenset[int], _Pick, _Pick]] = {}
_ROLE_VALUES = tuple(role.value for role in ROLE_COUNTS)
_ROLE_NUMBERS = tuple(ROLE_COUNTS.values())
_SEATS = len(TABLE_ROLES)
_SHERIFF = Role.SHERIFF.value
_DON = Role.DON.value
_new_tuple = tuple.__new__


def arrangement(roles: tuple[object, ...]) -> Arrangement | None:
    """The teams' seats, or ``None`` when the roles are not 6 civilians, a sheriff,
    2 mafia and a don at 10 seats (the ``roles`` rule)."""
    try:
        found = _ARRANGEMENTS.get(roles)
    except TypeError:  # an unhashable role
        return None
    return _arrange(roles) if found is None else found


def _arrange(roles: tuple[object, ...]) -> Arrangement | None:
    if len(roles) != _SEATS or tuple(map(roles.count, _ROLE_VALUES)) != _ROLE_NUMBERS:
        return None
    black = tuple(i for i, role in enumerate(roles) if role not in RED_ROLES)
    teams = _TEAMS.get(black)
    if teams is None:
        red = tuple(i for i in range(_SEATS) if i not in black)
        teams = _TEAMS[black] = (
            frozenset(i + 1 for i in red),
            frozenset(i + 1 for i in black),
            cast(_Pick, itemgetter(*red)),
            cast(_Pick, itemgetter(*black)),
        )
    found: Arrangement = _new_tuple(  # the NamedTuple's fields, in order
        Arrangement, (*teams, roles.index(_SHERIFF), roles.index(_DON))
    )
    _ARRANGEMENTS[roles] = found
    return found


def hundredths(value: object) -> int | None:
    """``value`` × 100 exactly, if it is a number with at most two decimals (D6).

    Accepts what a judge's points can be recorded as: an ``int``, a ``Decimal`` (the
    command line reads JSON numbers as ``Decimal``), a decimal string such as
    ``"0.35"``, a ``Fraction``, or a ``float`` (read through its shortest ``repr``,
    so ``0.1`` is exactly 1/10). Anything else, or more decimals, gives ``None``.
    """
    if value.__class__ is Decimal:  # the common case first: integer arithmetic only
        try:
            numerator, denominator = value.as_integer_ratio()
        except (ValueError, OverflowError):  # NaN, infinity
            return None
    else:
        ratio = _ratio(value)
        if ratio is None:
            return None
        numerator, denominator = ratio
    numerator *= 100
    return numerator // denominator if numerator % denominator == 0 else None


def exact_number(value: object) -> Fraction | None:
    """``value`` as an exact ``Fraction`` (accepting what ``hundredths`` does), or ``None``."""
    ratio = _ratio(value)
    return None if ratio is None else Fraction(*ratio)


def _ratio(value: object) -> tuple[int, int] | None:
    # Integer arithmetic only: this runs for every judge's value of a tournament.
    kind = type(value)
    if kind is Decimal:
        number = cast(Decimal, value)
    elif kind is int:
        return cast(int, value), 1
    elif kind is str or kind is float:
        try:
            number = Decimal(cast(str, value) if kind is str else repr(value))
        except (InvalidOperation, ValueError):
            return None
    elif kind is Fraction:
        return cast(Fraction, value).as_integer_ratio()
    else:
        return None
    if not number.is_finite():
        return None
    return number.as_integer_ratio()


def show_number(value: Fraction | int) -> str:
    """A short decimal for messages: 0.3, 0.75, 1, -0.4, 0.333."""
    exact = Fraction(value)
    if exact.denominator == 1:
        return str(exact.numerator)
    scaled = exact * 100
    if scaled.denominator == 1:
        text = f"{abs(scaled.numerator):03d}"
        text = f"{text[:-2]}.{text[-2:]}".rstrip("0")
        return ("-" if exact < 0 else "") + text
    return str(Decimal(exact.numerator) / Decimal(exact.denominator))


def show_given(value: object) -> str:
    """How a recorded value is named in a message."""
    if isinstance(value, str):
        return repr(value) if not value.strip() else value
    if isinstance(value, Fraction):
        return show_number(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def record_of_game(game: Game) -> GameRecord:
    """The record of a ``model.Game`` (the bot's path to the rules)."""
    roles = tuple(seat.role for seat in game.seats)
    return GameRecord(
        id=game.id,
        result=game.result,
        players=tuple(seat.player for seat in game.seats),
        roles=roles,
        day1_voted_out=game.day1_voted_out,
        first_killed=game.first_killed,
        best_move=tuple(game.best_move),
        best_move_hint=game.best_move_hint,
        disqualified=tuple(game.disqualified),
        judge_extras=tuple(
            (seat, hundredths(value), value) for seat, value in game.judge_extras.items()
        ),
        chief_approved=tuple(game.chief_approved),
        penalties=tuple((seat, tuple(rules)) for seat, rules in game.penalties.items()),
        teams=arrangement(roles),
    )


def game_of_record(record: GameRecord) -> Game:
    """The ``model.Game`` of a record.

    A game that breaks a rule keeps the offending values as given (an unknown role
    string, a seat 11, a non-numeric judge's value), so that ``validate_game`` can
    report them; only games without problems have every field of its declared type.
    """
    from .model import Game, Seat  # the data classes only when they are asked for

    judge: dict[int, Fraction] = {}
    for seat, _hundredths, given in record.judge_extras:
        exact = exact_number(given)
        judge[cast(int, seat)] = exact if exact is not None else cast(Fraction, given)
    return Game(
        id=record.id,
        result=_as(RESULTS_BY_VALUE, record.result, Result),
        seats=tuple(
            Seat(player, _as(ROLES_BY_VALUE, role, Role))
            for player, role in zip(record.players, record.roles, strict=True)
        ),
        day1_voted_out=cast(int, record.day1_voted_out),
        first_killed=cast("int | None", record.first_killed),
        best_move=cast(tuple[int, ...], record.best_move),
        best_move_hint=record.best_move_hint,
        disqualified=cast(tuple[int, ...], record.disqualified),
        judge_extras=judge,
        chief_approved=_frozen(record.chief_approved),
        penalties={
            cast(int, seat): cast(tuple[str, ...], rules) for seat, rules in record.penalties
        },
    )


def _frozen(seats: tuple[object, ...]) -> frozenset[int]:
    try:
        return frozenset(cast(tuple[int, ...], seats))
    except TypeError:  # something unhashable where seats belong: kept for validation
        return cast("frozenset[int]", seats)


def _as(by_value: Mapping[str, _T], value: object, kind: type[_T]) -> _T:
    if isinstance(value, kind):
        return value
    if isinstance(value, str) and value in by_value:
        return by_value[value]
    return cast("_T", value)
