"""The sign-up's use cases alone: the order, the reserve, promotion with its note, the
last seat taken twice at once, guests, removals, closing, cancelling, reminders."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.db import clubs as clubs_repo
from bot.db import evenings as repo
from bot.db import staff
from bot.db.clubs import ClubRow
from bot.db.connection import Database
from bot.db.evenings import EveningRow
from bot.db.tournaments import create_tournament
from bot.services import Refusal, clubs, evenings
from bot.services.evenings import EveningForm, parse_evening

NOW = datetime(2025, 12, 1, 12, 0, tzinfo=UTC)
CHAT = -100_777
OWNER = 1


@dataclass(frozen=True)
class Who:
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "en"


async def club_with_evening(db: Database, seats: int | None = 2) -> tuple[ClubRow, EveningRow]:
    club = await clubs.create_club(db, CHAT, "Friday Mafia", Who(OWNER, "Olga"), language="en")
    assert isinstance(club, ClubRow)
    form = EveningForm(datetime.now(UTC) + timedelta(days=3), "Café Luna", seats, None)
    evening = await evenings.announce(db, club, OWNER, form)
    assert isinstance(evening, EveningRow)
    return club, evening


async def names(db: Database, evening: EveningRow) -> tuple[list[str], list[str], list[str]]:
    async with db.read() as conn:
        found = await repo.lineup(conn, (await repo.get_evening(conn, evening.id)) or evening)
    return (
        [r.name for r in found.seated],
        [r.name for r in found.reserve],
        [r.name for r in found.out],
    )


async def notes(db: Database, evening: EveningRow) -> list[tuple[int, str]]:
    async with db.read() as conn:
        return [(n.user_id, n.kind) for n, _sent, _failed in await repo.notes_of(conn, evening.id)]


async def test_the_order_of_signing_up_gives_the_seats_then_the_reserve(db: Database) -> None:
    _club, evening = await club_with_evening(db)
    for uid, name in ((11, "Ann"), (12, "Bob"), (13, "Cid"), (14, "Dan")):
        done = await evenings.sign_up(db, evening.id, Who(uid, name))
        assert not isinstance(done, Refusal)
    assert await names(db, evening) == (["Ann", "Bob"], ["Cid", "Dan"], [])
    again = await evenings.sign_up(db, evening.id, Who(13, "Cid"))
    assert again == Refusal("You are already #{number} in the reserve.", {"number": 1})
    again = await evenings.sign_up(db, evening.id, Who(12, "Bob"))
    assert again == Refusal("You are already in, #{number}.", {"number": 2})


async def test_a_drop_out_moves_the_first_of_the_reserve_up_with_a_note(db: Database) -> None:
    _club, evening = await club_with_evening(db)
    for uid, name in ((11, "Ann"), (12, "Bob"), (13, "Cid"), (14, "Dan")):
        await evenings.sign_up(db, evening.id, Who(uid, name))
    done = await evenings.cant_come(db, evening.id, Who(11, "Ann"))
    assert not isinstance(done, Refusal) and [r.name for r in done.moved_up] == ["Cid"]
    assert await names(db, evening) == (["Bob", "Cid"], ["Dan"], ["Ann"])
    assert await notes(db, evening) == [(13, "moved_up")]
    twice = await evenings.cant_come(db, evening.id, Who(11, "Ann"))
    assert twice == Refusal("You are on the list of those who can't come already.")
    # Back in: at the end of the queue, no longer under "Can't come".
    await evenings.sign_up(db, evening.id, Who(11, "Ann"))
    assert await names(db, evening) == (["Bob", "Cid"], ["Dan", "Ann"], [])


async def test_two_taps_for_the_last_seat_at_once_seat_exactly_one(
    db: Database, tmp_path: Path
) -> None:
    _club, evening = await club_with_evening(db, seats=1)
    other = await Database.open(db.path)
    try:
        a, b = await asyncio.gather(
            evenings.sign_up(db, evening.id, Who(21, "Eve")),
            evenings.sign_up(other, evening.id, Who(22, "Fay")),
        )
    finally:
        await other.close()
    assert not isinstance(a, Refusal) and not isinstance(b, Refusal)
    assert sorted([a.place, b.place], key=str) == sorted([(True, 1), (False, 1)], key=str)
    seated, reserve, _out = await names(db, evening)
    assert len(seated) == 1 and len(reserve) == 1


async def test_guests_and_removal_by_a_host(db: Database) -> None:
    _club, evening = await club_with_evening(db)
    await evenings.sign_up(db, evening.id, Who(11, "Ann"))
    guest = await evenings.add_guest(db, evening, OWNER, "  Grey   Wolf ")
    assert not isinstance(guest, Refusal) and guest.place == (True, 2)
    assert await evenings.add_guest(db, evening, OWNER, "grey wolf") == Refusal(
        "{name} is signed up already, #{number}.",
        {"name": evenings.Verbatim("Grey Wolf"), "number": 2},
    )
    await evenings.add_guest(db, evening, OWNER, "Tom")
    removed = await evenings.remove(db, evening, OWNER, "ann")
    assert not isinstance(removed, Refusal) and [r.name for r in removed.moved_up] == ["Tom"]
    assert await names(db, evening) == (["Grey Wolf", "Tom"], [], [])
    assert await notes(db, evening) == [(11, "removed")]  # the guest Tom has no chat
    missing = await evenings.remove(db, evening, OWNER, "Nobody")
    assert isinstance(missing, Refusal) and "not on the list" in missing.msgid


async def test_closed_sign_up_refuses_in_and_out_but_hosts_still_edit(db: Database) -> None:
    _club, evening = await club_with_evening(db)
    await evenings.sign_up(db, evening.id, Who(11, "Ann"))
    closed = await evenings.close_signup(db, evening, OWNER)
    assert isinstance(closed, EveningRow) and closed.status == "closed"
    assert await evenings.cant_come(db, evening.id, Who(11, "Ann")) == evenings.CLOSED
    assert await evenings.sign_up(db, evening.id, Who(12, "Bob")) == evenings.SIGNUP_CLOSED
    assert not isinstance(await evenings.add_guest(db, evening, OWNER, "Tom"), Refusal)
    assert isinstance(await evenings.close_signup(db, evening, OWNER), Refusal)


async def test_cancel_tells_everyone_signed_up_and_freezes_the_list(db: Database) -> None:
    _club, evening = await club_with_evening(db)
    for uid, name in ((11, "Ann"), (12, "Bob"), (13, "Cid")):
        await evenings.sign_up(db, evening.id, Who(uid, name))
    await evenings.cant_come(db, evening.id, Who(14, "Dan"))
    await evenings.add_guest(db, evening, OWNER, "Tom")
    done = await evenings.cancel(db, evening, OWNER)
    assert isinstance(done, evenings.Cancelled) and done.told == 3
    assert await notes(db, evening) == [(11, "cancelled"), (12, "cancelled"), (13, "cancelled")]
    assert await evenings.sign_up(db, evening.id, Who(15, "Eve")) == evenings.CANCELLED
    assert await evenings.cancel(db, evening, OWNER) == evenings.CANCELLED


async def test_reminders_go_once_when_due(db: Database) -> None:
    _club, evening = await club_with_evening(db)
    await evenings.sign_up(db, evening.id, Who(11, "Ann"))
    await evenings.add_guest(db, evening, OWNER, "Tom")
    early = evening.starts_at - timedelta(seconds=evening.remind_before + 60)
    assert await evenings.queue_reminders(db, early) == []
    due = evening.starts_at - timedelta(seconds=evening.remind_before - 60)
    assert await evenings.queue_reminders(db, due) == [evening.id]
    assert await evenings.queue_reminders(db, due + timedelta(minutes=5)) == []
    assert await notes(db, evening) == [(11, "reminder")]


async def test_hosts_follow_into_the_running_evenings_staff(db: Database) -> None:
    club, evening = await club_with_evening(db)
    async with db.transaction() as conn:
        t = await create_tournament(
            conn, title="Evening", distance=1, created_by=OWNER, chat_id=CHAT
        )
        await staff.add_staff(conn, t.id, OWNER, "chief", added_by=OWNER)
        await conn.execute(
            "UPDATE evenings SET status = 'running', tournament_id = ? WHERE id = ?",
            (t.id, evening.id),
        )
    added = await clubs.add_host(db, club, Who(31, "Hal"), OWNER)
    assert not isinstance(added, Refusal)
    async with db.read() as conn:
        assert await staff.staff_role(conn, t.id, 31) == "judge"
        assert await clubs_repo.club_role(conn, club.id, 31) == "host"
    assert isinstance(await clubs.add_host(db, club, Who(31, "Hal"), OWNER), Refusal)
    assert not isinstance(await clubs.remove_host(db, club, Who(31, "Hal"), OWNER), Refusal)
    async with db.read() as conn:
        assert await staff.staff_role(conn, t.id, 31) is None
        assert await clubs_repo.club_role(conn, club.id, 31) is None
    assert isinstance(await clubs.remove_host(db, club, Who(OWNER, "Olga"), OWNER), Refusal)


def test_the_evening_line_is_read_in_the_clubs_zone() -> None:
    form = parse_evening("12.12 19:30; Café Luna; 20; bring cash", "Europe/Moscow", NOW)
    assert form == EveningForm(
        datetime(2025, 12, 12, 16, 30, tzinfo=UTC), "Café Luna", 20, "bring cash"
    )
    nearest = parse_evening("01.02 19:00; Bar", "UTC", NOW)  # next year's 1 February
    assert isinstance(nearest, EveningForm) and nearest.starts_at.year == 2026
    assert isinstance(nearest, EveningForm) and nearest.seats is None
    for seats in ("-", "∞", "0"):
        unlimited = parse_evening(f"12.12 19:30; Bar; {seats}", "UTC", NOW)
        assert isinstance(unlimited, EveningForm) and unlimited.seats is None
    for bad in (
        "12.12 19:30; Bar; 2.5",
        "12.12 19:30; Bar; ten",
        "31.02 19:30; Bar",
        "tomorrow; Bar",
        "12.12 19:30",
        "01.01.2020 19:00; Bar",
    ):
        assert isinstance(parse_evening(bad, "UTC", NOW), Refusal), bad


def test_season_start_reads_both_ways() -> None:
    assert clubs.season_start("9-1") == "09-01"
    assert clubs.season_start("01.09") == "09-01"
    assert clubs.season_start("02-29") == "02-29"
    assert clubs.season_start("13-01") is None and clubs.season_start("x") is None
