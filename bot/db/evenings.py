"""Club evenings, their sign-ups in order and the club's private notes.

Seats and reserve are never stored: the first ``seats`` sign-ups with status 'in',
ordered by id (the order of signing up), have a seat, the rest are the reserve
(:func:`split`). The other helpers of the club read with :func:`get_evening`,
:func:`signups`, :func:`club_for_chat` and :func:`club_role`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from bot.db.clubs import club_for_chat as club_for_chat
from bot.db.clubs import club_role as club_role
from bot.db.connection import Conn, fetch_all, fetch_one, insert, run
from bot.db.timeutil import from_ts, opt_from_ts, to_ts, ts_or_now

EveningStatus = Literal["open", "closed", "running", "finished", "cancelled"]
SignupStatus = Literal["in", "out", "removed"]
# Marked by a host once the evening is played (``bot.db.evening_play``); None: not yet.
Presence = Literal["present", "absent", "left"]
NoteKind = Literal["moved_up", "reminder", "cancelled", "removed"]
# Evenings still ahead of their sign-up list: what host commands act on.
UPCOMING: tuple[EveningStatus, ...] = ("open", "closed")
FAILED_MAX = 500


@dataclass(frozen=True, slots=True)
class EveningRow:
    id: int
    club_id: int
    starts_at: datetime
    place: str
    seats: int | None  # None: unlimited
    note: str | None
    status: EveningStatus
    remind_before: int  # seconds
    reminded_at: datetime | None
    tournament_id: int | None
    message_id: int | None
    announce_dirty: bool
    announce_hash: str | None
    created_by: int


@dataclass(frozen=True, slots=True)
class SignupRow:
    id: int  # the order of signing up
    evening_id: int
    user_id: int | None  # None: a guest a host added by nickname
    name: str
    name_key: str
    status: SignupStatus
    presence: Presence | None
    added_by: int
    player_id: int | None  # his player in the evening's tournament, once it runs

    @property
    def present(self) -> bool:
        return self.presence == "present"


@dataclass(frozen=True, slots=True)
class NoteRow:
    id: int
    club_id: int
    evening_id: int | None
    user_id: int
    kind: NoteKind


@dataclass(frozen=True, slots=True)
class Lineup:
    """Who has a seat and who waits, in the order they signed up; who can't come."""

    seated: list[SignupRow]
    reserve: list[SignupRow]
    out: list[SignupRow]

    def place_of(self, signup_id: int) -> tuple[bool, int] | None:
        """(seated?, number in that list from 1) of a sign-up 'in', else None."""
        for seated, rows in ((True, self.seated), (False, self.reserve)):
            for number, row in enumerate(rows, 1):
                if row.id == signup_id:
                    return seated, number
        return None


def split(rows: Sequence[SignupRow], seats: int | None) -> Lineup:
    """The seats and the reserve derived from the order of signing up."""
    ins = sorted((r for r in rows if r.status == "in"), key=lambda r: r.id)
    cut = len(ins) if seats is None else seats
    out = sorted((r for r in rows if r.status == "out"), key=lambda r: r.id)
    return Lineup(ins[:cut], ins[cut:], out)


def evening_of_row(r: sqlite3.Row) -> EveningRow:
    return EveningRow(
        id=r["id"],
        club_id=r["club_id"],
        starts_at=from_ts(r["starts_at"]),
        place=r["place"],
        seats=r["seats"],
        note=r["note"],
        status=cast(EveningStatus, r["status"]),
        remind_before=r["remind_before"],
        reminded_at=opt_from_ts(r["reminded_at"]),
        tournament_id=r["tournament_id"],
        message_id=r["message_id"],
        announce_dirty=bool(r["announce_dirty"]),
        announce_hash=r["announce_hash"],
        created_by=r["created_by"],
    )


def signup_of_row(r: sqlite3.Row) -> SignupRow:
    return SignupRow(
        id=r["id"],
        evening_id=r["evening_id"],
        user_id=r["user_id"],
        name=r["name"],
        name_key=r["name_key"],
        status=cast(SignupStatus, r["status"]),
        presence=cast(Presence | None, r["presence"]),
        added_by=r["added_by"],
        player_id=r["player_id"],
    )


