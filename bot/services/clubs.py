"""A club: a group that meets for evenings. Its creation, its owner's hosts and its
settings; who is what in it (read through ``Database.cached`` on every update)."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import date
from functools import partial

from bot.db import audit, clubs, staff, users
from bot.db.clubs import HOST, OWNER, ClubRole, ClubRow, ClubStaffRow
from bot.db.connection import Conn, Database
from bot.db.evenings import evenings_of_club
from bot.db.tournaments import JUDGE, LANGUAGES
from bot.services import N_, Refusal
from bot.services.notices import people, person
from bot.services.phrases import Person, Verbatim
from bot.services.staff import Profile

__all__ = [
    "HOST",
    "LANGUAGES",
    "OWNER",
    "ClubRole",
    "ClubRow",
    "ClubStaffRow",
]

TITLE_MAX = 200

NO_CLUB_HERE = Refusal(
    N_("There is no club in this group. Its organiser creates one with /club TITLE.")
)
ONLY_OWNER = Refusal(N_("Only the club's owner can do that."))
ONLY_HOSTS = Refusal(N_("Only the club's owner and hosts can do that."))


# -- who is what ------------------------------------------------------------------------


async def club_and_role(
    db: Database, chat_id: int, user_id: int
) -> tuple[ClubRow | None, ClubRole | None]:
    """The group's club and ``user_id``'s role in it."""
    return await db.cached(
        ("club_and_role", chat_id, user_id),
        partial(_club_and_role, chat_id=chat_id, user_id=user_id),
    )


async def _club_and_role(
    conn: Conn, *, chat_id: int, user_id: int
) -> tuple[ClubRow | None, ClubRole | None]:
    club = await clubs.club_for_chat(conn, chat_id)
    role = None if club is None else await clubs.club_role(conn, club.id, user_id)
    return club, role


async def roles_of_user(db: Database, user_id: int) -> set[ClubRole]:
    """What ``user_id`` is in any club (for /help)."""
    found = await db.cached(("club_roles", user_id), partial(clubs.clubs_of_user, user_id=user_id))
    return {role for _club, role in found}


# -- creating a club ----------------------------------------------------------------------


async def create_club(
    db: Database, chat_id: int, title: str, owner: Profile, *, language: str
) -> ClubRow | Refusal:
    """The group becomes a club and ``owner`` its owner; the time zone is that of the
    group's latest tournament, if it had one."""
    title = " ".join(title.split())
    if not title:
        return Refusal(N_("Send /club followed by the club's name, e.g. /club Mafia Friday."))
    if len(title) > TITLE_MAX:
        return Refusal(
            N_("The club's name is too long: at most {count} characters."), {"count": TITLE_MAX}
        )
    async with db.transaction() as conn:
        existing = await clubs.club_for_chat(conn, chat_id)
        if existing is not None:
            return Refusal(
                N_("This group is the club {title} already."), {"title": Verbatim(existing.title)}
            )
        zone = await conn.execute_fetchall(
            "SELECT timezone FROM tournaments WHERE chat_id = ? ORDER BY id DESC LIMIT 1",
            (chat_id,),
        )
        timezone = next((str(r[0]) for r in zone), "UTC")
        await _remember(conn, owner)
        try:
            club = await clubs.create_club(
                conn,
                chat_id,
                title,
                owner=owner.id,
                language=language if language in LANGUAGES else "ru",
                timezone=timezone,
            )
        except sqlite3.IntegrityError:  # made a moment ago by another tap
            return Refusal(N_("This group is a club already."))
        await audit.audit(
            conn,
            action="club.create",
            entity="club",
            entity_id=club.id,
            actor_id=owner.id,
            after=club,
        )
    return club


async def _remember(conn: Conn, someone: Profile) -> None:
    """His profile, for his name in lists and his language in notes (he may never
    have written to us)."""
    await users.upsert_user(
        conn,
        someone.id,
        first_name=someone.first_name,
        username=someone.username,
        language_code=someone.language_code,
    )


# -- hosts --------------------------------------------------------------------------------


async def _judges_of_running(conn: Conn, club_id: int) -> list[int]:
    """The tournaments of the club's evenings being played: its hosts judge them."""
    running = await evenings_of_club(conn, club_id, ("running",))
    return [e.tournament_id for e in running if e.tournament_id is not None]


async def _known(db: Database, who: Profile | str) -> Profile | None:
    """``who`` itself, or the one the bot has seen with that @username."""
    if not isinstance(who, str):
        return who
    async with db.read() as conn:
        found = await users.find_user_by_username(conn, who)
    if found is None:
        return None
    return _Known(found.user_id, found.first_name, None, found.username, found.language_code)


@dataclass(frozen=True, slots=True)
class _Known:
    id: int
    first_name: str
    last_name: str | None
    username: str | None
    language_code: str | None


def _unknown(username: str, text: str) -> Refusal:
    return Refusal(text, {"username": Verbatim(username.lstrip("@"))})


