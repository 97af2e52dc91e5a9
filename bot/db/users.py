"""Telegram users as the bot last saw them (a profile cache, not an owner of rows)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.db.connection import Conn, fetch_all, fetch_one, run
from bot.db.timeutil import from_ts, ts_or_now
from bot.db.tournaments import DEFAULT_LANGUAGE

# -- the language someone reads ----------------------------------------------------------

# Russian, unless his Telegram speaks English (bot.texts.i18n translates into it).
DEFAULT_LOCALE = DEFAULT_LANGUAGE


def locale_of_code(code: str | None) -> str:
    """The bot's language for a Telegram language code (an update's user, the users
    table): English for English-speaking users, Russian for everyone else."""
    return "en" if (code or "").lower().startswith("en") else DEFAULT_LOCALE


class Speaker(Protocol):
    """An update's user or his stored profile (:class:`UserRow`)."""

    @property
    def language_code(self) -> str | None: ...


def locale_for(user: Speaker | None) -> str:
    """``locale_of_code`` of an update's user or a stored profile."""
    return locale_of_code(user.language_code if user else None)


@dataclass(frozen=True, slots=True)
class UserRow:
    user_id: int
    first_name: str
    username: str | None
    language_code: str | None
    can_message: bool
    last_seen_at: datetime


def _row(r: sqlite3.Row) -> UserRow:
    return UserRow(
        user_id=r["user_id"],
        first_name=r["first_name"],
        username=r["username"],
        language_code=r["language_code"],
        can_message=bool(r["can_message"]),
        last_seen_at=from_ts(r["last_seen_at"]),
    )


async def upsert_user(
    conn: Conn,
    user_id: int,
    *,
    first_name: str,
    username: str | None = None,
    language_code: str | None = None,
    can_message: bool | None = None,
    now: datetime | None = None,
) -> UserRow:
    """Record the profile seen in an update; ``can_message=None`` keeps the stored flag."""
    await run(
        conn,
        "INSERT INTO users (user_id, first_name, username, language_code, can_message,"
        " last_seen_at) VALUES (?, ?, ?, ?, coalesce(?, 0), ?)"
        " ON CONFLICT (user_id) DO UPDATE SET first_name = excluded.first_name,"
        " username = excluded.username, language_code = excluded.language_code,"
        " can_message = coalesce(?, users.can_message), last_seen_at = excluded.last_seen_at",
        (user_id, first_name, username, language_code, can_message, ts_or_now(now), can_message),
    )
    row = await get_user(conn, user_id)
    assert row is not None
    return row


async def set_can_message(conn: Conn, user_id: int, can_message: bool) -> bool:
    """Set after /start in private (True) or a 403 "bot was blocked" (False)."""
    return (
        await run(
            conn, "UPDATE users SET can_message = ? WHERE user_id = ?", (can_message, user_id)
        )
        > 0
    )


async def get_user(conn: Conn, user_id: int) -> UserRow | None:
    r = await fetch_one(conn, "SELECT * FROM users WHERE user_id = ?", (user_id,))
    return None if r is None else _row(r)


async def get_users(conn: Conn, user_ids: Iterable[int]) -> dict[int, UserRow]:
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    # json_each binds the whole id list as one parameter (no SQL built from values).
    rows = await fetch_all(
        conn,
        "SELECT * FROM users WHERE user_id IN (SELECT value FROM json_each(?))",
        (_json_ids(ids),),
    )
    return {r["user_id"]: _row(r) for r in rows}


async def find_user_by_username(conn: Conn, username: str) -> UserRow | None:
    r = await fetch_one(
        conn,
        "SELECT * FROM users WHERE username = ? COLLATE NOCASE ORDER BY last_seen_at DESC",
        (username.lstrip("@"),),
    )
    return None if r is None else _row(r)


def _json_ids(ids: Iterable[int]) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"
