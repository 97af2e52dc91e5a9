"""Stored games → ``scoring.model`` objects: the standings come from the scoring engine.

``load_scoring_tournament`` reads a whole tournament in five queries and builds the
model without per-row ORM work, since the live standings are recomputed after every
saved game. ``load_stored_games`` is that same reading of games, of all of them or of
a few by id, with each game's place and stamp; ``game_stamps`` tells which games
changed since they were read (what ``bot.reads.standings`` reloads after a change).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from bot.db.connection import Conn, fetch_all, fetch_val
from bot.db.errors import NotFound
from bot.db.games import GameDraft, GameRecord, game_code
from bot.db.lots import LotRow, lots_for_tournament
from scoring.model import SEAT_NUMBERS, Game, Result, Role, Seat, Tournament

_ROLES = {r.value: r for r in Role}
_RESULTS = {r.value: r for r in Result}
_EMPTY: tuple[int, ...] = ()
# Most games have no approval (8.4.3, D7): they share one empty set (an empty frozenset
# is a new 200-byte object each time, 0.2 MiB for a 1,000-game tournament).
_NONE_APPROVED: frozenset[int] = frozenset()

# A game's stamp: its id in the high bits and, in the low 32, a number that changes with
# every change of the game or of its seats (games.version, bumped by triggers whoever
# writes, schema v3). created_at is mixed in because SQLite may give a deleted game's
# id to the next new game, which would then start again from the same version.
_STAMP = "(g.id << 32) | ((g.version + g.created_at * 65537) & 4294967295)"
_STAMP_SHIFT = 32

# Reading rows costs per row and per value, so seats come as one text per game
# ("player_id:role,..." in seat order, checked against the seat list), and the few
# seats with more than player and role come separately, through a partial index.
_GAMES_SQL = """
SELECT g.id, {stamp}, g.round, g.table_no, g.result, g.day1_voted_out, g.first_killed,
       g.best_move, g.best_move_hint,
       (SELECT group_concat(s.seat) FROM game_seats s WHERE s.game_id = g.id),
       (SELECT group_concat(s.player_id || ':' || s.role) FROM game_seats s
        WHERE s.game_id = g.id)
FROM games g
WHERE {where} AND g.status <> 'annulled'
ORDER BY g.round, g.table_no
"""
# Annulled games' details are read too (the partial index knows no game status) and
# dropped with their games.
_DETAILS_SQL = """
SELECT s.game_id, s.seat, s.disqualified, s.judge_extra, s.chief_approved, s.penalties
FROM game_seats s
WHERE s.tournament_id = ?
  AND (disqualified OR judge_extra OR chief_approved OR penalties <> '[]'){only}
"""
_ALL_GAMES_SQL = _GAMES_SQL.format(stamp=_STAMP, where="g.tournament_id = ?")
_ALL_DETAILS_SQL = _DETAILS_SQL.format(only="")
# Or only a few games, by id: a JSON list, any number of them in one parameter. The
# unary + makes SQLite look the rows up by id instead of scanning the tournament's.
_SOME_GAMES_SQL = _GAMES_SQL.format(
    stamp=_STAMP, where="g.id IN (SELECT value FROM json_each(?)) AND +g.tournament_id = ?"
)
_SOME_DETAILS_SQL = _DETAILS_SQL.format(only=" AND s.game_id IN (SELECT value FROM json_each(?))")
# One JSON text for all the stamps: far cheaper than a row per game.
_STAMPS_SQL = f"""
SELECT json_group_array({_STAMP}) FROM games g
WHERE g.tournament_id = ? AND g.status <> 'annulled'
"""
_SEAT_ORDER = ",".join(str(n) for n in SEAT_NUMBERS)


class _Details:
    """A game's disqualifications, judge's points, approvals and penalties."""

    __slots__ = ("approved", "disqualified", "extras", "penalties")

    def __init__(self) -> None:
        self.disqualified: list[int] = []
        self.extras: dict[int, Fraction] = {}
        self.approved: list[int] = []
        self.penalties: dict[int, tuple[str, ...]] = {}


def hundredths(value: int) -> Fraction:
    return Fraction(value, 100)


def merge_lots(lots: Iterable[LotRow], names: Mapping[int, str]) -> tuple[str, ...]:
    """One ``Tournament.lot`` from the recorded draws, newest draw first.

    The engine compares lot positions only among players still tied. A newer draw
    covers the group as it is tied now, so it wins over an older draw of a group
    that has since grown or changed; players of older draws follow in their order.
    """
    seen: set[int] = set()
    ordered: list[str] = []
    for lot in sorted(lots, key=lambda lot: (lot.drawn_at, lot.id), reverse=True):
        for pid in lot.order:
            if pid not in seen and pid in names:
                seen.add(pid)
                ordered.append(names[pid])
    return tuple(ordered)


class StoredGame(NamedTuple):
    """A stored game that counts, as the engine's model, with its row id and place."""

    id: int  # games.id
    stamp: int  # as in game_stamps(): changes with every change of the game
    round: int
    table_no: int
    game: Game


