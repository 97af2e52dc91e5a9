"""Tournaments: creation, lookup by group, status, the live standings message."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, insert, run
from bot.db.errors import ChatBusy, InvalidTransition, NotFound
from bot.db.timeutil import from_ts, opt_from_ts, ts_or_now

TournamentStatus = Literal["registration", "running", "finished"]
TournamentKind = Literal["tournament", "evening"]
# The roles of a tournament's staff (the staff table's ``role``), named once: the chief
# judge runs the tournament, a judge enters games.
StaffRole = Literal["chief", "judge"]
CHIEF: Final = "chief"
JUDGE: Final = "judge"
# The languages a tournament's group can read (the catalogs in locales/).
LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"

# Forward only: a finished tournament stays finished (its group may have a new one).
_TRANSITIONS: dict[str, frozenset[str]] = {
    "registration": frozenset({"running", "finished"}),
    "running": frozenset({"finished"}),
    "finished": frozenset(),
}


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    title: str
    chat_id: int | None
    distance: int
    status: TournamentStatus
    created_by: int
    created_at: datetime
    finished_at: datetime | None
    bot_removed: bool
    standings_message_id: int | None
    standings_hash: str | None
    # Bumped by a trigger on every change of its players (see players.roster).
    roster_version: int = 0
    # What its group reads: everything the bot posts there is in this language.
    language: str = DEFAULT_LANGUAGE
    # IANA name; every time shown for the tournament is local to it (bot.texts.localtime).
    timezone: str = "UTC"
    # "evening": a club evening's games (docs/club.md), else "tournament".
    kind: TournamentKind = "tournament"


@dataclass(frozen=True, slots=True)
class StaffTournament:
    tournament: TournamentRow
    role: StaffRole


_COLUMNS = (
    "t.id, t.title, t.chat_id, t.distance, t.status, t.created_by, t.created_at, "
    "t.finished_at, t.bot_removed, t.standings_message_id, t.standings_hash, t.roster_version, "
    "t.language, t.timezone, t.kind"
)


def _row(r: sqlite3.Row) -> TournamentRow:
    return TournamentRow(
        id=r["id"],
        title=r["title"],
        chat_id=r["chat_id"],
        distance=r["distance"],
        status=cast(TournamentStatus, r["status"]),
        created_by=r["created_by"],
        created_at=from_ts(r["created_at"]),
        finished_at=opt_from_ts(r["finished_at"]),
        bot_removed=bool(r["bot_removed"]),
        standings_message_id=r["standings_message_id"],
        standings_hash=r["standings_hash"],
        roster_version=r["roster_version"],
        language=r["language"],
        timezone=r["timezone"],
        kind=cast(TournamentKind, r["kind"]),
    )


async def _check_chat_free(conn: Conn, chat_id: int | None, except_id: int | None = None) -> None:
    if chat_id is None:
        return
    busy = await running_tournament_for_chat(conn, chat_id)
    if busy is not None and busy.id != except_id:
        raise ChatBusy(chat_id, busy.id)


async def create_tournament(
    conn: Conn,
    *,
    title: str,
    distance: int,
    created_by: int,
    chat_id: int | None = None,
    now: datetime | None = None,
    language: str = DEFAULT_LANGUAGE,
    timezone: str = "UTC",
    kind: TournamentKind = "tournament",
) -> TournamentRow:
    """Create a tournament in ``registration``; its creator becomes its chief judge."""
    title = " ".join(title.split())
    if not title:
        raise ValueError("tournament title is empty")
    if distance < 1:
        raise ValueError("distance must be at least 1 game")
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    await _check_chat_free(conn, chat_id)
    at = ts_or_now(now)
    tid = await insert(
        conn,
        "INSERT INTO tournaments (title, chat_id, distance, created_by, created_at, language,"
        " timezone, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (title, chat_id, distance, created_by, at, language, timezone, kind),
    )
    await run(
        conn,
        "INSERT INTO staff (tournament_id, user_id, role, added_by, added_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (tid, created_by, CHIEF, created_by, at),
    )
    return await require_tournament(conn, tid)


async def get_tournament(conn: Conn, tournament_id: int) -> TournamentRow | None:
    r = await fetch_one(
        conn, f"SELECT {_COLUMNS} FROM tournaments t WHERE t.id = ?", (tournament_id,)
    )
    return None if r is None else _row(r)


async def tournament_and_role(
    conn: Conn, tournament_id: int, user_id: int
) -> tuple[TournamentRow | None, StaffRole | None]:
    """The tournament and the user's role in it, in one query (checked on every tap)."""
    r = await fetch_one(
        conn,
        f"SELECT {_COLUMNS}, s.role FROM tournaments t"
        " LEFT JOIN staff s ON s.tournament_id = t.id AND s.user_id = ? WHERE t.id = ?",
        (user_id, tournament_id),
    )
    if r is None:
        return None, None
    return _row(r), cast(StaffRole | None, r["role"])


async def require_tournament(conn: Conn, tournament_id: int) -> TournamentRow:
    row = await get_tournament(conn, tournament_id)
    if row is None:
        raise NotFound("tournament", tournament_id)
    return row


async def running_tournament_for_chat(conn: Conn, chat_id: int) -> TournamentRow | None:
    """The group's unfinished tournament (``registration`` or ``running``), if any."""
    r = await fetch_one(
        conn,
        f"SELECT {_COLUMNS} FROM tournaments t WHERE t.chat_id = ? AND t.status <> 'finished'",
        (chat_id,),
    )
    return None if r is None else _row(r)


