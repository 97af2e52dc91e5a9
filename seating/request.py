"""A seating request (docs/formats.md#seating, "Request") → a checked ``Request``.

Every message is one line that says what is wrong and what to change; names are
quoted as JSON strings so that a name with a line break cannot split the line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from math import isfinite

from .model import MAX_GAMES, SEATS, Request, Round, SeatingError, Table
from .sitouts import choose_players, remaining_games

FIELDS = (
    "players", "games_per_player", "tables", "apart", "fixed_rounds", "previous_rounds",
    "withdrawn", "games_of", "seed", "time_limit",
)
ROUND_FIELDS = ("round", "tables", "sitting_out")
TABLE_FIELDS = ("table", "seats")


def load_request(content: bytes | str, source: str = "<input>") -> Request:
    """JSON text → ``Request``; ``SeatingError`` names ``source`` when it is not JSON."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError as error:
        raise SeatingError(
            f"{source}: not valid JSON ({error.msg} at line {error.lineno} column"
            f" {error.colno}): fix the request file"
        ) from None
    except UnicodeDecodeError as error:
        raise SeatingError(f"{source}: not UTF-8 text ({error.reason}): save it as UTF-8") from None
    except (ValueError, RecursionError) as error:  # e.g. a number of 5,000 digits
        raise SeatingError(f"{source}: not valid JSON ({error}): fix the request file") from None
    return parse_request(data)