def stamp_game_id(stamp: int) -> int:
    """The games.id of a stamp."""
    return stamp >> _STAMP_SHIFT


async def game_stamps(conn: Conn, tournament_id: int) -> set[int]:
    """The stamps of the tournament's games that count (not annulled): each game's id
    and its change counter in one number, so that two sets of stamps tell which games
    changed, came or went (``stamp_game_id``)."""
    return set(json.loads(await fetch_val(conn, _STAMPS_SQL, (tournament_id,))))


async def load_scoring_tournament(conn: Conn, tournament_id: int) -> Tournament:
    """The tournament as the scoring engine's model: games that count (not annulled),
    in round/table order, ids ``R{round}-T{table}``, player names = nicknames."""
    distance = await fetch_val(
        conn, "SELECT distance FROM tournaments WHERE id = ?", (tournament_id,)
    )
    if distance is None:
        raise NotFound("tournament", tournament_id)
    names = await player_names(conn, tournament_id)
    stored = await load_stored_games(conn, tournament_id, names)
    lots = await lots_for_tournament(conn, tournament_id)
    return Tournament(
        distance=int(distance),
        games=tuple(s.game for s in stored),
        lot=merge_lots(lots, names),
    )


async def player_names(conn: Conn, tournament_id: int) -> dict[int, str]:
    """Player id → nickname: the names of the scoring model."""
    return {
        r[0]: r[1]
        for r in await fetch_all(
            conn, "SELECT id, nickname FROM players WHERE tournament_id = ?", (tournament_id,)
        )
    }


async def load_stored_games(
    conn: Conn,
    tournament_id: int,
    names: Mapping[int, str],
    game_ids: Collection[int] | None = None,
) -> list[StoredGame]:
    """The tournament's games that count (not annulled), in round/table order, as the
    engine's model; only those of ``game_ids`` when given (annulled ones left out).
    ``names`` is ``player_names`` of the tournament."""
    if game_ids is None:
        detail_rows = await fetch_all(conn, _ALL_DETAILS_SQL, (tournament_id,))
        game_rows = await fetch_all(conn, _ALL_GAMES_SQL, (tournament_id,))
    elif not game_ids:
        return []
    else:
        only = json.dumps(list(game_ids))
        detail_rows = await fetch_all(conn, _SOME_DETAILS_SQL, (tournament_id, only))
        game_rows = await fetch_all(conn, _SOME_GAMES_SQL, (only, tournament_id))
    return _build_games(names, detail_rows, game_rows)


