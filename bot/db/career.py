"""Persons across tournaments and what the career rating reads (schema v15).

A person is one human across tournaments; every player belongs to one (triggers keep
that for new and linked players, ``bot.db.migrations``, version 15). Here: persons and
their players, the search by name, merging two persons and taking a merge back, the
career name, a tournament's rating kind, and the rated games as the rating
(``bot.reads.career``) reads them, with the change feed that says which games to read
again.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, NamedTuple, cast

from bot.db.audit import AuditEntry
from bot.db.audit import _row as _audit_row
from bot.db.connection import Conn, fetch_all, fetch_one, fetch_val, run
from bot.db.errors import InvalidNickname, NotFound
from bot.db.players import nickname_key, normalize_nickname
from bot.db.timeutil import from_ts

RatingKind = Literal["tournament", "elite", "unrated"]
RATING_KINDS: tuple[RatingKind, ...] = ("tournament", "elite", "unrated")
# The audit actions of the career that its chief judge may take back.
LINK, MERGE, RENAME = "person.link", "person.merge", "person.rename"
UNDO = "person.undo"
UNDOABLE = (LINK, MERGE, RENAME)
SEARCH_LIMIT = 10


@dataclass(frozen=True, slots=True)
class PersonRow:
    id: int
    name: str
    user_id: int | None
    merged_into: int | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class PersonPlayer:
    """One of a person's players: his nickname in a tournament."""

    id: int
    person_id: int
    tournament_id: int
    title: str
    nickname: str
    status: str
    tournament_status: str
    created_at: datetime


def _person(r: Any) -> PersonRow:
    return PersonRow(r["id"], r["name"], r["user_id"], r["merged_into"], from_ts(r["created_at"]))


async def get_person(conn: Conn, person_id: int) -> PersonRow | None:
    r = await fetch_one(conn, "SELECT * FROM persons WHERE id = ?", (person_id,))
    return None if r is None else _person(r)


async def require_person(conn: Conn, person_id: int) -> PersonRow:
    found = await get_person(conn, person_id)
    if found is None:
        raise NotFound("person", person_id)
    return found


async def current_person(conn: Conn, person_id: int) -> PersonRow | None:
    """The person, or the one it was merged into (an old address of a profile)."""
    seen: set[int] = set()
    found = await get_person(conn, person_id)
    while found is not None and found.merged_into is not None and found.id not in seen:
        seen.add(found.id)
        found = await get_person(conn, found.merged_into)
    return found


async def person_of_player(conn: Conn, player_id: int) -> PersonRow | None:
    r = await fetch_one(
        conn,
        "SELECT s.* FROM persons s JOIN players p ON p.person_id = s.id WHERE p.id = ?",
        (player_id,),
    )
    return None if r is None else _person(r)


async def person_of_user(conn: Conn, user_id: int) -> PersonRow | None:
    r = await fetch_one(conn, "SELECT * FROM persons WHERE user_id = ?", (user_id,))
    return None if r is None else _person(r)


async def persons_by_id(conn: Conn, ids: Collection[int]) -> dict[int, PersonRow]:
    if not ids:
        return {}
    rows = await fetch_all(
        conn,
        "SELECT * FROM persons WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(ids))),),
    )
    return {r["id"]: _person(r) for r in rows}


_PLAYERS_SQL = """
SELECT p.id, p.person_id, p.tournament_id, t.title, p.nickname, p.status,
       t.status AS tournament_status, p.created_at
FROM players p JOIN tournaments t ON t.id = p.tournament_id
WHERE p.person_id IN (SELECT value FROM json_each(?)) AND p.status <> 'rejected'
ORDER BY p.tournament_id, p.id
"""


async def players_of_persons(conn: Conn, person_ids: Collection[int]) -> list[PersonPlayer]:
    """The persons' players that are not rejected, by tournament."""
    rows = await fetch_all(conn, _PLAYERS_SQL, (json.dumps(sorted(set(person_ids))),))
    return [
        PersonPlayer(
            r["id"], r["person_id"], r["tournament_id"], r["title"], r["nickname"], r["status"],
            r["tournament_status"], from_ts(r["created_at"]),
        )
        for r in rows
    ]


