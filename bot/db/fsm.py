"""aiogram's FSM rows (``bot.telegram.fsm_storage``): one row per storage key, its state and its
data as JSON text.

A runtime table (``connection.RUNTIME_TABLES``): writes go through ``Database.write``,
one statement and one round trip each, outside any domain transaction.
"""

from __future__ import annotations

from datetime import datetime

from bot.db.connection import Conn, Database, fetch_one
from bot.db.timeutil import ts_or_now


async def get_row(conn: Conn, key: str) -> tuple[str | None, str] | None:
    """``(state, data)`` stored under ``key``, or None if there is no row."""
    found = await fetch_one(conn, "SELECT state, data FROM fsm WHERE key = ?", (key,))
    return None if found is None else (found[0], found[1])


async def put_row(
    db: Database, key: str, state: str | None, data: str, *, now: datetime | None = None
) -> None:
    await db.write(
        "INSERT INTO fsm (key, state, data, updated_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (key) DO UPDATE SET state = excluded.state,"
        " data = excluded.data, updated_at = excluded.updated_at",
        (key, state, data, ts_or_now(now)),
    )


async def delete_row(db: Database, key: str) -> None:
    await db.write("DELETE FROM fsm WHERE key = ?", (key,))
