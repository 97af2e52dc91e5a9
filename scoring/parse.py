"""A tournament file (docs/formats.md, "Input") → ``Tournament``.

Two kinds of trouble are told apart:

* **structure** — not JSON, a required field missing (``distance``, ``games``, a
  game's ``id``, ``result`` or ``seats``, a seat's ``player`` or ``role``), a player
  or role that is not a string, a list or object where the contract has something
  else: ``InputError``, whose message is one line naming the file and the field;
* **rules** — a value of the right shape that breaks docs/rules.md (11 seats, an unknown
  role, seat 12, judge's points 0.333, ``day1_voted_out`` of ``"two"``…): carried into
  the game as given and reported by ``validate.py``, one line per problem.

Judge's points are read exactly: JSON numbers through ``Decimal`` (``load_json``) and
decimal strings through ``Decimal`` too, so 0.1 is exactly 1/10 (D3, D6).
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from operator import itemgetter
from sys import intern

from .problems import N_, Problem
from .record import (
    SEAT_KEYS,
    GameRecord,
    JudgeValue,
    arrangement,
    exact_number,
    game_of_record,
    hundredths,
    show_given,
)
from .ruleset import Ruleset
from .typing_shim import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .model import Game, Tournament
    from .stages import Stage


class InputError(ValueError):
    """A file that is not a tournament: the message is one line naming file and field."""


class TournamentRecords:
    """A tournament read into records (the fast path of the command line)."""

    __slots__ = ("distance", "games", "lot")

    def __init__(self, distance: int, lot: tuple[str, ...], games: list[GameRecord]) -> None:
        self.distance = distance
        self.lot = lot
        self.games = games


def load_json(content: bytes | str, source: str = "<input>") -> object:
    """Decode JSON text, reading every JSON number with a fraction as an exact ``Decimal``.

    Equal numerals share one ``Decimal`` (a tournament repeats a few values thousands of
    times), which makes the judge's values quick to convert (``read_game``).
    """
    try:
        return json.loads(content, parse_float=_Numbers().__getitem__)
    except json.JSONDecodeError as error:
        raise InputError(
            f"{source}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except UnicodeDecodeError as error:
        raise InputError(f"{source}: not valid UTF-8 text: {error.reason}") from None
    except (ValueError, RecursionError) as error:  # e.g. a number of 5,000 digits
        raise InputError(f"{source}: not valid JSON: {error}") from None


def parse_tournament(data: object, source: str = "<input>") -> Tournament:
    """A decoded tournament file → ``Tournament`` (raises ``InputError`` on structure)."""
    from .model import Tournament  # the data classes only when they are asked for

    read = read_tournament(data, source)
    return Tournament(
        distance=read.distance,
        games=tuple(game_of_record(record) for record in read.games),
        lot=read.lot,
    )


def parse_game(data: object, source: str = "<input>", where: str = "game") -> Game:
    """One decoded game object → ``Game`` (raises ``InputError`` on structure)."""
    return game_of_record(read_game(data, source, where))


def read_tournament(data: object, source: str = "<input>") -> TournamentRecords:
    """A decoded tournament file → records, checking its structure only."""
    head = read_head(data, source)
    records = [read_game(game, source, index) for index, game in enumerate(head.games)]
    return TournamentRecords(head.distance, head.lot, records)


class TournamentHead:
    """A tournament file's own fields, its games still as decoded JSON objects; ``stages``
    as decoded too (None: the file has none, it is one stage)."""

    __slots__ = ("distance", "games", "lot", "stages")

    def __init__(
        self, distance: int, lot: tuple[str, ...], games: list[object], stages: object = None
    ) -> None:
        self.distance = distance
        self.lot = lot
        self.games = games
        self.stages = stages


def read_head(data: object, source: str = "<input>") -> TournamentHead:
    """The structure checks of a tournament file's own fields (``read_game`` does games)."""
    if type(data) is not dict:
        raise InputError(f"{source}: a tournament file must be a JSON object")
    distance = data.get("distance")
    if distance is None:
        raise _missing(source, "distance")
    if type(distance) is not int or distance < 1:
        raise InputError(f"{source}: distance: must be a whole number of games, at least 1")
    lot = data.get("lot")
    if lot is None:
        lot = []
    if type(lot) is not list or not all(type(name) is str for name in lot):
        raise InputError(f"{source}: lot: must be a list of player names")
    games = data.get("games")
    if games is None:
        raise _missing(source, "games")
    if type(games) is not list:
        raise InputError(f"{source}: games: must be a list of games")
    return TournamentHead(distance, tuple(lot), games, data.get("stages"))


