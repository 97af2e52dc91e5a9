"""Chief judges and game judges of a tournament."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from bot.db.connection import Conn, fetch_all, fetch_one, fetch_val, run
from bot.db.errors import LastChief
from bot.db.timeutil import from_ts, ts_or_now
from bot.db.tournaments import CHIEF, StaffRole


@dataclass(frozen=True, slots=True)
class StaffRow:
    tournament_id: int
    user_id: int
    role: StaffRole
    added_by: int
    added_at: datetime


def _row(r: sqlite3.Row) -> StaffRow:
    return StaffRow(
        tournament_id=r["tournament_id"],
        user_id=r["user_id"],
        role=cast(StaffRole, r["role"]),
        added_by=r["added_by"],
        added_at=from_ts(r["added_at"]),
    )


async def _chief_count(conn: Conn, tournament_id: int) -> int:
    return int(
        await fetch_val(
            conn,
            "SELECT count(*) FROM staff WHERE tournament_id = ? AND role = ?",
            (tournament_id, CHIEF),
        )
    )


async def add_staff(
    conn: Conn,
    tournament_id: int,
    user_id: int,
    role: StaffRole,
    *,
    added_by: int,
    now: datetime | None = None,
) -> StaffRow:
    """Add a chief or judge; an existing member gets the new role (LastChief guards demotion)."""
    current = await staff_role(conn, tournament_id, user_id)
    if current == CHIEF and role != CHIEF and await _chief_count(conn, tournament_id) == 1:
        raise LastChief(tournament_id)
    await run(
        conn,
        "INSERT INTO staff (tournament_id, user_id, role, added_by, added_at)"
        " VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (tournament_id, user_id) DO UPDATE SET role = excluded.role",
        (tournament_id, user_id, role, added_by, ts_or_now(now)),
    )
    row = await get_staff(conn, tournament_id, user_id)
    assert row is not None
    return row


async def remove_staff(conn: Conn, tournament_id: int, user_id: int) -> bool:
    if (
        await staff_role(conn, tournament_id, user_id) == CHIEF
        and await _chief_count(conn, tournament_id) == 1
    ):
        raise LastChief(tournament_id)
    return (
        await run(
            conn,
            "DELETE FROM staff WHERE tournament_id = ? AND user_id = ?",
            (tournament_id, user_id),
        )
        > 0
    )


async def get_staff(conn: Conn, tournament_id: int, user_id: int) -> StaffRow | None:
    r = await fetch_one(
        conn,
        "SELECT * FROM staff WHERE tournament_id = ? AND user_id = ?",
        (tournament_id, user_id),
    )
    return None if r is None else _row(r)


async def staff_role(conn: Conn, tournament_id: int, user_id: int) -> StaffRole | None:
    role = await fetch_val(
        conn,
        "SELECT role FROM staff WHERE tournament_id = ? AND user_id = ?",
        (tournament_id, user_id),
    )
    return cast(StaffRole | None, role)


async def list_staff(
    conn: Conn, tournament_id: int, *, role: StaffRole | None = None
) -> list[StaffRow]:
    """Chiefs first, then judges, each in the order they were added."""
    rows = await fetch_all(
        conn,
        "SELECT * FROM staff WHERE tournament_id = ? AND (? IS NULL OR role = ?)"
        " ORDER BY role <> ?, added_at, user_id",
        (tournament_id, role, role, CHIEF),
    )
    return [_row(r) for r in rows]
