"""The career rating (docs/formats.md#rating) as a read model: every person's rating
across tournaments, kept in memory and brought up to date on read.

Every saved game of a started tournament counts (not an annulled one), in the order
games were saved (the time, then the id), each by its tournament's rating kind
(``tournament``, ``elite``; ``unrated`` counts nothing); a draw counts nothing. The
players of a game are its players' persons (``bot.db.career``), so one person's games
in several tournaments add up.

No use case calls this on a change. On read, the service asks the database's change
feed (``game_changes``, written by triggers whoever writes: a game or its seats, a
player's person, a tournament's status or kind) which games changed since it last
looked, and reads only those; reading every game's stamp as ``StandingsService``
does would cost about 9 ms at 10,000 games, the feed one short query. A game saved
after all the others is applied to the sums at the cost of its ten players
(``scoring.apply_elo``). A change to an earlier game (a correction, an annulment, a
protest decision, a merge of two persons, a tournament started or made elite)
replays from that game with the sums before it: a snapshot of the sums is kept every
``SNAPSHOT_EVERY`` games, and ``scoring.replay_elo`` runs from the one before the
change. The result is the rule's: ``python -m scoring elo`` on the same games in the
same order gives the same figures (``ratings-input-N.json`` of the export).

A result (:class:`Career`) never changes once handed out: a change builds a new one,
so a reader may keep his while others read on.
"""

from __future__ import annotations

import asyncio
import logging
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from bot.db import career as repo
from bot.db import live as live_repo
from bot.db.career import PersonPlayer, PersonRow, RatedRow
from bot.db.connection import Conn, Database
from bot.db.games import game_code
from bot.db.timeutil import from_ts
from bot.reads.standings import StandingsService
from bot.texts.rating_format import place_labels
from bot.texts.standings_text import hidden
from scoring import (
    EloChange,
    EloGame,
    EloKind,
    EloSeat,
    EloSums,
    InvalidGameError,
    Result,
    Role,
    apply_elo,
    replay_elo,
)
from scoring import protocol as live_rules
from scoring.elo import NEWCOMER, RATING_BASE
from scoring.judging import APPROVAL_THRESHOLD

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 128  # games between two stored snapshots of the sums

Key = tuple[int, int]  # (saved at, game id): the order games count in
Sums = dict[str, EloSums]
Played = dict[str, int]


def person_key(person_id: int) -> str:
    """A person as the rule names players."""
    return str(person_id)


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A game that counts for the career, and what the rule makes of it."""

    row: RatedRow
    elo: EloGame
    key: Key  # (saved at, id): where it counts

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def code(self) -> str:
        return game_code(self.row.round, self.row.table_no)


_SEATS: dict[tuple[int, str], EloSeat] = {}  # seats are immutable: equal ones shared


def _seat(person: int, role: str) -> EloSeat:
    seat = _SEATS.get((person, role))
    if seat is None:
        if len(_SEATS) > 100_000:
            _SEATS.clear()
        seat = _SEATS[(person, role)] = EloSeat(person_key(person), Role(role))
    return seat


def rated_game(row: RatedRow) -> RatedGame:
    if row.event == "evening":  # a club evening's games are club games (docs/club.md)
        kind = EloKind.CLUB
    else:
        kind = EloKind.ELITE if row.kind == "elite" else EloKind.TOURNAMENT
    seats = tuple(_seat(person, role) for _s, person, _p, role in row.seats)
    code = game_code(row.round, row.table_no)
    try:
        game = EloGame(code, kind, seats, Result(row.result), row.kind != "unrated")
    except ValueError:
        # A person twice at one table (merges refuse that; two players of one account
        # linked by hand could still meet): the game counts nothing, each person once.
        log.warning("game %s: a person sits twice; it counts nothing in the career", row.id)
        once = tuple({seat.player: seat for seat in reversed(seats)}.values())[::-1]
        game = EloGame(code, kind, once or seats[:1], None, rated=False)
    return RatedGame(row, game, (row.created_at, row.id))


@dataclass(frozen=True, slots=True)
class Ranked:
    """A row of the leaderboard."""

    place: int  # equal ratings share a place
    person_id: int
    rating: float
    games: int  # rated games


@dataclass(frozen=True, slots=True)
class Point:
    """A person's rating after one of his rated games."""

    game: RatedGame
    change: float
    rating: float