def read_stages(data: object) -> tuple[list[Stage], list[Problem]]:
    """A file's ``stages`` → ``Stage``s, with a D13 problem for each value of the wrong
    kind (then a stand-in value, so that every problem is still found); the settings'
    own rules are ``stages.check_stages``'s."""
    from .stages import STAGES, Stage  # only for a file with stages

    if type(data) is not list:
        return [], [_stage_problem(STAGES, N_("stages must be a list of stages"))]
    stages: list[Stage] = []
    problems: list[Problem] = []
    for index, item in enumerate(data):
        if type(item) is not dict:
            template = N_("stages[{index}] must be an object")
            problems.append(_stage_problem(STAGES, template, index=index))
            continue
        stage_id = item.get("id")
        if type(stage_id) is not str or not stage_id.strip():
            template = N_("stages[{index}].id must be a non-empty string")
            problems.append(_stage_problem(STAGES, template, index=index))
            stage_id = f"stages[{index}]"
        found: list[object] = []
        for name, default, kind in _STAGE_FIELDS:
            value = item.get(name)
            if value is None:
                value = default
            elif not kind(value):
                template = _STAGE_KINDS[name]
                shown = show_given(value)
                problems.append(_stage_problem(STAGES, template, stage=stage_id, value=shown))
                value = default
            elif name in ("carry", "weight"):
                value = exact_number(value)
            found.append(value)
        games, entrants, carry, weight, compensation, lot, replaced = found
        rules = Ruleset(
            cast(int, games),
            cast(bool, compensation),
            cast(Fraction, carry),
            cast(Fraction, weight),
        )
        stages.append(
            Stage(
                id=stage_id,
                rules=rules,
                entrants=cast("int | None", entrants),
                replaced=cast("dict[str, str]", replaced),
                lot=tuple(cast("list[str]", lot)),
            )
        )
    return stages, problems


def _whole(value: object) -> bool:
    return type(value) is int


def _factor(value: object) -> bool:
    return type(value) is not bool and exact_number(value) is not None


def _names(value: object) -> bool:
    return type(value) is list and all(type(name) is str for name in value)


def _replacements(value: object) -> bool:
    return type(value) is dict and all(type(name) is str for name in value.values())


# A stage's fields: (name, default, the check of its kind); the problem of each kind.
_STAGE_FIELDS: tuple[tuple[str, object, Callable[[object], bool]], ...] = (
    ("games_per_player", 1, _whole),
    ("entrants", None, _whole),
    ("carry", Fraction(0), _factor),
    ("weight", Fraction(1), _factor),
    ("compensation", True, lambda value: type(value) is bool),
    ("lot", (), _names),
    ("replaced", {}, _replacements),
)
_STAGE_KINDS = {
    "games_per_player": N_("stage {stage}: games_per_player {value} is not a whole number"),
    "entrants": N_("stage {stage}: entrants {value} is not a whole number"),
    "carry": N_("stage {stage}: carry {value} is not a number"),
    "weight": N_("stage {stage}: weight {value} is not a number"),
    "compensation": N_("stage {stage}: compensation {value} is not true or false"),
    "lot": N_("stage {stage}: lot {value} is not a list of player names"),
    "replaced": N_("stage {stage}: replaced {value} is not an object player → player"),
}


def _stage_problem(where: str, template: str, **params: object) -> Problem:
    return Problem(where, "D13", template, params)


_player = itemgetter("player")
_role = itemgetter("role")
_NONE: tuple[Any, ...] = ()
_new_record = tuple.__new__
# hundredths() of the judge's values seen so far (decimal strings, Decimals): a
# tournament repeats the same few values thousands of times.
_HUNDREDTHS: dict[object, int | None] = {}


class _Numbers(dict[str, Decimal]):
    """JSON numerals → ``Decimal``, one object per numeral (``load_json``)."""

    def __missing__(self, numeral: str) -> Decimal:
        number = self[numeral] = Decimal(numeral)
        return number


