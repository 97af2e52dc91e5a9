"""Clubs (a group that meets for evenings) and their staff: the owner and the hosts."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from bot.db.connection import Conn, fetch_all, fetch_one, fetch_val, insert, run
from bot.db.timeutil import from_ts, ts_or_now

ClubRole = Literal["owner", "host"]
OWNER: ClubRole = "owner"
HOST: ClubRole = "host"
# What the owner may change with a command of its own (column names: never user input).
SETTINGS = frozenset(
    {"title", "language", "timezone", "season_start", "protests", "remind_before"}
)


@dataclass(frozen=True, slots=True)
class ClubRow:
    id: int
    chat_id: int
    title: str
    language: str
    timezone: str
    season_start: str  # MM-DD
    protests: bool
    remind_before: int  # seconds before an evening its reminder goes; 0: none
    created_by: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ClubStaffRow:
    club_id: int
    user_id: int
    role: ClubRole
    added_by: int
    added_at: datetime


def _club(r: sqlite3.Row) -> ClubRow:
    return ClubRow(
        id=r["id"],
        chat_id=r["chat_id"],
        title=r["title"],
        language=r["language"],
        timezone=r["timezone"],
        season_start=r["season_start"],
        protests=bool(r["protests"]),
        remind_before=r["remind_before"],
        created_by=r["created_by"],
        created_at=from_ts(r["created_at"]),
    )


def _staff(r: sqlite3.Row) -> ClubStaffRow:
    return ClubStaffRow(
        club_id=r["club_id"],
        user_id=r["user_id"],
        role=cast(ClubRole, r["role"]),
        added_by=r["added_by"],
        added_at=from_ts(r["added_at"]),
    )


async def create_club(
    conn: Conn,
    chat_id: int,
    title: str,
    *,
    owner: int,
    language: str = "ru",
    timezone: str = "UTC",
    now: datetime | None = None,
) -> ClubRow:
    """A club in ``chat_id`` with ``owner`` as its owner (IntegrityError: the group has one)."""
    at = ts_or_now(now)
    club_id = await insert(
        conn,
        "INSERT INTO clubs (chat_id, title, language, timezone, created_by, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (chat_id, title, language, timezone, owner, at),
    )
    await run(
        conn,
        "INSERT INTO club_staff (club_id, user_id, role, added_by, added_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (club_id, owner, OWNER, owner, at),
    )
    club = await get_club(conn, club_id)
    assert club is not None
    return club


async def get_club(conn: Conn, club_id: int) -> ClubRow | None:
    r = await fetch_one(conn, "SELECT * FROM clubs WHERE id = ?", (club_id,))
    return None if r is None else _club(r)


async def club_for_chat(conn: Conn, chat_id: int) -> ClubRow | None:
    """The club of a group (one club per group), or None."""
    r = await fetch_one(conn, "SELECT * FROM clubs WHERE chat_id = ?", (chat_id,))
    return None if r is None else _club(r)


async def club_language(conn: Conn, chat_id: int) -> str | None:
    value = await fetch_val(conn, "SELECT language FROM clubs WHERE chat_id = ?", (chat_id,))
    return None if value is None else str(value)


async def update_club(conn: Conn, club_id: int, setting: str, value: object) -> ClubRow:
    """Change one of ``SETTINGS``."""
    if setting not in SETTINGS:
        raise ValueError(f"not a club setting: {setting}")
    await run(conn, f"UPDATE clubs SET {setting} = ? WHERE id = ?", (value, club_id))
    club = await get_club(conn, club_id)
    assert club is not None
    return club


async def club_role(conn: Conn, club_id: int, user_id: int) -> ClubRole | None:
    """``user_id``'s role in the club: owner, host, or None."""
    role = await fetch_val(
        conn, "SELECT role FROM club_staff WHERE club_id = ? AND user_id = ?", (club_id, user_id)
    )
    return cast(ClubRole | None, role)


async def add_host(
    conn: Conn, club_id: int, user_id: int, *, added_by: int, now: datetime | None = None
) -> ClubStaffRow:
    await run(
        conn,
        "INSERT INTO club_staff (club_id, user_id, role, added_by, added_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (club_id, user_id, HOST, added_by, ts_or_now(now)),
    )
    row = await get_staff(conn, club_id, user_id)
    assert row is not None
    return row


async def remove_host(conn: Conn, club_id: int, user_id: int) -> bool:
    """Take a host off (never the owner)."""
    return (
        await run(
            conn,
            "DELETE FROM club_staff WHERE club_id = ? AND user_id = ? AND role = ?",
            (club_id, user_id, HOST),
        )
        > 0
    )


async def get_staff(conn: Conn, club_id: int, user_id: int) -> ClubStaffRow | None:
    r = await fetch_one(
        conn, "SELECT * FROM club_staff WHERE club_id = ? AND user_id = ?", (club_id, user_id)
    )
    return None if r is None else _staff(r)


async def list_staff(conn: Conn, club_id: int) -> list[ClubStaffRow]:
    """The owner first, then the hosts in the order they were added."""
    rows = await fetch_all(
        conn,
        "SELECT * FROM club_staff WHERE club_id = ? ORDER BY role <> ?, added_at, user_id",
        (club_id, OWNER),
    )
    return [_staff(r) for r in rows]


async def clubs_of_user(conn: Conn, user_id: int) -> list[tuple[ClubRow, ClubRole]]:
    """The clubs ``user_id`` owns or hosts."""
    rows = await fetch_all(
        conn,
        "SELECT c.*, s.role AS staff_role FROM clubs c JOIN club_staff s ON s.club_id = c.id"
        " WHERE s.user_id = ? ORDER BY c.id",
        (user_id,),
    )
    return [(_club(r), cast(ClubRole, r["staff_role"])) for r in rows]
