"""Club rows through the sign-up's repositories (``bot.db.clubs``, ``bot.db.evenings``),
for the evening's tests: a club with its owner and hosts, an evening, its sign-ups.

    club = await club_with_evening(db, chat_id=-100, owner=1, hosts=[2],
                                   signed=["Ann", "Bob"], users={"Ann": 11})
    club.row, club.evening_id, club.signups["Ann"]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.db import clubs, evenings
from bot.db import users as users_repo
from bot.db.clubs import ClubRow
from bot.db.connection import Conn, Database
from bot.db.evening_play import set_presence
from bot.db.players import nickname_key

WHEN = int(datetime(2025, 3, 14, 19, 30, tzinfo=UTC).timestamp())


@dataclass
class ClubSetup:
    row: ClubRow
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
    at = datetime.fromtimestamp(starts_at, UTC)
    async with db.transaction() as conn:
        for uid in {owner, *hosts, *users.values()}:
            await users_repo.upsert_user(conn, uid, first_name=f"User {uid}")
        club = await clubs.create_club(
            conn, chat_id, title, owner=owner, language=language, timezone=timezone, now=at
        )
        await clubs.update_club(conn, club.id, "season_start", season_start)
        club = await clubs.update_club(conn, club.id, "protests", int(protests))
        for host in hosts:
            await clubs.add_host(conn, club.id, host, added_by=owner, now=at)
        evening_id = await add_evening(conn, club.id, owner, starts_at)
        setup = ClubSetup(club, owner, list(hosts), evening_id)
        for name in signed:
            signup = await evenings.add_signup(
                conn,
                setup.evening_id,
                user_id=users.get(name),
                name=name,
                name_key=nickname_key(name),
                added_by=owner,
                now=at,
            )
            if present:
                await set_presence(conn, signup.id, "present")
            setup.signups[name] = signup.id
    return setup


async def add_evening(conn: Conn, club_id: int, owner: int, starts_at: int = WHEN) -> int:
    """An open evening of the club (inside the caller's transaction)."""
    at = datetime.fromtimestamp(starts_at, UTC)
    evening = await evenings.create_evening(
        conn, club_id, starts_at=at, place="Cafe Luna", seats=None, note=None,
        remind_before=3 * 3600, created_by=owner, now=at,
    )
    return evening.id
