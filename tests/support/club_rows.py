"""Club rows straight in SQL (schema step 16), for the evening's tests: a club with its
owner and hosts, an evening, its sign-ups.

    club = await club_with_evening(db, chat_id=-100, owner=1, hosts=[2],
                                   signed=["Ann", "Bob"], users={"Ann": 11})
    club.id, club.evening_id, club.signups["Ann"]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.db import users as users_repo
from bot.db.connection import Conn, Database, insert, run
from bot.db.players import nickname_key

WHEN = int(datetime(2025, 3, 14, 19, 30, tzinfo=UTC).timestamp())


@dataclass
class ClubSetup:
    id: int
    chat_id: int
    owner: int
    hosts: list[int]
    evening_id: int
    signups: dict[str, int] = field(default_factory=dict)  # name -> sign-up id


async def club_with_evening(
    db: Database,
    *,
    chat_id: int,
    owner: int,
    hosts: Sequence[int] = (),
    signed: Sequence[str] = (),
    users: Mapping[str, int] | None = None,
    present: bool = False,
    title: str = "Mafia Club",
    language: str = "en",
    timezone: str = "UTC",
    protests: bool = False,
    season_start: str = "01-01",
    starts_at: int = WHEN,
) -> ClubSetup:
    """A club of ``chat_id``, an open evening and its sign-ups in the order given
    (``present``: all marked present)."""
    users = dict(users or {})
    async with db.transaction() as conn:
        for uid in {owner, *hosts, *users.values()}:
            await users_repo.upsert_user(conn, uid, first_name=f"User {uid}")
        club_id = await insert(
            conn,
            "INSERT INTO clubs (chat_id, title, language, timezone, season_start, protests,"
            " created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (chat_id, title, language, timezone, season_start, int(protests), owner, starts_at),
        )
        for uid, role in [(owner, "owner"), *((h, "host") for h in hosts)]:
            await run(
                conn,
                "INSERT INTO club_staff (club_id, user_id, role, added_by, added_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (club_id, uid, role, owner, starts_at),
            )
        setup = ClubSetup(club_id, chat_id, owner, list(hosts), 0)
        setup.evening_id = await add_evening(conn, club_id, owner, starts_at)
        for name in signed:
            setup.signups[name] = await insert(
                conn,
                "INSERT INTO evening_signups (evening_id, user_id, name, name_key, presence,"
                " added_by, signed_at, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    setup.evening_id,
                    users.get(name),
                    name,
                    nickname_key(name),
                    "present" if present else None,
                    owner,
                    starts_at,
                    starts_at,
                ),
            )
    return setup


async def add_evening(conn: Conn, club_id: int, owner: int, starts_at: int = WHEN) -> int:
    """An open evening of the club (inside the caller's transaction)."""
    return await insert(
        conn,
        "INSERT INTO evenings (club_id, starts_at, place, created_by, created_at, updated_at)"
        " VALUES (?, ?, 'Cafe Luna', ?, ?, ?)",
        (club_id, starts_at, owner, starts_at, starts_at),
    )