# Persons named so (their career name, or a nickname of one of their players), that are
# not merged into another and have a player who is not rejected.
_FIND_SQL = """
SELECT DISTINCT s.id FROM persons s
WHERE s.merged_into IS NULL
  AND EXISTS (SELECT 1 FROM players p WHERE p.person_id = s.id AND p.status <> 'rejected')
  AND ({match})
ORDER BY s.name_key, s.id
LIMIT :limit
"""
_EXACT = _FIND_SQL.format(
    match="s.name_key = :key OR EXISTS (SELECT 1 FROM players q WHERE q.person_id = s.id"
    " AND q.status <> 'rejected' AND q.nickname_key = :key)"
)
_PART = _FIND_SQL.format(
    match="instr(s.name_key, :key) OR EXISTS (SELECT 1 FROM players q WHERE q.person_id = s.id"
    " AND q.status <> 'rejected' AND instr(q.nickname_key, :key))"
)


async def find_persons(conn: Conn, text: str, *, limit: int = SEARCH_LIMIT) -> list[PersonRow]:
    """Persons whose career name or a nickname is ``text`` (case-insensitive, ё = е);
    when none is, those whose name or nickname contains it. At most ``limit``."""
    try:
        key = nickname_key(text)
    except InvalidNickname:
        return []
    ids: list[int] = []
    for sql in (_EXACT, _PART):
        rows = await conn.execute_fetchall(sql, {"key": key, "limit": limit})
        ids = [int(r[0]) for r in rows]
        if ids:
            break
    found = await persons_by_id(conn, ids)
    return [found[i] for i in ids if i in found]


class Met(NamedTuple):
    """Why two persons are not one: a tournament both play, and a game both sat in
    (None: they never met at a table)."""

    tournament_id: int
    title: str
    game: str | None  # its code, e.g. R2-T1


async def met(conn: Conn, a: int, b: int) -> Met | None:
    """A tournament both persons play (players not rejected), the game they sat in
    together first if any: a person plays a tournament as one player."""
    r = await fetch_one(
        conn,
        "SELECT g.tournament_id, t.title, 'R' || g.round || '-T' || g.table_no"
        " FROM game_seats x JOIN game_seats y ON y.game_id = x.game_id"
        " JOIN games g ON g.id = x.game_id JOIN tournaments t ON t.id = g.tournament_id"
        " WHERE x.player_id IN (SELECT id FROM players WHERE person_id = ?)"
        " AND y.player_id IN (SELECT id FROM players WHERE person_id = ?)"
        " AND g.status <> 'annulled' ORDER BY g.id LIMIT 1",
        (a, b),
    )
    if r is not None:
        return Met(int(r[0]), str(r[1]), str(r[2]))
    r = await fetch_one(
        conn,
        "SELECT x.tournament_id, t.title FROM players x JOIN players y"
        " ON y.tournament_id = x.tournament_id JOIN tournaments t ON t.id = x.tournament_id"
        " WHERE x.person_id = ? AND y.person_id = ? AND x.status <> 'rejected'"
        " AND y.status <> 'rejected' ORDER BY x.tournament_id LIMIT 1",
        (a, b),
    )
    return None if r is None else Met(int(r[0]), str(r[1]), None)


@dataclass(frozen=True, slots=True)
class Merged:
    """What a merge did, enough to take it back."""

    source: int
    target: int
    players: tuple[int, ...]  # the source's players, now the target's
    account_moved: bool  # the source's Telegram account went to the target


async def merge_persons(conn: Conn, source: int, target: int) -> Merged:
    """Every player of ``source`` becomes ``target``'s, and its account when it has one
    (the caller checked that both are current, not both with an account, and never met)."""
    before = await require_person(conn, source)
    ids = [
        int(r[0])
        for r in await fetch_all(conn, "SELECT id FROM players WHERE person_id = ?", (source,))
    ]
    await run(
        conn, "UPDATE persons SET merged_into = ?, user_id = NULL WHERE id = ?", (target, source)
    )
    if before.user_id is not None:
        await run(conn, "UPDATE persons SET user_id = ? WHERE id = ?", (before.user_id, target))
    await run(conn, "UPDATE players SET person_id = ? WHERE person_id = ?", (target, source))
    return Merged(source, target, tuple(ids), before.user_id is not None)


async def unmerge_persons(conn: Conn, merged: Merged) -> None:
    """Take ``merge_persons`` back: its players (those still the target's) and its
    account return to the source."""
    account = None
    if merged.account_moved:
        account = await fetch_val(conn, "SELECT user_id FROM persons WHERE id = ?",
                                  (merged.target,))
        await run(conn, "UPDATE persons SET user_id = NULL WHERE id = ?", (merged.target,))
    await run(
        conn, "UPDATE persons SET merged_into = NULL, user_id = ? WHERE id = ?",
        (account, merged.source),
    )
    await run(
        conn,
        "UPDATE players SET person_id = ? WHERE person_id = ?"
        " AND id IN (SELECT value FROM json_each(?))",
        (merged.source, merged.target, json.dumps(list(merged.players))),
    )