class Career:
    """The ratings after every game that counts, as of one look at the database."""

    __slots__ = ("_board", "_wins", "changes", "games", "keys", "played", "seq", "snapshots",
                 "sums", "where")

    def __init__(
        self,
        seq: int,
        games: list[RatedGame],
        changes: list[EloChange],
        sums: Sums,
        played: Played,
        snapshots: list[tuple[Sums, Played]],
        keys: list[Key] | None = None,
        where: dict[int, int] | None = None,
    ) -> None:
        self.seq = seq  # the change feed's, when read
        self.games = games  # in the order they count
        # Each game's key and the place of each game id (given when known already).
        self.keys = [game.key for game in games] if keys is None else keys
        self.where = {game.row.id: at for at, game in enumerate(games)} if where is None else where
        self.changes = changes  # what each game did, aligned with ``games``
        self.sums = sums  # after the last game
        self.played = played  # rated games of each person
        # snapshots[m]: the sums and counts before games[m * SNAPSHOT_EVERY]
        self.snapshots = snapshots
        self._board: list[Ranked] | None = None
        self._wins: dict[str, int] | None = None

    # -- a person ------------------------------------------------------------------------

    def rating(self, person_id: int) -> float:
        return self.sums.get(person_key(person_id), NEWCOMER).rating

    def sums_of(self, person_id: int) -> EloSums:
        return self.sums.get(person_key(person_id), NEWCOMER)

    def rated_games(self, person_id: int) -> int:
        return self.played.get(person_key(person_id), 0)

    def rated_wins(self, person_id: int) -> int:
        """His rated games his side won."""
        wins = self._wins
        if wins is None:
            wins = {}
            for game, change in zip(self.games, self.changes, strict=True):
                if change.counts:
                    for seat in game.elo.seats:
                        if seat.role.team is game.elo.winner:
                            wins[seat.player] = wins.get(seat.player, 0) + 1
            self._wins = wins
        return wins.get(person_key(person_id), 0)

    def history(self, person_id: int) -> list[Point]:
        """His rating after each of his rated games, in order (the figures of the rule:
        red and black added up apart, as ``apply_elo`` does)."""
        key = person_key(person_id)
        red = black = 0.0
        points = []
        for game, change in zip(self.games, self.changes, strict=True):
            if not change.counts or key not in change.changes:
                continue
            delta = change.changes[key]
            seat = next(s for s in game.elo.seats if s.player == key)
            if seat.role.is_red:
                red += delta
            else:
                black += delta
            points.append(Point(game, delta, RATING_BASE + red + black))
        return points

    # -- everyone ------------------------------------------------------------------------

    def leaderboard(self, min_games: int = 0) -> list[Ranked]:
        """Everyone with at least ``min_games`` rated games, the highest rating first."""
        board = self._board
        if board is None:
            rows = sorted(
                ((int(key), sums.rating) for key, sums in self.sums.items()),
                key=lambda row: (-row[1], row[0]),
            )
            board = []
            for at, (person, rating) in enumerate(rows):
                place = board[-1].place if board and board[-1].rating == rating else at + 1
                board.append(Ranked(place, person, rating, self.played.get(str(person), 0)))
            self._board = board
        if min_games <= 0:
            return list(board)
        ranked: list[Ranked] = []
        for row in board:
            if row.games < min_games:
                continue
            if ranked and ranked[-1].rating == row.rating:
                ranked.append(Ranked(ranked[-1].place, row.person_id, row.rating, row.games))
            else:
                ranked.append(Ranked(len(ranked) + 1, row.person_id, row.rating, row.games))
        return ranked

    # -- games ---------------------------------------------------------------------------

    def game(self, game_id: int) -> tuple[RatedGame, EloChange] | None:
        at = self.where.get(game_id)
        return None if at is None else (self.games[at], self.changes[at])

    def of_tournament(self, tournament_id: int) -> list[tuple[RatedGame, EloChange]]:
        """The tournament's games that count, in the order they count."""
        return [
            (game, change)
            for game, change in zip(self.games, self.changes, strict=True)
            if game.row.tournament_id == tournament_id
        ]

    def sums_before(self, game_id: int) -> Sums:
        """Everyone's sums before the game (replayed from the snapshot before it)."""
        at = self.where[game_id]
        start = at // SNAPSHOT_EVERY
        sums, _played = self.snapshots[start]
        done = replay_elo((g.elo for g in self.games[start * SNAPSHOT_EVERY : at]), sums)
        return done.sums