# -- evenings -----------------------------------------------------------------------------


async def create_evening(
    conn: Conn,
    club_id: int,
    *,
    starts_at: datetime,
    place: str,
    seats: int | None,
    note: str | None,
    remind_before: int,
    created_by: int,
    now: datetime | None = None,
) -> EveningRow:
    at = ts_or_now(now)
    evening_id = await insert(
        conn,
        "INSERT INTO evenings (club_id, starts_at, place, seats, note, remind_before,"
        " created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (club_id, to_ts(starts_at), place, seats, note, remind_before, created_by, at, at),
    )
    evening = await get_evening(conn, evening_id)
    assert evening is not None
    return evening


async def get_evening(conn: Conn, evening_id: int) -> EveningRow | None:
    r = await fetch_one(conn, "SELECT * FROM evenings WHERE id = ?", (evening_id,))
    return None if r is None else evening_of_row(r)


async def evenings_of_club(
    conn: Conn, club_id: int, statuses: Sequence[EveningStatus] = UPCOMING
) -> list[EveningRow]:
    """The club's evenings of ``statuses``, the earliest first."""
    marks = ", ".join("?" for _ in statuses)
    rows = await fetch_all(
        conn,
        f"SELECT * FROM evenings WHERE club_id = ? AND status IN ({marks}) ORDER BY starts_at, id",
        (club_id, *statuses),
    )
    return [evening_of_row(r) for r in rows]


async def set_status(
    conn: Conn, evening_id: int, status: EveningStatus, *, now: datetime | None = None
) -> None:
    await run(
        conn,
        "UPDATE evenings SET status = ?, announce_dirty = 1, updated_at = ? WHERE id = ?",
        (status, ts_or_now(now), evening_id),
    )


async def mark_dirty(conn: Conn, evening_id: int, *, now: datetime | None = None) -> None:
    """The announcement must be drawn again (the poster edits it once per window)."""
    await run(
        conn,
        "UPDATE evenings SET announce_dirty = 1, updated_at = ? WHERE id = ?",
        (ts_or_now(now), evening_id),
    )


async def take_dirty(conn: Conn, evening_id: int) -> bool:
    """Clear the evening's mark before drawing it; whether it was set. A change made
    while the announcement is posted sets it again."""
    return (
        await run(
            conn,
            "UPDATE evenings SET announce_dirty = 0 WHERE id = ? AND announce_dirty = 1",
            (evening_id,),
        )
        > 0
    )


async def set_announced(
    conn: Conn, evening_id: int, *, message_id: int | None, digest: str | None
) -> None:
    await run(
        conn,
        "UPDATE evenings SET message_id = ?, announce_hash = ? WHERE id = ?",
        (message_id, digest, evening_id),
    )


async def evenings_waiting(conn: Conn) -> list[int]:
    """Evenings whose announcement or notes wait to go out (a restart's resume)."""
    rows = await fetch_all(
        conn,
        "SELECT id FROM evenings WHERE announce_dirty = 1"
        " UNION SELECT evening_id FROM club_notes"
        " WHERE sent_at IS NULL AND failed IS NULL AND evening_id IS NOT NULL",
    )
    return sorted(int(r[0]) for r in rows)


async def reminders_due(conn: Conn, now: datetime) -> list[EveningRow]:
    """Open or closed evenings not started yet whose reminder time has come."""
    at = to_ts(now)
    rows = await fetch_all(
        conn,
        "SELECT * FROM evenings WHERE status IN ('open', 'closed') AND reminded_at IS NULL"
        " AND starts_at - remind_before <= ? AND starts_at > ? ORDER BY starts_at, id",
        (at, at),
    )
    return [evening_of_row(r) for r in rows]


async def set_reminded(conn: Conn, evening_id: int, now: datetime) -> None:
    await run(conn, "UPDATE evenings SET reminded_at = ? WHERE id = ?", (to_ts(now), evening_id))


# -- sign-ups -----------------------------------------------------------------------------


