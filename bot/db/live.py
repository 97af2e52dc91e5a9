"""Live drafts: a game entered event by event in the Mini App (docs/development.md, "The live
protocol"), and their events (the protocol's commands in order, each stored once by
the page's own id).

Only storage is here; what a command means is ``scoring.protocol``'s, what may be done
``bot.services.live``'s.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.db.connection import Conn, fetch_all, fetch_one, fetch_val, run
from bot.db.timeutil import to_ts, utcnow

_COLUMNS = (
    "id, token, public_token, tournament_id, round, table_no, players, judge_id, draft_id,"
    " created_at, updated_at, game_id"
)


def new_token() -> str:
    """Unguessable and URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class LiveDraft:
    id: int
    token: str
    public_token: str
    tournament_id: int
    round: int
    table_no: int
    players: tuple[int, ...]  # seat n at [n - 1]
    judge_id: int
    draft_id: str
    created_at: int
    updated_at: int
    game_id: int | None  # the saved game; None while it is entered

    @property
    def saved(self) -> bool:
        return self.game_id is not None


@dataclass(frozen=True, slots=True)
class LiveEvent:
    seq: int
    client_id: str
    command: dict[str, Any]


def _draft(row: sqlite3.Row) -> LiveDraft:
    return LiveDraft(
        id=row["id"],
        token=row["token"],
        public_token=row["public_token"],
        tournament_id=row["tournament_id"],
        round=row["round"],
        table_no=row["table_no"],
        players=tuple(json.loads(row["players"])),
        judge_id=row["judge_id"],
        draft_id=row["draft_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        game_id=row["game_id"],
    )


async def _one(conn: Conn, where: str, value: object) -> LiveDraft | None:
    row = await fetch_one(conn, f"SELECT {_COLUMNS} FROM live_drafts WHERE {where} = ?", (value,))
    return None if row is None else _draft(row)


async def by_token(conn: Conn, token: str) -> LiveDraft | None:
    return await _one(conn, "token", token)


async def by_public_token(conn: Conn, token: str) -> LiveDraft | None:
    return await _one(conn, "public_token", token)


async def by_draft_id(conn: Conn, draft_id: str) -> LiveDraft | None:
    return await _one(conn, "draft_id", draft_id)


async def by_game(conn: Conn, game_id: int) -> LiveDraft | None:
    return await _one(conn, "game_id", game_id)


async def open_draft(
    conn: Conn,
    *,
    draft_id: str,
    tournament_id: int,
    round_no: int,
    table_no: int,
    players: Sequence[int],
    judge_id: int,
) -> LiveDraft:
    """The live draft of the card's ``draft_id``: made on first call, its round, table
    and seats brought up to the card's while it is not saved."""
    now = to_ts(utcnow())
    seats = json.dumps(list(players))
    await run(
        conn,
        "INSERT INTO live_drafts (token, public_token, tournament_id, round, table_no,"
        " players, judge_id, draft_id, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (draft_id) DO UPDATE SET round = excluded.round,"
        " table_no = excluded.table_no, players = excluded.players,"
        " updated_at = excluded.updated_at"
        " WHERE game_id IS NULL AND (round != excluded.round"
        " OR table_no != excluded.table_no OR players != excluded.players)",
        (new_token(), new_token(), tournament_id, round_no, table_no, seats, judge_id,
         draft_id, now, now),
    )
    found = await by_draft_id(conn, draft_id)
    assert found is not None
    return found


async def events(conn: Conn, draft: int) -> list[LiveEvent]:
    rows = await fetch_all(
        conn,
        "SELECT seq, client_id, command FROM live_events WHERE draft_id = ? ORDER BY seq",
        (draft,),
    )
    return [LiveEvent(r["seq"], r["client_id"], json.loads(r["command"])) for r in rows]


async def known_commands(
    conn: Conn, draft: int, client_ids: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """The commands stored for ``draft`` under those of ``client_ids`` stored already."""
    if not client_ids:
        return {}
    marks = ", ".join("?" * len(client_ids))
    rows = await fetch_all(
        conn,
        "SELECT client_id, command FROM live_events"
        f" WHERE draft_id = ? AND client_id IN ({marks})",
        (draft, *client_ids),
    )
    return {r["client_id"]: json.loads(r["command"]) for r in rows}


async def version(conn: Conn, draft: int) -> int:
    """The number of events stored (the draft's version)."""
    return int(await fetch_val(
        conn, "SELECT coalesce(max(seq), 0) FROM live_events WHERE draft_id = ?", (draft,)
    ))


async def append(
    conn: Conn, draft: int, first_seq: int, commands: Sequence[tuple[str, Mapping[str, Any]]]
) -> None:
    """Store ``commands`` (client id, command) as events ``first_seq``, ``first_seq + 1`` ..."""
    now = to_ts(utcnow())
    await conn.executemany(
        "INSERT INTO live_events (draft_id, seq, client_id, command, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (draft, first_seq + i, client_id, json.dumps(command, separators=(",", ":")), now)
            for i, (client_id, command) in enumerate(commands)
        ],
    )
    await run(conn, "UPDATE live_drafts SET updated_at = ? WHERE id = ?", (now, draft))


async def mark_saved(conn: Conn, draft: int, game_id: int) -> None:
    await run(conn, "UPDATE live_drafts SET game_id = ? WHERE id = ? AND game_id IS NULL",
              (game_id, draft))


async def open_drafts_of(conn: Conn, judge_id: int) -> list[LiveDraft]:
    """The judge's live drafts not saved yet, newest first."""
    rows = await fetch_all(
        conn,
        f"SELECT {_COLUMNS} FROM live_drafts WHERE judge_id = ? AND game_id IS NULL"
        " ORDER BY updated_at DESC, id DESC",
        (judge_id,),
    )
    return [_draft(r) for r in rows]


async def commands_of_games(conn: Conn, game_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    """The stored commands of the games saved from live drafts, in order, by game id."""
    if not game_ids:
        return {}
    marks = ", ".join("?" * len(game_ids))
    rows = await fetch_all(
        conn,
        "SELECT d.game_id, e.command FROM live_events e JOIN live_drafts d ON d.id = e.draft_id"
        f" WHERE d.game_id IN ({marks}) ORDER BY d.game_id, e.seq",
        tuple(game_ids),
    )
    found: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        found.setdefault(r["game_id"], []).append(json.loads(r["command"]))
    return found


__all__ = [
    "LiveDraft",
    "LiveEvent",
    "append",
    "by_draft_id",
    "by_game",
    "by_public_token",
    "by_token",
    "commands_of_games",
    "events",
    "known_commands",
    "mark_saved",
    "new_token",
    "open_draft",
    "open_drafts_of",
    "version",
]