async def current_for_chat(conn: Conn, chat_id: int) -> TournamentRow | None:
    """The group's unfinished tournament, else its latest one (a finished tournament's
    group still shows its card and standings); None for a group without one."""
    r = await fetch_one(
        conn,
        f"SELECT {_COLUMNS} FROM tournaments t WHERE t.chat_id = ?"
        " ORDER BY t.status <> 'finished' DESC, t.id DESC LIMIT 1",
        (chat_id,),
    )
    return None if r is None else _row(r)


async def all_tournaments(conn: Conn) -> list[TournamentRow]:
    """Every tournament of the database, newest first (``python -m bot export``)."""
    rows = await fetch_all(conn, f"SELECT {_COLUMNS} FROM tournaments t ORDER BY t.id DESC")
    return [_row(r) for r in rows]


async def tournaments_for_chat(conn: Conn, chat_id: int) -> list[TournamentRow]:
    rows = await fetch_all(
        conn, f"SELECT {_COLUMNS} FROM tournaments t WHERE t.chat_id = ? ORDER BY t.id", (chat_id,)
    )
    return [_row(r) for r in rows]


async def tournaments_for_staff(
    conn: Conn, user_id: int, *, include_finished: bool = False
) -> list[StaffTournament]:
    """Tournaments where the user is chief or judge, newest first."""
    rows = await fetch_all(
        conn,
        f"SELECT {_COLUMNS}, s.role FROM tournaments t"
        " JOIN staff s ON s.tournament_id = t.id"
        " WHERE s.user_id = ? AND (? OR t.status <> 'finished')"
        " ORDER BY t.id DESC",
        (user_id, include_finished),
    )
    return [StaffTournament(_row(r), cast(StaffRole, r["role"])) for r in rows]


async def set_status(
    conn: Conn, tournament_id: int, status: TournamentStatus, *, now: datetime | None = None
) -> TournamentRow:
    """Move the tournament forward; setting the current status again is a no-op."""
    current = await require_tournament(conn, tournament_id)
    if current.status == status:
        return current
    if status not in _TRANSITIONS[current.status]:
        raise InvalidTransition(current.status, status)
    await run(
        conn,
        "UPDATE tournaments SET status = ?, finished_at = ? WHERE id = ?",
        (status, ts_or_now(now) if status == "finished" else None, tournament_id),
    )
    return await require_tournament(conn, tournament_id)


async def update_tournament(
    conn: Conn, tournament_id: int, *, title: str | None = None, distance: int | None = None
) -> TournamentRow:
    current = await require_tournament(conn, tournament_id)
    new_title = current.title if title is None else " ".join(title.split())
    new_distance = current.distance if distance is None else distance
    if not new_title:
        raise ValueError("tournament title is empty")
    if new_distance < 1:
        raise ValueError("distance must be at least 1 game")
    await run(
        conn,
        "UPDATE tournaments SET title = ?, distance = ? WHERE id = ?",
        (new_title, new_distance, tournament_id),
    )
    return await require_tournament(conn, tournament_id)


async def set_language(conn: Conn, tournament_id: int, language: str) -> TournamentRow:
    """The language its group reads."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    await require_tournament(conn, tournament_id)
    await run(conn, "UPDATE tournaments SET language = ? WHERE id = ?", (language, tournament_id))
    return await require_tournament(conn, tournament_id)


async def set_timezone(conn: Conn, tournament_id: int, timezone: str) -> TournamentRow:
    """The time zone its times are shown in (an IANA name, checked by the caller)."""
    await require_tournament(conn, tournament_id)
    await run(conn, "UPDATE tournaments SET timezone = ? WHERE id = ?", (timezone, tournament_id))
    return await require_tournament(conn, tournament_id)


async def chat_language(conn: Conn, chat_id: int) -> str | None:
    """The language of the group's tournament: its unfinished one, else its latest; None
    for a group without a tournament."""
    r = await fetch_one(
        conn,
        "SELECT language FROM tournaments WHERE chat_id = ?"
        " ORDER BY status <> 'finished' DESC, id DESC LIMIT 1",
        (chat_id,),
    )
    return None if r is None else str(r["language"])


async def set_chat(conn: Conn, tournament_id: int, chat_id: int | None) -> TournamentRow:
    """Bind the tournament to a group (ChatBusy if the group has another unfinished one)."""
    current = await require_tournament(conn, tournament_id)
    if current.status != "finished":
        await _check_chat_free(conn, chat_id, except_id=tournament_id)
    await run(
        conn,
        "UPDATE tournaments SET chat_id = ?, bot_removed = 0, standings_message_id = NULL,"
        " standings_hash = NULL WHERE id = ?",
        (chat_id, tournament_id),
    )
    return await require_tournament(conn, tournament_id)


async def migrate_chat(conn: Conn, old_chat_id: int, new_chat_id: int) -> int:
    """Follow a group's upgrade to a supergroup (Telegram gives it a new id)."""
    return await run(
        conn, "UPDATE tournaments SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
    )


async def set_bot_removed(conn: Conn, chat_id: int, removed: bool) -> int:
    """Mark the group's tournaments when the bot is kicked from (or re-added to) it."""
    return await run(
        conn, "UPDATE tournaments SET bot_removed = ? WHERE chat_id = ?", (removed, chat_id)
    )


async def set_standings_message(
    conn: Conn, tournament_id: int, message_id: int | None, content_hash: str | None
) -> None:
    """Remember the live standings message, and the hash of what it shows (skip no-op edits)."""
    await run(
        conn,
        "UPDATE tournaments SET standings_message_id = ?, standings_hash = ? WHERE id = ?",
        (message_id, content_hash, tournament_id),
    )