async def rename_person(conn: Conn, person_id: int, name: str) -> PersonRow:
    """The career name (InvalidNickname: the rules of a nickname)."""
    shown = normalize_nickname(name)
    await run(
        conn, "UPDATE persons SET name = ?, name_key = ? WHERE id = ?",
        (shown, nickname_key(shown), person_id),
    )
    return await require_person(conn, person_id)


# -- the audit of the career --------------------------------------------------------------


async def audit_entry(conn: Conn, entry_id: int) -> AuditEntry | None:
    r = await fetch_one(conn, "SELECT * FROM audit_log WHERE id = ?", (entry_id,))
    return None if r is None else _audit_row(r)


async def latest_change_by(conn: Conn, actor_id: int) -> AuditEntry | None:
    """The actor's latest link, merge or rename that was not taken back."""
    r = await fetch_one(
        conn,
        "SELECT * FROM audit_log a WHERE a.actor_id = ? AND a.action IN (?, ?, ?)"
        " AND NOT EXISTS (SELECT 1 FROM audit_log u WHERE u.action = ?"
        " AND u.entity_id = CAST(a.id AS TEXT))"
        " ORDER BY a.id DESC LIMIT 1",
        (actor_id, *UNDOABLE, UNDO),
    )
    return None if r is None else _audit_row(r)


async def undone(conn: Conn, entry_id: int) -> bool:
    found = await fetch_val(
        conn, "SELECT 1 FROM audit_log WHERE action = ? AND entity_id = ?", (UNDO, str(entry_id))
    )
    return found is not None


async def changed_since(conn: Conn, entry_id: int, person_ids: Iterable[int]) -> bool:
    """Whether a later link, merge, rename or undo touched one of these persons (their
    ids are the ``persons`` of each entry's ``after``)."""
    found = await fetch_val(
        conn,
        "SELECT 1 FROM audit_log a, json_each(json_extract(a.after, '$.persons')) j"
        " WHERE a.id > ? AND a.action IN (?, ?, ?, ?)"
        " AND j.value IN (SELECT value FROM json_each(?)) LIMIT 1",
        (entry_id, *UNDOABLE, UNDO, json.dumps(sorted(set(person_ids)))),
    )
    return found is not None


# -- a tournament's rating kind --------------------------------------------------------------


async def rating_kind(conn: Conn, tournament_id: int) -> RatingKind:
    found = await fetch_val(
        conn, "SELECT rating_kind FROM tournaments WHERE id = ?", (tournament_id,)
    )
    if found is None:
        raise NotFound("tournament", tournament_id)
    return cast(RatingKind, found)


async def is_evening(conn: Conn, tournament_id: int) -> bool:
    """Whether the tournament is a club evening's (its games are club games)."""
    found = await fetch_val(conn, "SELECT kind FROM tournaments WHERE id = ?", (tournament_id,))
    return bool(found == "evening")


async def set_rating_kind(conn: Conn, tournament_id: int, kind: RatingKind) -> None:
    if kind not in RATING_KINDS:
        raise ValueError(f"unknown rating kind {kind!r}")
    await run(conn, "UPDATE tournaments SET rating_kind = ? WHERE id = ?", (kind, tournament_id))


# -- what the rating reads ---------------------------------------------------------------------


class RatedRow(NamedTuple):
    """A game that counts for the career: saved (not annulled) in a started tournament.
    ``seats``: (seat, person id, player id, role) in seat order."""

    id: int
    created_at: int  # Unix seconds: games count in the order they were saved
    tournament_id: int
    round: int
    table_no: int
    result: str
    kind: RatingKind
    seats: tuple[tuple[int, int, int, str], ...]
    # the tournament's kind: an evening's games are club games (K 4/3, docs/club.md)
    event: str = "tournament"


# Seats as one text per game (as bot.db.scoring_bridge reads them): "seat:person:player:role".
_RATED_SQL = """
SELECT g.id, g.created_at, g.tournament_id, g.round, g.table_no, g.result, t.rating_kind,
       (SELECT group_concat(s.seat || ':' || p.person_id || ':' || s.player_id || ':' || s.role)
        FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = g.id),
       t.kind
FROM games g JOIN tournaments t ON t.id = g.tournament_id
WHERE g.status <> 'annulled' AND t.status <> 'registration'{only}
"""
_ALL_RATED_SQL = _RATED_SQL.format(only="")
_SOME_RATED_SQL = _RATED_SQL.format(only=" AND g.id IN (SELECT value FROM json_each(?))")
# The feed's newest seq, and the games written after ``?`` (one trip).
_FEED_SQL = """
SELECT (SELECT coalesce(max(seq), 0) FROM game_changes),
       (SELECT json_group_array(game_id) FROM game_changes WHERE seq > ?)
"""
_SEQ_SQL = "SELECT coalesce(max(seq), 0) FROM game_changes"