def read_game(data: object, source: str = "<input>", where: int | str = "game") -> GameRecord:
    """One decoded game object → its record (the structure checks of ``parse_tournament``).

    ``where`` is the game's index in ``games`` (or a label) for error messages. This
    runs for every game of a file, so it is written for speed: C-level ``map``s and
    ``__class__`` checks, no per-seat Python code.
    """
    if data.__class__ is not dict:
        raise InputError(f"{source}: {_place(where)}: a game must be a JSON object")
    get = data.get
    game_id = get("id")
    result = get("result")
    seats = get("seats")
    if game_id.__class__ is not str or result is None or seats.__class__ is not list:
        raise _game_error(data, source, where)
    if not game_id.strip():
        raise _game_error(data, source, where)
    try:
        # Interned: the rest of the work compares and counts the same ~1,000 names and 4
        # roles 100,000 times; intern() also rejects a value that is not a string. (An
        # unknown role string is a rule problem, for validation.)
        players = tuple(map(intern, map(_player, seats)))
        roles = tuple(map(intern, map(_role, seats)))
    except (KeyError, TypeError):
        raise _seat_error(source, where, game_id, seats) from None

    voted_out = get("day1_voted_out", 0)
    if voted_out is None:
        voted_out = 0
    hint = get("best_move_hint", False)
    if hint.__class__ is not bool:
        hint = _optional(hint, False, source, where, game_id, "best_move_hint", "true or false")
    best = get("best_move", _NONE)
    if best.__class__ is list:
        best = tuple(best)
    elif best is not _NONE:
        best = _optional(best, _NONE, source, where, game_id, "best_move", _SEATS)
    disqualified = get("disqualified", _NONE)
    if disqualified.__class__ is list:
        disqualified = tuple(disqualified)
    elif disqualified is not _NONE:
        disqualified = _optional(
            disqualified, _NONE, source, where, game_id, "disqualified", _SEATS
        )
    judge = get("judge_extras", _NONE)
    if judge.__class__ is dict:
        judge = _judge(judge) if judge else _NONE
    elif judge is not _NONE:
        judge = _optional(judge, _NONE, source, where, game_id, "judge_extras", _SEAT_POINTS)
    approved = get("chief_approved", _NONE)
    if approved.__class__ is list:
        approved = tuple(approved)
    elif approved is not _NONE:
        approved = _optional(approved, _NONE, source, where, game_id, "chief_approved", _SEATS)
    penalties = get("penalties", _NONE)
    if penalties.__class__ is dict:
        penalties = _penalties(penalties, source, where, game_id) if penalties else _NONE
    elif penalties is not _NONE:
        penalties = _optional(penalties, _NONE, source, where, game_id, "penalties", _SEAT_RULES)
    return _new_record(
        GameRecord,
        (
            game_id,
            result,
            players,
            roles,
            voted_out,
            get("first_killed"),
            best,
            hint,
            disqualified,
            judge,
            approved,
            penalties,
            arrangement(roles),
        ),
    )


_SEATS = "a list of seats"
_SEAT_POINTS = "an object seat → points"
_SEAT_RULES = "an object seat → list of rule ids"


def _optional(
    value: object,
    default: object,
    source: str,
    where: int | str,
    game_id: str,
    name: str,
    kind: str,
) -> Any:
    """An optional field given as null is its default; anything else of the wrong kind
    is a structure error."""
    if value is None:
        return default
    raise InputError(f"{source}: {_field(where, game_id, name)}: must be {kind}")


def _judge(value: dict[str, object]) -> tuple[JudgeValue, ...]:
    known = _HUNDREDTHS
    values = []
    for seat, points in value.items():
        if points.__class__ is str or points.__class__ is Decimal:
            try:
                exact = known[points]
            except KeyError:
                exact = hundredths(points)
                if len(known) < 10_000:
                    known[points] = exact
            except (TypeError, ValueError):  # a signalling NaN cannot be hashed
                exact = None
        else:
            exact = hundredths(points)
        values.append((SEAT_KEYS.get(seat, seat), exact, points))
    return tuple(values)


def _penalties(
    value: dict[str, object], source: str, where: int | str, game_id: str
) -> tuple[tuple[object, tuple[object, ...]], ...]:
    penalties = []
    for seat, rules in value.items():
        if type(rules) is not list:
            field = _field(where, game_id, f"penalties.{seat}")
            raise InputError(f"{source}: {field}: must be a list of rule ids")
        penalties.append((SEAT_KEYS.get(seat, seat), tuple(rules)))
    return tuple(penalties)


def _game_error(data: dict[str, object], source: str, where: int | str) -> InputError:
    game_id = data.get("id")
    if game_id is None:
        return _missing(source, f"{_place(where)}.id")
    if type(game_id) is not str or not game_id.strip():
        return InputError(f"{source}: {_place(where)}.id: must be a non-empty string")
    for name in ("result", "seats"):
        if data.get(name) is None:
            return _missing(source, _field(where, game_id, name))
    return InputError(f"{source}: {_field(where, game_id, 'seats')}: must be a list of seats")


def _seat_error(source: str, where: int | str, game_id: str, seats: list[object]) -> InputError:
    for index, seat in enumerate(seats):
        if type(seat) is not dict:
            field = _field(where, game_id, f"seats[{index}]")
            return InputError(f"{source}: {field}: a seat must be an object {{player, role}}")
        for key in ("player", "role"):
            field = _field(where, game_id, f"seats[{index}].{key}")
            if key not in seat:
                return _missing(source, field)
            if type(seat[key]) is not str:
                return InputError(f"{source}: {field}: must be a string")
    return InputError(f"{source}: {_field(where, game_id, 'seats')}: malformed seats")


def _place(where: int | str) -> str:
    return f"games[{where}]" if isinstance(where, int) else where


def _field(where: int | str, game_id: str, name: str) -> str:
    return f"{_place(where)}.{name} (game {game_id})"


def _missing(source: str, field: str) -> InputError:
    return InputError(f"{source}: {field}: required field is missing")
