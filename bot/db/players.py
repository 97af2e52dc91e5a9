"""Players of a tournament: nicknames unique per tournament, optionally linked to a user."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, fetch_val, insert, run
from bot.db.errors import (
    InvalidNickname,
    NicknameTaken,
    NotFound,
    PlayerHasGames,
    UserAlreadyPlayer,
)
from bot.db.timeutil import from_ts, opt_from_ts, ts_or_now

PlayerStatus = Literal["pending", "confirmed", "rejected"]
MAX_NICKNAME = 32  # nicknames are 1–32 characters (the schema allows 64)


@dataclass(frozen=True, slots=True)
class PlayerRow:
    id: int
    tournament_id: int
    nickname: str
    user_id: int | None
    status: PlayerStatus
    created_at: datetime
    decided_by: int | None
    decided_at: datetime | None
    withdrawn_at: datetime | None = None  # withdrawn by the chief judge: plays no more

    @property
    def plays_on(self) -> bool:
        """Confirmed and not withdrawn: seated in the games still to play."""
        return self.status == "confirmed" and self.withdrawn_at is None


def _row(r: sqlite3.Row) -> PlayerRow:
    return PlayerRow(
        id=r["id"],
        tournament_id=r["tournament_id"],
        nickname=r["nickname"],
        user_id=r["user_id"],
        status=cast(PlayerStatus, r["status"]),
        created_at=from_ts(r["created_at"]),
        decided_by=r["decided_by"],
        decided_at=opt_from_ts(r["decided_at"]),
        withdrawn_at=opt_from_ts(r["withdrawn_at"]),
    )


def normalize_nickname(nickname: str) -> str:
    """The nickname as stored and shown: NFKC, control and format characters dropped
    (zero-width joiners make look-alike names), whitespace trimmed and collapsed."""
    text = "".join(
        " " if ch.isspace() else ch
        for ch in unicodedata.normalize("NFKC", nickname)
        if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf")
    )
    # Dropping a character can let its neighbours compose: normalise once more.
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    if not text:
        raise InvalidNickname("nickname is empty")
    if len(text) > MAX_NICKNAME:
        raise InvalidNickname(f"nickname is longer than {MAX_NICKNAME} characters")
    return text


def nickname_key(nickname: str) -> str:
    """Uniqueness key: case-insensitive, and ё = е (Russian writes both for one name)."""
    return normalize_nickname(nickname).casefold().replace("ё", "е")


async def _taken(conn: Conn, tournament_id: int, key: str, except_id: int | None) -> int | None:
    r = await fetch_one(
        conn,
        "SELECT id FROM players WHERE tournament_id = ? AND nickname_key = ?"
        " AND status <> 'rejected' AND id IS NOT ?",
        (tournament_id, key, except_id),
    )
    return None if r is None else int(r["id"])


async def _check_user_free(
    conn: Conn, tournament_id: int, user_id: int | None, except_id: int | None
) -> None:
    if user_id is None:
        return
    existing = await player_for_user(conn, tournament_id, user_id)
    if existing is not None and existing.id != except_id:
        raise UserAlreadyPlayer(user_id, existing.id)


async def add_player(
    conn: Conn,
    tournament_id: int,
    nickname: str,
    *,
    user_id: int | None = None,
    status: PlayerStatus = "pending",
    decided_by: int | None = None,
    now: datetime | None = None,
) -> PlayerRow:
    """Register a player (``status="confirmed"`` when a judge adds one directly).

    Raises NicknameTaken, UserAlreadyPlayer, InvalidNickname.
    """
    shown = normalize_nickname(nickname)
    key = nickname_key(shown)
    taken = await _taken(conn, tournament_id, key, None)
    if taken is not None:
        raise NicknameTaken(shown, taken)
    await _check_user_free(conn, tournament_id, user_id, None)
    at = ts_or_now(now)
    pid = await insert(
        conn,
        "INSERT INTO players (tournament_id, nickname, nickname_key, user_id, status,"
        " created_at, decided_by, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            tournament_id,
            shown,
            key,
            user_id,
            status,
            at,
            decided_by if status != "pending" else None,
            at if status != "pending" else None,
        ),
    )
    return await require_player(conn, pid)


async def get_player(conn: Conn, player_id: int) -> PlayerRow | None:
    r = await fetch_one(conn, "SELECT * FROM players WHERE id = ?", (player_id,))
    return None if r is None else _row(r)


async def require_player(conn: Conn, player_id: int) -> PlayerRow:
    row = await get_player(conn, player_id)
    if row is None:
        raise NotFound("player", player_id)
    return row


async def find_player_by_nickname(
    conn: Conn, tournament_id: int, nickname: str
) -> PlayerRow | None:
    """Case-insensitive look-up among players who are not rejected."""
    try:
        key = nickname_key(nickname)
    except InvalidNickname:
        return None
    r = await fetch_one(
        conn,
        "SELECT * FROM players WHERE tournament_id = ? AND nickname_key = ?"
        " AND status <> 'rejected'",
        (tournament_id, key),
    )
    return None if r is None else _row(r)


async def find_players_by_nicknames(
    conn: Conn, tournament_id: int, nicknames: Sequence[str]
) -> list[PlayerRow | None]:
    """``find_player_by_nickname`` of each nickname (None where there is none), in one
    statement."""
    keys: list[str | None] = []
    for nickname in nicknames:
        try:
            keys.append(nickname_key(nickname))
        except InvalidNickname:
            keys.append(None)
    wanted = sorted({key for key in keys if key is not None})
    if not wanted:
        return [None] * len(keys)
    rows = await fetch_all(
        conn,
        "SELECT * FROM players WHERE tournament_id = ? AND status <> 'rejected'"
        " AND nickname_key IN (SELECT value FROM json_each(?))",
        (tournament_id, json.dumps(wanted, ensure_ascii=False)),
    )
    found = {r["nickname_key"]: _row(r) for r in rows}
    return [None if key is None else found.get(key) for key in keys]


async def player_for_user(conn: Conn, tournament_id: int, user_id: int) -> PlayerRow | None:
    """The user's (not rejected) player in the tournament."""
    r = await fetch_one(
        conn,
        "SELECT * FROM players WHERE tournament_id = ? AND user_id = ? AND status <> 'rejected'",
        (tournament_id, user_id),
    )
    return None if r is None else _row(r)