def _count(played: Played, changes: Iterable[EloChange]) -> None:
    for change in changes:
        if change.counts:
            for player in change.changes:
                played[player] = played.get(player, 0) + 1


def replay_from(
    games: list[RatedGame],
    changes: list[EloChange],
    snapshots: list[tuple[Sums, Played]],
    start: int,
) -> tuple[list[EloChange], Sums, Played, list[tuple[Sums, Played]]]:
    """Every game from ``start`` (a multiple of ``SNAPSHOT_EVERY``) again, from the
    snapshot of the sums before it; the snapshots after it made anew."""
    block = start // SNAPSHOT_EVERY
    kept = snapshots[: block + 1]
    sums, played = kept[block]
    redone = changes[:start]
    for at in range(start, len(games), SNAPSHOT_EVERY):
        if at > start:
            kept.append((sums, played))
        chunk = games[at : at + SNAPSHOT_EVERY]
        done = replay_elo((game.elo for game in chunk), sums)
        sums, played = done.sums, dict(played)
        _count(played, done.games)
        redone += done.games
    return redone, dict(sums), dict(played), kept


def _fresh(seq: int, rows: Iterable[RatedRow]) -> Career:
    games = sorted((rated_game(row) for row in rows), key=lambda game: game.key)
    changes, sums, played, snapshots = replay_from(games, [], [({}, {})], 0)
    return Career(seq, games, changes, sums, played, snapshots)