def parse_request(data: object) -> Request:
    """A decoded JSON request → ``Request``, every rule checked (``SeatingError``)."""
    if type(data) is not dict:
        raise SeatingError(
            'the request must be a JSON object with "players" and "games_per_player"'
        )
    _known_fields(data, FIELDS, "the request")
    players = _players(data.get("players"))
    games = data.get("games_per_player")
    if games is None:
        raise SeatingError('"games_per_player" is missing: add how many games each player plays')
    if type(games) is not int:
        raise SeatingError(f'"games_per_player" must be a whole number, not {_show(games)}')
    tables = data.get("tables", len(players) // SEATS)
    if type(tables) is not int:
        raise SeatingError(f'"tables" must be a whole number, not {_show(tables)}')
    seed = data.get("seed", 0)
    if type(seed) is not int:
        raise SeatingError(f'"seed" must be a whole number, not {_show(seed)}')
    time_limit = data.get("time_limit", 20)
    if type(time_limit) not in (int, float):
        raise SeatingError(f'"time_limit" must be a number of seconds, not {_show(time_limit)}')
    request = Request(
        players=players,
        games_per_player=games,
        tables=tables,
        apart=_apart(data.get("apart", [])),
        fixed_rounds=_fixed_rounds(data.get("fixed_rounds", []), "fixed"),
        previous_rounds=_fixed_rounds(data.get("previous_rounds", []), "previous"),
        withdrawn=_names(data.get("withdrawn", []), '"withdrawn"'),
        games_of=_games_of(data.get("games_of", {})),
        seed=seed,
        time_limit=float(time_limit),
    )
    check_request(request)
    return request


def check_request(request: Request) -> None:
    """Raise ``SeatingError`` if ``request`` breaks a rule of the contract (for requests
    built in Python; ``parse_request`` has already called it)."""
    for name in request.players:
        if type(name) is not str or not name.strip():
            raise SeatingError(f"player names must be non-empty text, not {_show(name)}")
    known = set(request.players)
    for name in request.withdrawn:
        if name not in known:
            raise SeatingError(f'"withdrawn" names {_show(name)}, who is not in "players": fix it')
    for name, games in request.games_of.items():
        if name not in known:
            raise SeatingError(f'"games_of" names {_show(name)}, who is not in "players": fix it')
        if type(games) is not int or not 0 <= games <= MAX_GAMES:
            raise SeatingError(
                f'"games_of" gives {_show(name)} {_show(games)} games: give 0 to {MAX_GAMES}'
            )
    _check_sizes(request)
    for pair in request.apart:
        _check_apart_pair(pair, known)
    if type(request.seed) is not int:
        raise SeatingError(f'"seed" must be a whole number, not {_show(request.seed)}')
    _check_fixed(request)


def _check_sizes(request: Request) -> None:
    players = request.players
    count = len(players)
    if len(set(players)) != count:
        twice = next(name for n, name in enumerate(players) if name in players[:n])
        raise SeatingError(f"player {_show(twice)} is listed twice: give every player once")
    count = request.playing
    if count < SEATS:
        raise SeatingError(
            f"{count} players are too few: a table needs {SEATS}, add players"
        )
    games = request.games_per_player
    if type(games) is not int or not 1 <= games <= MAX_GAMES:
        raise SeatingError(
            f'"games_per_player" is {_show(games)}: it must be from 1 to {MAX_GAMES}'
        )
    seats = request.seats
    if seats % SEATS:
        left = seats - count * games
        sign = "+" if left > 0 else "-"
        also = f" {sign} {abs(left)} (withdrawn players, games_of)" if left else ""
        raise SeatingError(
            f"{count} players × {games} games{also} = {seats} seats, not a multiple of"
            f" {SEATS}: change games_per_player or the number of players"
        )
    everyone = len(players)  # the withdrawn count: they filled the played rounds
    most = everyone // SEATS
    tables = request.tables
    if type(tables) is not int or not 1 <= tables <= most:
        raise SeatingError(
            f'"tables" is {_show(tables)}: {everyone} players fill 1 to {most} tables at once,'
            " change tables or add players"
        )
    limit = request.time_limit
    if type(limit) not in (int, float) or not isfinite(limit) or limit <= 0:
        raise SeatingError(f'"time_limit" is {_show(limit)}: give a positive number of seconds')


def _players(value: object) -> tuple[str, ...]:
    if value is None:
        raise SeatingError('"players" is missing: add the list of player names')
    if type(value) is not list:
        raise SeatingError(f'"players" must be a list of names, not {_show(value)}')
    for name in value:
        if type(name) is not str or not name.strip():
            raise SeatingError(
                f'"players" must hold non-empty names, not {_show(name)}: fix that entry'
            )
    return tuple(value)


def _games_of(value: object) -> dict[str, int]:
    if type(value) is not dict or not all(type(n) is int for n in value.values()):
        raise SeatingError(
            f'"games_of" must map player names to whole numbers of games, not {_show(value)}'
        )
    return dict(value)


def _apart(value: object) -> tuple[tuple[str, str], ...]:
    if type(value) is not list:
        raise SeatingError(f'"apart" must be a list of pairs of names, not {_show(value)}')
    pairs = []
    for pair in value:
        if type(pair) is not list or len(pair) != 2 or not all(type(n) is str for n in pair):
            raise SeatingError(
                f'"apart" must be a list of pairs of names like ["Ace", "Bat"], not {_show(pair)}'
            )
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


def _check_apart_pair(pair: tuple[str, str], known: set[str]) -> None:
    if len(pair) != 2:
        raise SeatingError(f'an "apart" pair must name two players, not {_show(list(pair))}')
    for name in pair:
        if name not in known:
            raise SeatingError(f'"apart" names {_show(name)}, who is not in "players": fix it')
    if pair[0] == pair[1]:
        raise SeatingError(f'"apart" pairs {_show(pair[0])} with themself: name two players')


def _fixed_rounds(value: object, kind: str) -> tuple[Round, ...]:
    """The rounds of "fixed_rounds" or "previous_rounds" (``kind``), as written."""
    if type(value) is not list:
        raise SeatingError(f'"{kind}_rounds" must be a list of rounds, not {_show(value)}')
    rounds = []
    for item in value:
        if type(item) is not dict:
            raise SeatingError(f'"{kind}_rounds" must hold round objects, not {_show(item)}')
        _known_fields(item, ROUND_FIELDS, f"a {kind} round")
        number = item.get("round")
        if type(number) is not int:
            raise SeatingError(
                f'a {kind} round needs "round", its number from 1, not {_show(number)}'
            )
        where = f"{kind} round {number}"
        tables = item.get("tables")
        if type(tables) is not list:
            raise SeatingError(f'{where}: "tables" must be a list of tables, not {_show(tables)}')
        rounds.append(
            Round(
                round=number,
                tables=tuple(_table(table, where) for table in tables),
                sitting_out=_names(item.get("sitting_out", []), f'{where}: "sitting_out"'),
            )
        )
    return tuple(rounds)


def _table(value: object, where: str) -> Table:
    if type(value) is not dict:
        raise SeatingError(f"{where}: a table must be an object, not {_show(value)}")
    _known_fields(value, TABLE_FIELDS, f"{where}: a table")
    number = value.get("table")
    if type(number) is not int:
        raise SeatingError(
            f'{where}: a table needs "table", its number from 1, not {_show(number)}'
        )
    seats = _names(value.get("seats"), f'{where}, table {number}: "seats"')
    return Table(table=number, seats=seats)


def _names(value: object, where: str) -> tuple[str, ...]:
    if type(value) is not list or not all(type(name) is str for name in value):
        raise SeatingError(f"{where} must be a list of player names, not {_show(value)}")
    return tuple(value)


def _check_fixed(request: Request) -> None:
    """The fixed rounds keep every hard rule, and the rounds left can complete them."""
    rounds = request.rounds
    index = {name: n for n, name in enumerate(request.players)}
    played = [0] * len(request.players)
    seen_rounds: set[int] = set()
    for fixed in request.fixed_rounds:
        number = fixed.round
        where = f"fixed round {number}"
        if type(number) is not int or not 1 <= number <= rounds:
            raise SeatingError(
                f"{where}: the plan has rounds 1 to {rounds}"
                f" ({len(request.players)} players × {request.games_per_player} games"
                f" at {request.tables} tables), renumber it"
            )
        if number in seen_rounds:
            raise SeatingError(f"{where} is given twice: give each round once")
        seen_rounds.add(number)
        want = request.tables_in(number)
        if len(fixed.tables) != want:
            raise SeatingError(
                f"{where} has {len(fixed.tables)} tables, the plan needs {want} in that round:"
                " give every table of the round"
            )
        seated: set[str] = set()
        numbers: set[int] = set()
        for table in fixed.tables:
            at = f"{where}, table {table.table}"
            if type(table.table) is not int or not 1 <= table.table <= request.tables:
                raise SeatingError(f"{at}: tables are numbered 1 to {request.tables}")
            if table.table in numbers:
                raise SeatingError(f"{at} is given twice in the round: number tables once")
            numbers.add(table.table)
            if len(table.seats) != SEATS:
                raise SeatingError(
                    f"{at} has {len(table.seats)} players: a table seats exactly {SEATS}"
                )
            for name in table.seats:
                if name not in index:
                    raise SeatingError(f'{at}: {_show(name)} is not in "players": fix the name')
                if name in seated:
                    raise SeatingError(
                        f"{at}: {_show(name)} plays twice in the round: nobody can"
                    )
                seated.add(name)
                played[index[name]] += 1
        if fixed.sitting_out:
            resting = set(request.players) - seated
            if set(fixed.sitting_out) != resting or len(fixed.sitting_out) != len(resting):
                raise SeatingError(
                    f'{where}: "sitting_out" must list exactly the players not seated in it'
                    " (or be left out)"
                )
    free = rounds - len(request.fixed_rounds)
    gone = set(request.withdrawn)
    for player, count in zip(request.players, played, strict=True):
        total = request.total(player)
        if count > total and player not in gone:
            raise SeatingError(
                f"{_show(player)} plays {count} games in the fixed rounds but plays {total} in"
                " all: fix the fixed rounds"
            )
        if total - count > free and player not in gone:
            raise SeatingError(
                f"{_show(player)} still needs {total - count} games but only {free} rounds are"
                " left to plan: fix the fixed rounds or games_per_player"
            )
    free_rounds = [
        (n, request.tables_in(n)) for n in range(1, rounds + 1) if n not in seen_rounds
    ]
    if choose_players(remaining_games(request), free_rounds, None) is None:
        raise SeatingError(
            "the rounds left cannot give every player games_per_player games around the"
            " fixed rounds: fix the fixed rounds or games_per_player"
        )


def _known_fields(data: dict[str, object], fields: Sequence[str], what: str) -> None:
    for key in data:
        if key not in fields:
            raise SeatingError(
                f"{what} has an unknown field {_show(key)}: the fields are {', '.join(fields)}"
            )


def _show(value: object) -> str:
    """``value`` as JSON on one line (so a name's line break stays ``\\n``), shortened."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