async def add_host(
    db: Database, club: ClubRow, who: Profile | str, actor_id: int
) -> Person | Refusal:
    """Make ``who`` (his profile, or an @username the bot has seen) a host; a judge of
    the tournament of an evening being played too."""
    someone = await _known(db, who)
    if someone is None:
        assert isinstance(who, str)
        return _unknown(
            who, N_("I don't know @{username} yet: reply /host to a message of his in the group.")
        )
    async with db.transaction() as conn:
        await _remember(conn, someone)
        name = await person(conn, someone.id)
        current = await clubs.club_role(conn, club.id, someone.id)
        if current == OWNER:
            return Refusal(N_("{name} is the club's owner already."), {"name": name})
        if current == HOST:
            return Refusal(N_("{name} is a host already."), {"name": name})
        row = await clubs.add_host(conn, club.id, someone.id, added_by=actor_id)
        for tournament_id in await _judges_of_running(conn, club.id):
            if await staff.staff_role(conn, tournament_id, someone.id) is None:
                await staff.add_staff(conn, tournament_id, someone.id, JUDGE, added_by=actor_id)
                await audit.record(
                    conn, "staff.add", someone.id, tournament_id, actor_id, after={"role": JUDGE}
                )
        await audit.audit(
            conn,
            action="club.host_add",
            entity="club",
            entity_id=club.id,
            actor_id=actor_id,
            after=row,
        )
    return name


async def remove_host(
    db: Database, club: ClubRow, who: Profile | str, actor_id: int
) -> Person | Refusal:
    """Take a host off (his profile, or an @username the bot has seen); off the staff of
    an evening being played too (as a judge)."""
    someone = await _known(db, who)
    if someone is None:
        assert isinstance(who, str)
        return _unknown(who, N_("I don't know @{username}."))
    user_id = someone.id
    async with db.transaction() as conn:
        name = await person(conn, user_id)
        before = await clubs.get_staff(conn, club.id, user_id)
        if before is None:
            return Refusal(N_("{name} is not a host of the club."), {"name": name})
        if before.role == OWNER:
            return Refusal(N_("The owner stays the club's owner."))
        await clubs.remove_host(conn, club.id, user_id)
        for tournament_id in await _judges_of_running(conn, club.id):
            if await staff.staff_role(conn, tournament_id, user_id) == JUDGE:
                await staff.remove_staff(conn, tournament_id, user_id)
                await audit.record(
                    conn, "staff.remove", user_id, tournament_id, actor_id, before={"role": JUDGE}
                )
        await audit.audit(
            conn,
            action="club.host_remove",
            entity="club",
            entity_id=club.id,
            actor_id=actor_id,
            before=before,
        )
    return name


@dataclass(frozen=True, slots=True)
class ClubCard:
    club: ClubRow
    staff: list[ClubStaffRow]  # the owner first
    names: dict[int, Person]


async def club_card(db: Database, club_id: int) -> ClubCard:
    async with db.read() as conn:
        club = await clubs.get_club(conn, club_id)
        assert club is not None
        members = await clubs.list_staff(conn, club_id)
        names = await people(conn, [m.user_id for m in members])
    return ClubCard(club, members, names)


# -- settings -----------------------------------------------------------------------------


def season_start(text: str) -> str | None:
    """``MM-DD`` of a day of the year (``09-01``, ``9-1``, ``01.09`` day first), or None."""
    text = text.strip()
    month = day = 0
    try:
        if "." in text:  # as dates are written here: day first
            day_s, month_s = text.split(".", 1)
            day, month = int(day_s), int(month_s)
        else:
            month_s, day_s = text.split("-", 1)
            month, day = int(month_s), int(day_s)
        date(2000, month, day)  # a leap year: 02-29 is a day of some years
    except ValueError:
        return None
    return f"{month:02d}-{day:02d}"


REMIND_MAX_HOURS = 168  # a week: the schema's bound
_REMIND = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>h|m|min|ч|мин|м)?")


def reminder_before(text: str) -> int | None:
    """Seconds before an evening for its reminder: ``3`` or ``3h`` hours, ``90m``
    minutes, ``0`` or ``off`` for none; None when unreadable or over a week."""
    text = text.strip().lower().replace(",", ".")
    if text in {"off", "0", "выкл", "нет"}:
        return 0
    found = _REMIND.fullmatch(text)
    if found is None:
        return None
    unit = 60 if found["unit"] and found["unit"][0] in "mм" else 3600
    value = float(found["number"])
    seconds = round(value * unit)
    if not 0 < seconds <= REMIND_MAX_HOURS * 3600:
        return None
    return seconds


async def change(
    db: Database, club: ClubRow, actor_id: int, setting: str, value: object
) -> ClubRow:
    """One of the owner's settings (validated by the caller: a language of LANGUAGES,
    a known zone, ``season_start``'s form, protests 0 or 1, ``reminder_before``'s
    seconds)."""
    async with db.transaction() as conn:
        before = await clubs.get_club(conn, club.id)
        after = await clubs.update_club(conn, club.id, setting, value)
        await audit.audit(
            conn,
            action=f"club.{setting}",
            entity="club",
            entity_id=club.id,
            actor_id=actor_id,
            before=before,
            after=after,
        )
    return after