def updated(state: Career, seq: int, ids: Iterable[int], rows: Iterable[RatedRow]) -> Career:
    """``state`` after the games ``ids`` changed: ``rows`` are those of them that count
    now (a game of ``ids`` missing there was annulled, deleted or no longer counts)."""
    now = {row.id: rated_game(row) for row in rows}
    games = list(state.games)
    keys = list(state.keys)
    earliest: Key | None = None
    replaced = False
    for game_id in set(ids):
        at = state.where.get(game_id)
        old = None if at is None else state.games[at]
        new = now.get(game_id)
        if old is not None and new is not None and old.key == new.key and old.elo == new.elo:
            games[bisect_left(keys, old.key)] = new  # nothing the rating sees changed
            replaced = True
            continue
        if old is None and new is None:
            continue
        for game in (old, new):
            if game is not None and (earliest is None or game.key < earliest):
                earliest = game.key
        if old is not None:
            where = bisect_left(keys, old.key)
            del keys[where], games[where]
        if new is not None:
            where = bisect_left(keys, new.key)
            keys.insert(where, new.key)
            games.insert(where, new)
    if earliest is None:
        return Career(seq, games if replaced else state.games, state.changes, state.sums,
                      state.played, state.snapshots, state.keys, state.where)
    first = bisect_left(keys, earliest)
    if first == len(state.games) and state.keys[-1:] < [earliest]:
        return _appended(state, seq, games, keys, first)
    start = min(first // SNAPSHOT_EVERY, len(state.snapshots) - 1) * SNAPSHOT_EVERY
    changes, sums, played, snapshots = replay_from(games, state.changes, state.snapshots, start)
    return Career(seq, games, changes, sums, played, snapshots, keys)


def _appended(
    state: Career, seq: int, games: list[RatedGame], keys: list[Key], first: int
) -> Career:
    """Games saved after every game held: each applied to the sums (``apply_elo``)."""
    sums, played = dict(state.sums), dict(state.played)
    snapshots = list(state.snapshots)
    changes = list(state.changes)
    where = dict(state.where)
    for at in range(first, len(games)):
        where[games[at].row.id] = at
        if at % SNAPSHOT_EVERY == 0 and at // SNAPSHOT_EVERY == len(snapshots):
            snapshots.append((dict(sums), dict(played)))
        change = apply_elo(sums, games[at].elo)
        _count(played, (change,))
        changes.append(change)
    return Career(seq, games, changes, sums, played, snapshots, keys, where)


class CareerService:
    """The current :class:`Career`, brought up to date on every ``current()``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._state: Career | None = None
        self._lock = asyncio.Lock()

    async def current(self) -> Career:
        async with self._lock:  # one reader reads the feed; the others wait for his result
            state = self._state
            async with self._db.read() as conn:
                if state is None:
                    # The feed first: a write between the two reads is read again next time.
                    seq = await repo.feed_seq(conn)
                    rows = await repo.rated_games(conn)
                else:
                    seq, ids = await repo.changed_games(conn, state.seq)
                    if not ids:
                        return state
                    rows = await repo.rated_games(conn, ids)
            fresh = _fresh(seq, rows) if state is None else updated(state, seq, ids, rows)
            self._state = fresh
            return fresh


# -- the rule's input ----------------------------------------------------------------------------


def rating_input(
    games: Iterable[RatedGame],
    key: Callable[[int], str] = person_key,
    initial: Mapping[str, EloSums] | None = None,
) -> dict[str, object]:
    """Games as the input of ``python -m scoring elo`` (docs/formats.md#rating), players
    named ``key(person id)``; ``initial``: sums by person key. Each game also says when
    it was saved (``saved_at``, then ``seq``: the game's number in the database), the
    order the bot counts games in: games of several files merged in that order and run
    from no sums give the bot's ratings."""
    document: dict[str, object] = {}
    if initial:
        document["initial"] = {
            key(int(person)): {"red": sums.red, "black": sums.black}
            for person, sums in sorted(initial.items(), key=lambda item: int(item[0]))
        }
    document["games"] = [
        {
            "id": game.elo.id,
            "kind": game.elo.kind.value,
            "players": [
                {"player": key(int(seat.player)), "role": seat.role.value}
                for seat in game.elo.seats
            ],
            "winner": None if game.elo.winner in (None, Result.DRAW) else game.elo.winner,
            "rated": game.elo.rated,
            "saved_at": from_ts(game.row.created_at).isoformat(),
            "seq": game.id,
        }
        for game in games
    ]
    return document


# -- a tournament's share, for its export ------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameRating:
    """What one game of the tournament did to its players' ratings."""

    code: str
    red_odds: float
    counts: bool
    rated: bool  # False: its tournament is unrated
    changes: dict[int, float]  # player id → change


@dataclass(frozen=True, slots=True)
class PlayerRating:
    player_id: int
    nickname: str
    person_id: int
    name: str  # career name
    games: int  # rated games in this tournament
    before: float | None  # rating before his first game here (None: no game here)
    change: float  # what this tournament's games did
    now: float  # the career rating now


@dataclass(frozen=True, slots=True)
class TournamentRatings:
    games: dict[int, GameRating]  # by games.id: the tournament's games that count
    players: list[PlayerRating]  # by nickname
    input: dict[str, object]  # its games as the rule's input (``rating_input``)


def file_key(name: str, person_id: int) -> str:
    """A person in an exported rating file: his career name and number, the same in
    every tournament's file."""
    return f"{name} #{person_id}"


async def tournament_ratings(db: Database, state: Career, tournament_id: int) -> TournamentRatings:
    """The tournament's games in the career: each game's changes, each player's rating
    before his first game there and what the tournament changed, and its games as the
    rule's input with the sums its players had before its first game."""
    async with db.read() as conn:
        people = await repo.tournament_players(conn, tournament_id)
    entries = state.of_tournament(tournament_id)
    names = {p.person_id: p.name for p in people}
    ours = {person_key(p.person_id) for p in people}
    games: dict[int, GameRating] = {}
    for game, done in entries:
        player_of = {person_key(person): player for _s, person, player, _r in game.row.seats}
        games[game.id] = GameRating(
            game.code, done.red_odds, done.counts, game.elo.rated,
            {player_of[key]: value for key, value in done.changes.items() if key in player_of},
        )
    before: dict[str, EloSums] = {}
    initial: dict[str, EloSums] = {}
    if entries:
        sums = state.sums_before(entries[0][0].id)
        initial = {key: value for key, value in sums.items() if key in ours}
        last = state.where[entries[-1][0].id]
        for at in range(state.where[entries[0][0].id], last + 1):
            game = state.games[at]
            if game.row.tournament_id == tournament_id:
                for seat in game.elo.seats:
                    before.setdefault(seat.player, sums.get(seat.player, NEWCOMER))
            apply_elo(sums, game.elo)
    changes: dict[str, float] = {}
    played: dict[str, int] = {}
    for _game, done in entries:
        if done.counts:
            for key, value in done.changes.items():
                changes[key] = changes.get(key, 0.0) + value
                played[key] = played.get(key, 0) + 1
    players = [
        PlayerRating(
            p.player_id, p.nickname, p.person_id, p.name,
            played.get(person_key(p.person_id), 0),
            before[person_key(p.person_id)].rating if person_key(p.person_id) in before else None,
            changes.get(person_key(p.person_id), 0.0),
            state.rating(p.person_id),
        )
        for p in people
    ]
    document = rating_input(
        (game for game, _done in entries),
        key=lambda person: file_key(names.get(person, "?"), person),
        initial=initial,
    )
    return TournamentRatings(games, players, document)


# -- what people read --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Named:
    """A leaderboard row with the person's career name."""

    row: Ranked
    name: str


async def leaderboard(db: Database, career: Career, min_games: int) -> list[Named]:
    rows = career.leaderboard(min_games)
    async with db.read() as conn:
        people = await repo.persons_by_id(conn, [row.person_id for row in rows])
    return [Named(row, people[row.person_id].name) for row in rows if row.person_id in people]


async def find(db: Database, text: str) -> list[PersonRow]:
    """Persons of that career name or nickname (``bot.db.career.find_persons``)."""
    async with db.read() as conn:
        return await repo.find_persons(conn, text)


async def found_with_tournaments(
    db: Database, text: str
) -> list[tuple[PersonRow, list[tuple[str, str]]]]:
    """``find``, each person with where he played: (tournament title, nickname)."""
    async with db.read() as conn:
        people = await repo.find_persons(conn, text)
        rows = await repo.players_of_persons(conn, [p.id for p in people])
    return [
        (person, [(r.title, r.nickname) for r in rows if r.person_id == person.id])
        for person in people
    ]


async def person_of_user(db: Database, user_id: int) -> PersonRow | None:
    async with db.read() as conn:
        return await repo.person_of_user(conn, user_id)


async def person(db: Database, person_id: int) -> PersonRow | None:
    """The person, or the one it was merged into."""
    async with db.read() as conn:
        return await repo.current_person(conn, person_id)


@dataclass(frozen=True, slots=True)
class RoleLine:
    role: Role
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class TournamentPlace:
    """A tournament of the person, and his place there (None: not known yet, or its
    stage's standings hidden, D17)."""

    tournament_id: int
    title: str
    nickname: str
    finished: bool
    place: str | None
    players: int


@dataclass(frozen=True, slots=True)
class Profile:
    person: PersonRow
    rating: float
    rated_games: int
    place: int | None  # on the leaderboard (None: fewer rated games than it needs)
    ranked: int  # people on the leaderboard
    min_games: int  # rated games the leaderboard needs
    games: int  # every game that counts, rated or not
    wins: int
    roles: tuple[RoleLine, ...]  # civilian, sheriff, mafia, don
    best_moves: int  # times he named a best move, shot on night 1
    black_named: dict[int, int]  # mafia or don named → times
    first_killed: int
    judge_points: Fraction
    penalties: int
    disqualified: int
    fouls: int  # in games entered in the live protocol
    live_games: int
    tournaments: tuple[TournamentPlace, ...]
    history: tuple[Point, ...] = field(default=())


async def profile(
    db: Database,
    career: Career,
    standings: StandingsService,
    person_id: int,
    min_games: int,
    *,
    reveal: frozenset[int] = frozenset(),
) -> Profile | None:
    """Everything /me, /player and the web page show of a person (None: no such person).
    ``reveal``: tournaments whose hidden stage the reader may see (his judges')."""
    async with db.read() as conn:
        found = await repo.current_person(conn, person_id)
        if found is None:
            return None
        seats = await repo.seat_stats(conn, found.id, APPROVAL_THRESHOLD)
        players = await repo.players_of_persons(conn, [found.id])
        fouls = await _fouls(conn, seats)
    board = career.leaderboard(min_games)
    mine = next((row for row in board if row.person_id == found.id), None)
    roles = {role: [0, 0] for role in Role}
    for seat in seats:
        counts = roles[Role(seat.role)]
        counts[0] += 1
        counts[1] += seat.result == Role(seat.role).team
    named: dict[int, int] = {}
    for seat in seats:
        if seat.best_move:
            named[seat.black_named] = named.get(seat.black_named, 0) + 1
    return Profile(
        person=found,
        rating=career.rating(found.id),
        rated_games=career.rated_games(found.id),
        place=None if mine is None else mine.place,
        ranked=len(board),
        min_games=min_games,
        games=len(seats),
        wins=sum(wins for _games, wins in roles.values()),
        roles=tuple(RoleLine(role, n, wins) for role, (n, wins) in roles.items()),
        best_moves=sum(1 for seat in seats if seat.best_move),
        black_named=named,
        first_killed=sum(1 for seat in seats if seat.first_killed),
        judge_points=Fraction(sum(seat.judge_extra for seat in seats), 100),
        penalties=sum(seat.penalties for seat in seats),
        disqualified=sum(1 for seat in seats if seat.disqualified),
        fouls=fouls[0],
        live_games=fouls[1],
        tournaments=tuple(await _places(standings, players, reveal)),
        history=tuple(career.history(found.id)),
    )


async def _fouls(conn: Conn, seats: Sequence[repo.SeatStat]) -> tuple[int, int]:
    """His fouls in the games entered live (the Mini App's protocol), and those games."""
    seat_of = {seat.game_id: seat.seat for seat in seats}
    commands = await live_repo.commands_of_games(conn, list(seat_of))
    fouls = games = 0
    for game_id, given in commands.items():
        played = live_rules.replay(given)
        if isinstance(played, live_rules.Refusal) or not played.live:
            continue
        games += 1
        fouls += sum(1 for e in played.events if e.kind == "foul" and e.seat == seat_of[game_id])
    return fouls, games


async def _places(
    standings: StandingsService, players: Sequence[PersonPlayer], reveal: frozenset[int]
) -> list[TournamentPlace]:
    found = []
    for player in players:
        if player.tournament_status == "registration":
            continue
        place, count = None, 0
        try:
            current = await standings.get(player.tournament_id)
        except InvalidGameError:
            current = None
        if current is not None and (player.tournament_id in reveal or not hidden(current.stage)):
            rows = current.standings.rows
            count = len(rows)
            labels = place_labels([row.place for row in rows])
            place = next(
                (label for label, row in zip(labels, rows, strict=True)
                 if row.player == player.nickname),
                None,
            )
        found.append(TournamentPlace(player.tournament_id, player.title, player.nickname,
                            player.tournament_status == "finished", place, count))
    return found