async def players_of_user(conn: Conn, user_id: int) -> list[PlayerRow]:
    rows = await fetch_all(
        conn,
        "SELECT * FROM players WHERE user_id = ? AND status <> 'rejected' ORDER BY id",
        (user_id,),
    )
    return [_row(r) for r in rows]


async def _decide(
    conn: Conn, player_id: int, status: PlayerStatus, decided_by: int, now: datetime | None
) -> PlayerRow:
    current = await require_player(conn, player_id)
    if current.status == status:
        return current
    if status == "confirmed" and current.status == "rejected":
        # Its nickname or user may have been taken meanwhile.
        taken = await _taken(conn, current.tournament_id, nickname_key(current.nickname), None)
        if taken is not None:
            raise NicknameTaken(current.nickname, taken)
        await _check_user_free(conn, current.tournament_id, current.user_id, None)
    await run(
        conn,
        "UPDATE players SET status = ?, decided_by = ?, decided_at = ? WHERE id = ?",
        (status, decided_by, ts_or_now(now), player_id),
    )
    return await require_player(conn, player_id)


async def confirm_player(
    conn: Conn, player_id: int, *, decided_by: int, now: datetime | None = None
) -> PlayerRow:
    return await _decide(conn, player_id, "confirmed", decided_by, now)


async def reject_player(
    conn: Conn, player_id: int, *, decided_by: int, now: datetime | None = None
) -> PlayerRow:
    """Reject an application; frees the nickname and lets the user apply again.

    Refused (PlayerHasGames) for a player seated in a game that counts: his nickname
    identifies him in the standings and must stay his.
    """
    played = await fetch_one(
        conn,
        "SELECT g.id FROM game_seats s JOIN games g ON g.id = s.game_id"
        " WHERE s.player_id = ? AND g.status <> 'annulled' LIMIT 1",
        (player_id,),
    )
    if played is not None:
        raise PlayerHasGames(player_id)
    return await _decide(conn, player_id, "rejected", decided_by, now)


async def withdraw_player(
    conn: Conn, player_id: int, *, withdrawn_by: int, now: datetime | None = None
) -> PlayerRow:
    """The confirmed player plays no more; his games and status stay."""
    await run(
        conn,
        "UPDATE players SET withdrawn_at = ?, withdrawn_by = ? WHERE id = ?",
        (ts_or_now(now), withdrawn_by, player_id),
    )
    return await require_player(conn, player_id)


async def link_player(conn: Conn, player_id: int, user_id: int | None) -> PlayerRow:
    """Link the player to a Telegram account (``None`` unlinks)."""
    current = await require_player(conn, player_id)
    if current.user_id == user_id:
        return current
    await _check_user_free(conn, current.tournament_id, user_id, player_id)
    await run(conn, "UPDATE players SET user_id = ? WHERE id = ?", (user_id, player_id))
    return await require_player(conn, player_id)


async def rename_player(conn: Conn, player_id: int, nickname: str) -> PlayerRow:
    current = await require_player(conn, player_id)
    shown = normalize_nickname(nickname)
    key = nickname_key(shown)
    taken = await _taken(conn, current.tournament_id, key, player_id)
    if taken is not None:
        raise NicknameTaken(shown, taken)
    await run(
        conn,
        "UPDATE players SET nickname = ?, nickname_key = ? WHERE id = ?",
        (shown, key, player_id),
    )
    return await require_player(conn, player_id)


async def count_players(conn: Conn, tournament_id: int, *, status: PlayerStatus) -> int:
    return int(
        await fetch_val(
            conn,
            "SELECT count(*) FROM players WHERE tournament_id = ? AND status = ?",
            (tournament_id, status),
        )
    )


async def players_by_id(conn: Conn, ids: Collection[int]) -> list[PlayerRow]:
    """The players with these ids (a game's ten seats), in no particular order."""
    wanted = tuple(set(ids))
    if not wanted:
        return []
    marks = ",".join("?" * len(wanted))
    rows = await fetch_all(conn, f"SELECT * FROM players WHERE id IN ({marks})", wanted)
    return [_row(r) for r in rows]


async def list_players(
    conn: Conn,
    tournament_id: int,
    *,
    status: PlayerStatus | Collection[PlayerStatus] | None = None,
) -> list[PlayerRow]:
    """Players in nickname order; ``status`` filters by one status or several."""
    wanted: list[str] | None
    if status is None:
        wanted = None
    elif isinstance(status, str):
        wanted = [status]
    else:
        wanted = list(status)
    rows = await fetch_all(
        conn,
        "SELECT * FROM players WHERE tournament_id = ? ORDER BY nickname_key, id",
        (tournament_id,),
    )
    return [_row(r) for r in rows if wanted is None or r["status"] in wanted]
