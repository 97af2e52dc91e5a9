"""What playing a club evening reads and writes (docs/club.md, "The evening"): the
evening being played, its attendance, the link from the evening to the tournament its
games go into, and the season's evenings.

The club, its staff, the evenings and their sign-ups are the sign-up's (``bot.db.clubs``,
``bot.db.evenings``: their rows are the ones read here); this module adds what playing
needs on the same tables.
"""

from __future__ import annotations

from datetime import datetime

from bot.db.connection import Conn, fetch_all, fetch_one, fetch_val, insert, run
from bot.db.evenings import EveningRow, Presence, SignupRow, evening_of_row, signups
from bot.db.timeutil import ts_or_now


async def protests_on(conn: Conn, tournament_id: int) -> bool:
    """Whether protests are taken in the tournament: always in a tournament; in an
    evening only if its club turned them on."""
    found = await fetch_val(
        conn,
        "SELECT coalesce(c.protests, 1) FROM tournaments t"
        " LEFT JOIN evenings e ON e.tournament_id = t.id LEFT JOIN clubs c ON c.id = e.club_id"
        " WHERE t.id = ? AND t.kind = 'evening'",
        (tournament_id,),
    )
    return found is None or bool(found)


# -- the evening ---------------------------------------------------------------------------


async def running_evening(conn: Conn, club_id: int) -> EveningRow | None:
    r = await fetch_one(
        conn,
        "SELECT * FROM evenings WHERE club_id = ? AND status = 'running' ORDER BY id LIMIT 1",
        (club_id,),
    )
    return None if r is None else evening_of_row(r)


async def evening_to_play(
    conn: Conn, club_id: int, now: datetime | None = None
) -> EveningRow | None:
    """The evening a host acts on: the running one, else the announced one (sign-up open
    or closed) starting nearest to now."""
    running = await running_evening(conn, club_id)
    if running is not None:
        return running
    r = await fetch_one(
        conn,
        "SELECT * FROM evenings WHERE club_id = ? AND status IN ('open', 'closed')"
        " ORDER BY abs(starts_at - ?), id LIMIT 1",
        (club_id, ts_or_now(now)),
    )
    return None if r is None else evening_of_row(r)


async def evening_of_tournament(conn: Conn, tournament_id: int) -> EveningRow | None:
    r = await fetch_one(conn, "SELECT * FROM evenings WHERE tournament_id = ?", (tournament_id,))
    return None if r is None else evening_of_row(r)


async def set_running(
    conn: Conn, evening_id: int, tournament_id: int, now: datetime | None = None
) -> None:
    await run(
        conn,
        "UPDATE evenings SET status = 'running', tournament_id = ?, updated_at = ?,"
        " announce_dirty = 1 WHERE id = ?",
        (tournament_id, ts_or_now(now), evening_id),
    )


# -- attendance ----------------------------------------------------------------------------


async def attendees(conn: Conn, evening_id: int) -> list[SignupRow]:
    """Everyone on the evening's list who is in (signed up, not dropped out or removed),
    in the order of signing up."""
    return [s for s in await signups(conn, evening_id) if s.status == "in"]


async def set_presence(conn: Conn, signup_id: int, presence: Presence | None) -> None:
    await run(
        conn,
        "UPDATE evening_signups SET presence = ?, changed_at = ? WHERE id = ?",
        (presence, ts_or_now(None), signup_id),
    )


async def add_latecomer(
    conn: Conn,
    evening_id: int,
    *,
    name: str,
    name_key: str,
    added_by: int,
    user_id: int | None = None,
    now: datetime | None = None,
) -> int:
    """One who came without signing up: at the end of the list, present."""
    at = ts_or_now(now)
    return await insert(
        conn,
        "INSERT INTO evening_signups (evening_id, user_id, name, name_key, status, presence,"
        " added_by, signed_at, changed_at) VALUES (?, ?, ?, ?, 'in', 'present', ?, ?, ?)",
        (evening_id, user_id, name, name_key, added_by, at, at),
    )


async def set_player(conn: Conn, signup_id: int, player_id: int) -> None:
    await run(
        conn, "UPDATE evening_signups SET player_id = ? WHERE id = ?", (player_id, signup_id)
    )


async def club_person(conn: Conn, club_id: int, name_key: str, tournament_id: int) -> int | None:
    """The person of the club's latest player of this nickname without an account in an
    evening other than ``tournament_id``'s (a guest comes back under his nickname: his
    season adds up)."""
    found = await fetch_val(
        conn,
        "SELECT p.person_id FROM players p JOIN evenings e ON e.tournament_id = p.tournament_id"
        " WHERE e.club_id = ? AND p.nickname_key = ? AND p.user_id IS NULL"
        " AND p.person_id IS NOT NULL AND p.tournament_id <> ? ORDER BY p.id DESC LIMIT 1",
        (club_id, name_key, tournament_id),
    )
    return None if found is None else int(found)


async def move_to_person(conn: Conn, player_id: int, person_id: int) -> None:
    """The player is the person's; the person made for him alone goes."""
    own = await fetch_val(conn, "SELECT person_id FROM players WHERE id = ?", (player_id,))
    await run(conn, "UPDATE players SET person_id = ? WHERE id = ?", (person_id, player_id))
    if own is not None and own != person_id:
        await run(
            conn,
            "DELETE FROM persons WHERE id = ? AND user_id IS NULL"
            " AND NOT EXISTS (SELECT 1 FROM players WHERE person_id = ?)"
            " AND NOT EXISTS (SELECT 1 FROM persons WHERE merged_into = ?)",
            (own, own, own),
        )


# -- the season ----------------------------------------------------------------------------


async def season_tournaments(
    conn: Conn, club_id: int, start: datetime, end: datetime
) -> list[int]:
    """The tournaments of the club's evenings played (running or finished) that started
    in [start, end), in order."""
    rows = await fetch_all(
        conn,
        "SELECT tournament_id FROM evenings WHERE club_id = ? AND tournament_id IS NOT NULL"
        " AND status IN ('running', 'finished') AND starts_at >= ? AND starts_at < ?"
        " ORDER BY starts_at, id",
        (club_id, ts_or_now(start), ts_or_now(end)),
    )
    return [int(r[0]) for r in rows]


async def persons_of(conn: Conn, player_ids: list[int]) -> dict[int, tuple[int, str]]:
    """Player id -> (his person, following merges; the person's career name)."""
    rows = await fetch_all(
        conn,
        "WITH RECURSIVE up(player, person) AS ("
        " SELECT p.id, p.person_id FROM players p"
        " WHERE p.id IN (SELECT value FROM json_each(?))"
        " UNION ALL SELECT up.player, s.merged_into FROM up JOIN persons s ON s.id = up.person"
        " WHERE s.merged_into IS NOT NULL)"
        " SELECT up.player, s.id, s.name FROM up JOIN persons s ON s.id = up.person"
        " WHERE s.merged_into IS NULL",
        (_json_ids(player_ids),),
    )
    return {int(r[0]): (int(r[1]), str(r[2])) for r in rows}


def _json_ids(ids: list[int]) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"


__all__ = [
    "Presence",
    "add_latecomer",
    "attendees",
    "club_person",
    "evening_of_tournament",
    "evening_to_play",
    "move_to_person",
    "persons_of",
    "protests_on",
    "running_evening",
    "season_tournaments",
    "set_player",
    "set_presence",
    "set_running",
]
