"""A career-rating file (docs/formats.md#rating) → games and sums, and the command's JSON.

The whole file is checked before anything is computed; the first thing wrong raises
``InputError`` with one line naming the game (its place in ``games`` and its id) and the
field. Fields the format does not know are ignored.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from .elo import FULL_TABLE, NEWCOMER, EloGame, EloKind, EloReplay, EloSeat, EloSums, replay_elo
from .parse import InputError
from .table import Result, Role

# The error of a field of one game: (field, message) → the line naming both.
_Error = Callable[[str, str], InputError]

_KINDS = {kind.value: kind for kind in EloKind}
_ROLES = {role.value: role for role in Role}
_WINNERS = {"red": Result.RED, "black": Result.BLACK, None: None}


@dataclass(frozen=True, slots=True)
class EloFile:
    initial: dict[str, EloSums]
    games: list[EloGame]


def read_elo_file(data: object, source: str = "<input>") -> EloFile:
    """A decoded rating file → its initial sums and games (``InputError`` on anything
    the format does not allow)."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: a rating file must be a JSON object")
    initial = _initial(data.get("initial"), source)
    if "games" not in data:
        raise InputError(f"{source}: games: required field is missing")
    games = data["games"]
    if not isinstance(games, list):
        raise InputError(f"{source}: games: must be a list of games")
    return EloFile(initial, [_game(game, source, index) for index, game in enumerate(games)])


def _initial(data: object, source: str) -> dict[str, EloSums]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"{source}: initial: must be an object player → {{red, black}}")
    initial = {}
    for player, sums in data.items():
        where = f"initial.{_shown(player)}"
        if not player.strip():
            raise InputError(f"{source}: {where}: a player's key must be a non-empty string")
        if not isinstance(sums, dict):
            raise InputError(f"{source}: {where}: must be an object {{red, black}}")
        red, black = (_sum(sums, colour, source, where) for colour in ("red", "black"))
        initial[player] = EloSums(red, black)
    return initial


def _sum(sums: dict[str, object], colour: str, source: str, where: str) -> float:
    if colour not in sums:
        raise InputError(f"{source}: {where}.{colour}: required field is missing")
    value = sums[colour]
    number = None
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        # load_json reads 52.97 as a Decimal: float() of it is the nearest double, as
        # float("52.97") is.
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any double
            number = None
    if number is None or not math.isfinite(number):
        raise InputError(f"{source}: {where}.{colour}: must be a finite number")
    return number


def _game(data: object, source: str, index: int) -> EloGame:
    place = f"games[{index}]"
    if not isinstance(data, dict):
        raise InputError(f"{source}: {place}: a game must be a JSON object")
    game_id = data.get("id")
    if game_id is None:
        raise InputError(f"{source}: {place}.id: required field is missing")
    if not isinstance(game_id, str) or not game_id.strip():
        raise InputError(f"{source}: {place}.id: must be a non-empty string")

    def error(name: str, message: str) -> InputError:
        return InputError(f"{source}: {place}.{name} (game {_shown(game_id)}): {message}")

    for name in ("kind", "players", "winner"):
        if name not in data:
            raise error(name, "required field is missing")
    kind = _KINDS.get(data["kind"]) if isinstance(data["kind"], str) else None
    if kind is None:
        known = ", ".join(_KINDS)
        raise error("kind", f"unknown kind {_given(data['kind'])}; one of {known}")
    seats = _seats(data["players"], error)
    winner = data["winner"]
    if not (winner is None or isinstance(winner, str)) or winner not in _WINNERS:
        raise error("winner", f"unknown winner {_given(winner)}; one of red, black, null")
    rated = data.get("rated")
    if rated is None:
        rated = True
    elif not isinstance(rated, bool):
        raise error("rated", f"must be true or false, not {_given(rated)}")
    return EloGame(game_id, kind, seats, _WINNERS[winner], rated)


def _seats(data: object, error: _Error) -> tuple[EloSeat, ...]:
    if not isinstance(data, list):
        raise error("players", "must be a list of players {player, role}")
    if not data:
        raise error("players", f"no player; a game has 1 to {FULL_TABLE}")
    if len(data) > FULL_TABLE:
        raise error("players", f"{len(data)} players; a game has 1 to {FULL_TABLE}")
    seats = []
    seen: dict[str, int] = {}
    for number, item in enumerate(data):
        field = f"players[{number}]"
        if not isinstance(item, dict):
            raise error(field, "a player must be an object {player, role}")
        for name in ("player", "role"):
            if name not in item:
                raise error(f"{field}.{name}", "required field is missing")
        player = item["player"]
        if not isinstance(player, str) or not player.strip():
            raise error(f"{field}.player", "must be a non-empty string")
        if player in seen:
            raise error(
                f"{field}.player",
                f"{_shown(player)} plays twice in the game (players[{seen[player]}] too)",
            )
        seen[player] = number
        role = _ROLES.get(item["role"]) if isinstance(item["role"], str) else None
        if role is None:
            known = ", ".join(_ROLES)
            raise error(f"{field}.role", f"unknown role {_given(item['role'])}; one of {known}")
        seats.append(EloSeat(player, role))
    return tuple(seats)


def elo_json(file: EloFile) -> str:
    """The command's output: each game's odds and changes, then every player met (in
    ``initial`` or a game) by rating from the highest, equal ratings by key. Numbers
    as computed, not rounded (``repr`` of a float reads back as the same float)."""
    done = replay_elo(file.games, file.initial)
    return json.dumps(elo_output(file, done), ensure_ascii=False)


def elo_output(file: EloFile, done: EloReplay) -> dict[str, object]:
    played = dict.fromkeys(file.initial, 0)
    for game, change in zip(file.games, done.games, strict=True):
        for seat in game.seats:
            played[seat.player] = played.get(seat.player, 0) + (1 if change.counts else 0)
    sums = done.sums
    ranked = sorted(
        ((player, sums.get(player, NEWCOMER)) for player in played),
        key=lambda row: (-row[1].rating, row[0]),
    )
    return {
        "games": [
            {"id": change.id, "red_odds": change.red_odds, "changes": change.changes}
            for change in done.games
        ],
        "players": [
            {
                "player": player,
                "rating": mine.rating,
                "red": mine.red,
                "black": mine.black,
                "games": played[player],
            }
            for player, mine in ranked
        ],
    }


def _shown(text: str) -> str:
    """A key or id in a message: as it is, or quoted when it would break the line."""
    if text.isprintable() and text.strip() == text:
        return text
    return json.dumps(text, ensure_ascii=False)


def _given(value: object) -> str:
    """A value given in the file, as JSON (a string in quotes), cut short when long."""
    if isinstance(value, Decimal):
        text = str(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