def _build_games(
    names: Mapping[int, str],
    detail_rows: Iterable[Sequence[Any]],
    game_rows: Iterable[Sequence[Any]],
) -> list[StoredGame]:
    """The one way rows of ``_GAMES_SQL`` and ``_DETAILS_SQL`` become games."""
    details: dict[int, _Details] = {}
    fractions: dict[int, Fraction] = {}
    for game_id, seat_no, dq, extra, approved, penalties in detail_rows:
        d = details.get(game_id)
        if d is None:
            d = details[game_id] = _Details()
        if dq:
            d.disqualified.append(seat_no)
        if extra:
            fraction = fractions.get(extra)
            if fraction is None:
                fraction = fractions[extra] = Fraction(extra, 100)
            d.extras[seat_no] = fraction
        if approved:
            d.approved.append(seat_no)
        if penalties != "[]":
            d.penalties[seat_no] = tuple(json.loads(penalties))

    # Seats and best moves are immutable, so equal ones are shared between games.
    seats_of: dict[str, Seat] = {}
    moves: dict[str, tuple[int, ...]] = {"[]": _EMPTY}
    games: list[StoredGame] = []
    for row in game_rows:
        (gid, stamp, round_no, table_no, result, voted_out, first_killed, best_move, hint,
         seat_list, packed) = row  # fmt: skip
        tokens = packed.split(",") if packed else []
        if seat_list != _SEAT_ORDER and tokens:
            # Not the ten seats in order (SQLite does not promise an order here).
            numbers = [int(n) for n in seat_list.split(",")]
            tokens = [t for _, t in sorted(zip(numbers, tokens, strict=True))]
        seats = []
        for token in tokens:
            seat = seats_of.get(token)
            if seat is None:
                pid, role = token.split(":")
                seat = seats_of[token] = Seat(names[int(pid)], _ROLES[role])
            seats.append(seat)
        move = moves.get(best_move)
        if move is None:
            move = moves[best_move] = tuple(json.loads(best_move))
        d = details.get(gid) or _Details()  # fresh: games share no mutable mapping
        game = Game(
            id=game_code(round_no, table_no),
            result=_RESULTS[result],
            seats=tuple(seats),
            day1_voted_out=voted_out,
            first_killed=first_killed,
            best_move=move,
            best_move_hint=bool(hint),
            disqualified=tuple(sorted(d.disqualified)),
            judge_extras=d.extras,
            chief_approved=frozenset(d.approved) if d.approved else _NONE_APPROVED,
            penalties=d.penalties,
        )
        games.append(StoredGame(gid, stamp, round_no, table_no, game))
    return games


def game_from_record(game: GameRecord) -> Game:
    """One stored game as the engine's model (e.g. to show its points)."""
    return Game(
        id=game.code,
        result=game.result,
        seats=tuple(Seat(s.nickname, s.role) for s in game.seats),
        day1_voted_out=game.day1_voted_out,
        first_killed=game.first_killed,
        best_move=game.best_move,
        best_move_hint=game.best_move_hint,
        disqualified=tuple(s.seat for s in game.seats if s.disqualified),
        judge_extras={s.seat: hundredths(s.judge_extra) for s in game.seats if s.judge_extra},
        chief_approved=frozenset(s.seat for s in game.seats if s.chief_approved),
        penalties={s.seat: s.penalties for s in game.seats if s.penalties},
    )


def game_from_draft(
    draft: GameDraft,
    names: Mapping[int, str],
    *,
    chief_approved: Iterable[int] = (),
) -> Game:
    """A draft as the engine's model, so the judge's form can be checked before Save.

    ``names`` maps player id → nickname (e.g. from ``list_players``).
    """
    return Game(
        id=game_code(draft.round, draft.table_no),
        result=draft.result,
        seats=tuple(Seat(names[s.player_id], s.role) for s in draft.seats),
        day1_voted_out=draft.day1_voted_out,
        first_killed=draft.first_killed,
        best_move=draft.best_move,
        best_move_hint=draft.best_move_hint,
        disqualified=tuple(n for n, s in enumerate(draft.seats, 1) if s.disqualified),
        judge_extras={
            n: hundredths(s.judge_extra) for n, s in enumerate(draft.seats, 1) if s.judge_extra
        },
        chief_approved=frozenset(chief_approved),
        penalties={n: s.penalties for n, s in enumerate(draft.seats, 1) if s.penalties},
    )