async def signups(conn: Conn, evening_id: int) -> list[SignupRow]:
    """Every sign-up of the evening (in, out, removed), in the order of signing up."""
    rows = await fetch_all(
        conn, "SELECT * FROM evening_signups WHERE evening_id = ? ORDER BY id", (evening_id,)
    )
    return [signup_of_row(r) for r in rows]


async def lineup(conn: Conn, evening: EveningRow) -> Lineup:
    return split(await signups(conn, evening.id), evening.seats)


async def add_signup(
    conn: Conn,
    evening_id: int,
    *,
    user_id: int | None,
    name: str,
    name_key: str,
    added_by: int,
    status: SignupStatus = "in",
    now: datetime | None = None,
) -> SignupRow:
    at = ts_or_now(now)
    signup_id = await insert(
        conn,
        "INSERT INTO evening_signups (evening_id, user_id, name, name_key, status, added_by,"
        " signed_at, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (evening_id, user_id, name, name_key, status, added_by, at, at),
    )
    r = await fetch_one(conn, "SELECT * FROM evening_signups WHERE id = ?", (signup_id,))
    assert r is not None
    return signup_of_row(r)


async def set_signup_status(
    conn: Conn, signup_id: int, status: SignupStatus, *, now: datetime | None = None
) -> None:
    await run(
        conn,
        "UPDATE evening_signups SET status = ?, changed_at = ? WHERE id = ?",
        (status, ts_or_now(now), signup_id),
    )


async def delete_signup(conn: Conn, signup_id: int) -> None:
    await run(conn, "DELETE FROM evening_signups WHERE id = ?", (signup_id,))


async def last_name_in_club(conn: Conn, club_id: int, user_id: int) -> str | None:
    """The name ``user_id`` was listed under at the club's latest evening, if any."""
    r = await fetch_one(
        conn,
        "SELECT s.name FROM evening_signups s JOIN evenings e ON e.id = s.evening_id"
        " WHERE e.club_id = ? AND s.user_id = ? ORDER BY s.id DESC LIMIT 1",
        (club_id, user_id),
    )
    return None if r is None else str(r["name"])


# -- notes --------------------------------------------------------------------------------


async def add_note(
    conn: Conn,
    club_id: int,
    evening_id: int | None,
    user_id: int,
    kind: NoteKind,
    *,
    now: datetime | None = None,
) -> int:
    return await insert(
        conn,
        "INSERT INTO club_notes (club_id, evening_id, user_id, kind, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (club_id, evening_id, user_id, kind, ts_or_now(now)),
    )


def _note(r: sqlite3.Row) -> NoteRow:
    return NoteRow(
        id=r["id"],
        club_id=r["club_id"],
        evening_id=r["evening_id"],
        user_id=r["user_id"],
        kind=cast(NoteKind, r["kind"]),
    )


async def notes_waiting(conn: Conn, evening_id: int) -> list[NoteRow]:
    rows = await fetch_all(
        conn,
        "SELECT * FROM club_notes WHERE evening_id = ? AND sent_at IS NULL AND failed IS NULL"
        " ORDER BY id",
        (evening_id,),
    )
    return [_note(r) for r in rows]


async def notes_of(conn: Conn, evening_id: int) -> list[tuple[NoteRow, bool, str | None]]:
    """Every note of the evening: (note, sent?, why it failed)."""
    rows = await fetch_all(
        conn, "SELECT * FROM club_notes WHERE evening_id = ? ORDER BY id", (evening_id,)
    )
    return [(_note(r), r["sent_at"] is not None, r["failed"]) for r in rows]


async def note_sent(conn: Conn, note_id: int, *, now: datetime | None = None) -> None:
    await run(conn, "UPDATE club_notes SET sent_at = ? WHERE id = ?", (ts_or_now(now), note_id))


async def note_failed(conn: Conn, note_id: int, why: str) -> None:
    """It can't arrive (he never started the bot, blocked it): never tried again."""
    await run(
        conn,
        "UPDATE club_notes SET failed = ? WHERE id = ?",
        ((why or "failed")[:FAILED_MAX], note_id),
    )