def _rated(rows: Iterable[Sequence[Any]]) -> list[RatedRow]:
    found = []
    for gid, created, tid, round_no, table_no, result, kind, packed, event in rows:
        seats = []
        for token in (packed or "").split(","):
            if token:
                seat, person, player, role = token.split(":")
                seats.append((int(seat), int(person), int(player), role))
        seats.sort()
        found.append(
            RatedRow(gid, created, tid, round_no, table_no, result, kind, tuple(seats), event)
        )
    return found


async def feed_seq(conn: Conn) -> int:
    """The newest change of the feed (0: none yet)."""
    return int(await fetch_val(conn, _SEQ_SQL))


async def changed_games(conn: Conn, since: int) -> tuple[int, list[int]]:
    """The feed's newest seq, and the ids of the games written after ``since``."""
    r = await fetch_one(conn, _FEED_SQL, (since,))
    assert r is not None
    return int(r[0]), [int(i) for i in json.loads(r[1])]


async def rated_games(conn: Conn, ids: Collection[int] | None = None) -> list[RatedRow]:
    """Every game that counts for the career (or those of ``ids`` that do), unordered."""
    if ids is None:
        return _rated(await fetch_all(conn, _ALL_RATED_SQL))
    if not ids:
        return []
    return _rated(await fetch_all(conn, _SOME_RATED_SQL, (json.dumps(sorted(ids)),)))


# -- a person's games, for the profile ----------------------------------------------------------


class SeatStat(NamedTuple):
    """One seat of a person in a game that counts, with what the profile counts."""

    game_id: int
    tournament_id: int
    seat: int
    role: str
    result: str
    first_killed: bool  # shot on night 1
    best_move: int  # numbers he named as his best move (0: none)
    black_named: int  # of them, mafia or the don
    disqualified: bool
    judge_extra: int  # hundredths that count (approved, or at most 0.5)
    penalties: int


_STATS_SQL = """
SELECT g.id, g.tournament_id, s.seat, s.role, g.result, g.first_killed = s.seat,
       json_array_length(g.best_move),
       (SELECT count(*) FROM game_seats b WHERE b.game_id = g.id AND b.role IN ('mafia', 'don')
        AND b.seat IN (SELECT value FROM json_each(g.best_move))),
       s.disqualified,
       CASE WHEN s.judge_extra <= ? OR s.chief_approved THEN s.judge_extra ELSE 0 END,
       json_array_length(s.penalties)
FROM game_seats s JOIN games g ON g.id = s.game_id JOIN tournaments t ON t.id = g.tournament_id
WHERE s.player_id IN (SELECT id FROM players WHERE person_id = ?)
  AND g.status <> 'annulled' AND t.status <> 'registration'
ORDER BY g.created_at, g.id
"""


async def seat_stats(conn: Conn, person_id: int, approval_above: int) -> list[SeatStat]:
    rows = await fetch_all(conn, _STATS_SQL, (approval_above, person_id))
    return [
        SeatStat(
            int(r[0]), int(r[1]), int(r[2]), str(r[3]), str(r[4]), bool(r[5]),
            int(r[6]) if r[5] else 0, int(r[7]) if r[5] else 0, bool(r[8]), int(r[9]),
            int(r[10]),
        )
        for r in rows
    ]


class TournamentPlayer(NamedTuple):
    """A player of a tournament (not rejected) with his person and its career name."""

    player_id: int
    nickname: str
    person_id: int
    name: str


async def tournament_players(conn: Conn, tournament_id: int) -> list[TournamentPlayer]:
    rows = await fetch_all(
        conn,
        "SELECT p.id, p.nickname, s.id, s.name FROM players p JOIN persons s"
        " ON s.id = p.person_id WHERE p.tournament_id = ? AND p.status <> 'rejected'"
        " ORDER BY p.nickname_key, p.id",
        (tournament_id,),
    )
    return [TournamentPlayer(int(r[0]), str(r[1]), int(r[2]), str(r[3])) for r in rows]
