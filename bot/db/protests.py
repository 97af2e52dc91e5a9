"""Protests (8.8): filed by a seated player within 10 minutes, decided by the chief judge."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, insert, run
from bot.db.errors import AlreadyDecided, GameAnnulled, NotFound, NotSeated, ProtestTooLate
from bot.db.games import require_game
from bot.db.timeutil import from_ts, opt_from_ts, to_ts, ts_or_now

ProtestStatus = Literal["open", "upheld", "rejected"]


@dataclass(frozen=True, slots=True)
class ProtestRow:
    id: int
    game_id: int
    player_id: int
    user_id: int
    text: str
    filed_at: datetime
    source_chat_id: int | None
    source_message_id: int | None
    status: ProtestStatus
    decision: str | None
    decided_by: int | None
    decided_at: datetime | None


def _row(r: sqlite3.Row) -> ProtestRow:
    return ProtestRow(
        id=r["id"],
        game_id=r["game_id"],
        player_id=r["player_id"],
        user_id=r["user_id"],
        text=r["text"],
        filed_at=from_ts(r["filed_at"]),
        source_chat_id=r["source_chat_id"],
        source_message_id=r["source_message_id"],
        status=cast(ProtestStatus, r["status"]),
        decision=r["decision"],
        decided_by=r["decided_by"],
        decided_at=opt_from_ts(r["decided_at"]),
    )


async def add_protest(
    conn: Conn,
    game_id: int,
    player_id: int,
    user_id: int,
    text: str,
    filed_at: datetime,
    *,
    source_chat_id: int | None = None,
    source_message_id: int | None = None,
) -> ProtestRow:
    """File a protest; ``filed_at`` is the protest message's own Telegram date (D11).

    Raises NotSeated (only a player of that game may protest), ProtestTooLate (after
    ``ended_at`` + 10 minutes; nothing is stored), GameAnnulled. The same source
    message filed again returns the stored protest.
    """
    if source_message_id is not None:
        r = await fetch_one(
            conn,
            "SELECT * FROM protests WHERE source_chat_id IS ? AND source_message_id = ?",
            (source_chat_id, source_message_id),
        )
        if r is not None:
            return _row(r)
    game = await require_game(conn, game_id)
    if game.status == "annulled":
        raise GameAnnulled(game_id)
    if game.seat_of(player_id) is None:
        raise NotSeated(game_id, player_id)
    if to_ts(filed_at) > to_ts(game.protest_deadline):
        raise ProtestTooLate(game.protest_deadline, filed_at)
    text = text.strip()
    if not text:
        raise ValueError("protest text is empty")
    pid = await insert(
        conn,
        "INSERT INTO protests (game_id, player_id, user_id, text, filed_at, source_chat_id,"
        " source_message_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            game_id,
            player_id,
            user_id,
            text[:4096],
            to_ts(filed_at),
            source_chat_id,
            source_message_id,
        ),
    )
    return await require_protest(conn, pid)


async def get_protest(conn: Conn, protest_id: int) -> ProtestRow | None:
    r = await fetch_one(conn, "SELECT * FROM protests WHERE id = ?", (protest_id,))
    return None if r is None else _row(r)


async def require_protest(conn: Conn, protest_id: int) -> ProtestRow:
    row = await get_protest(conn, protest_id)
    if row is None:
        raise NotFound("protest", protest_id)
    return row


async def decide_protest(
    conn: Conn,
    protest_id: int,
    status: Literal["upheld", "rejected"],
    *,
    decided_by: int,
    decision: str | None = None,
    now: datetime | None = None,
) -> ProtestRow:
    """The chief judge's final decision (8.8.4); AlreadyDecided if it was decided before.

    Upholding records the decision only: the handler corrects or annuls the game.
    """
    if status not in ("upheld", "rejected"):
        raise ValueError(f"a protest is upheld or rejected, not {status!r}")
    current = await require_protest(conn, protest_id)
    if current.status != "open":
        raise AlreadyDecided("protest", current)
    await run(
        conn,
        "UPDATE protests SET status = ?, decision = ?, decided_by = ?, decided_at = ? WHERE id = ?",
        (status, decision, decided_by, ts_or_now(now), protest_id),
    )
    return await require_protest(conn, protest_id)


async def open_protests(conn: Conn, tournament_id: int) -> list[ProtestRow]:
    """Undecided protests of the tournament, oldest first."""
    rows = await fetch_all(
        conn,
        "SELECT p.* FROM protests p JOIN games g ON g.id = p.game_id"
        " WHERE g.tournament_id = ? AND p.status = 'open' ORDER BY p.filed_at, p.id",
        (tournament_id,),
    )
    return [_row(r) for r in rows]


async def protests_for_game(conn: Conn, game_id: int) -> list[ProtestRow]:
    rows = await fetch_all(
        conn, "SELECT * FROM protests WHERE game_id = ? ORDER BY filed_at, id", (game_id,)
    )
    return [_row(r) for r in rows]


async def protests_for_games(conn: Conn, game_ids: Collection[int]) -> dict[int, list[ProtestRow]]:
    """``protests_for_game`` of each game, in one statement (a game with none is absent)."""
    if not game_ids:
        return {}
    rows = await fetch_all(
        conn,
        "SELECT * FROM protests WHERE game_id IN (SELECT value FROM json_each(?))"
        " ORDER BY filed_at, id",
        (json.dumps(sorted(set(game_ids))),),
    )
    found: dict[int, list[ProtestRow]] = {}
    for r in rows:
        found.setdefault(r["game_id"], []).append(_row(r))
    return found
