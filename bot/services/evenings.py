"""An evening's sign-up: the announcement (``/evening``), "I'm in" and "Can't come",
guests and removals by a host, closing the sign-up, cancelling, the reminders.

Seats and reserve are derived from the order of signing up (``bot.db.evenings.split``).
Each change compares who is seated before and after in its own BEGIN IMMEDIATE
transaction, queues a ``moved_up`` note for whoever got a seat, and marks the
announcement to be drawn again; the caller then hands the evening to the poster
(``bot.publishing.club_posts``), which edits the announcement once per window and
sends the notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.db import audit, evenings
from bot.db.clubs import ClubRow
from bot.db.connection import Conn, Database
from bot.db.errors import InvalidNickname
from bot.db.evenings import EveningRow, Lineup, SignupRow, SignupStatus
from bot.db.players import nickname_key, normalize_nickname
from bot.db.timeutil import utcnow
from bot.services import N_, Refusal
from bot.services.phrases import Verbatim
from bot.services.staff import Profile

__all__ = ["EveningRow", "Lineup", "SignupRow"]

PLACE_MAX = 200
NOTE_MAX = 500
SEATS_MAX = 1000
NAME_MAX = 64
UNLIMITED = frozenset({"-", "∞", "0", ""})

EVENING_SYNTAX = N_(
    "Send /evening DATE TIME; PLACE; SEATS; NOTE, e.g. /evening 12.12 19:30; Café Luna; 20; "
    "bring cash. The date is dd.mm or dd.mm.yyyy, seats a whole number (- for no limit), "
    "the seats and the note may be left out."
)
NO_EVENING = Refusal(
    N_("The club has no evening open for sign-up. A host announces one with /evening.")
)
OUT_OF_DATE_EVENING = Refusal(N_("This evening is no longer on."), alert=True)
CANCELLED = Refusal(N_("This evening is cancelled."), alert=True)
OVER = Refusal(N_("This evening is over."), alert=True)
CLOSED = Refusal(N_("The sign-up is closed; tell a host."), alert=True)
SIGNUP_CLOSED = Refusal(N_("The sign-up is closed."), alert=True)
STARTED = Refusal(N_("The evening has started; tell a host."), alert=True)


# -- the announcement's form --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EveningForm:
    starts_at: datetime  # aware, UTC
    place: str
    seats: int | None  # None: no limit
    note: str | None


_WHEN = re.compile(
    r"^(?P<day>\d{1,2})\.(?P<month>\d{1,2})(?:\.(?P<year>\d{2}|\d{4}))?"
    r"\s+(?P<hour>\d{1,2})[:.](?P<minute>\d{2})$"
)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def parse_evening(text: str, timezone: str, now: datetime | None = None) -> EveningForm | Refusal:
    """``DATE TIME; PLACE[; SEATS[; NOTE]]``: the date in the club's zone, the next such
    date when the year is left out."""
    now = now or utcnow()
    parts = [p.strip() for p in text.split(";")]
    if len(parts) < 2 or not parts[0] or not parts[1]:
        return Refusal(EVENING_SYNTAX)
    found = _WHEN.match(" ".join(parts[0].split()))
    if found is None:
        return Refusal(
            N_("I can't read the date and time {text}: write them as 12.12 19:30."),
            {"text": Verbatim(parts[0])},
        )
    zone = _zone(timezone)
    year_text = found["year"]
    today = now.astimezone(zone)
    year = (int(year_text) + (2000 if len(year_text) == 2 else 0)) if year_text else today.year
    try:
        local = datetime.combine(
            date(year, int(found["month"]), int(found["day"])),
            time(int(found["hour"]), int(found["minute"])),
            zone,
        )
    except ValueError:
        return Refusal(N_("There is no such date or time: {text}."), {"text": Verbatim(parts[0])})
    if year_text is None and local <= now:
        try:
            local = local.replace(year=year + 1)
        except ValueError:  # 29.02 of a leap year, next year
            return Refusal(
                N_("There is no such date or time: {text}."), {"text": Verbatim(parts[0])}
            )
    if local <= now:
        return Refusal(
            N_("{text} is in the past: an evening is announced ahead."),
            {"text": Verbatim(parts[0])},
        )
    place = " ".join(parts[1].split())
    if len(place) > PLACE_MAX:
        return Refusal(
            N_("The place is too long: at most {count} characters."), {"count": PLACE_MAX}
        )
    seats_text = parts[2] if len(parts) > 2 else ""
    seats: int | None
    if seats_text in UNLIMITED:
        seats = None
    elif seats_text.isdecimal() and 1 <= int(seats_text) <= SEATS_MAX:
        seats = int(seats_text)
    else:
        return Refusal(
            N_("Seats must be a whole number from 1 to {count}, or - for no limit: not {text}."),
            {"count": SEATS_MAX, "text": Verbatim(seats_text)},
        )
    note = "; ".join(parts[3:]).strip() or None
    if note is not None and len(note) > NOTE_MAX:
        return Refusal(N_("The note is too long: at most {count} characters."), {"count": NOTE_MAX})
    return EveningForm(local.astimezone(ZoneInfo("UTC")), place, seats, note)


async def announce(
    db: Database, club: ClubRow, actor_id: int, form: EveningForm, now: datetime | None = None
) -> EveningRow | Refusal:
    """A new evening, open for sign-up; its announcement is posted by the poster."""
    if form.starts_at <= (now or utcnow()):
        return Refusal(N_("That moment is in the past: an evening is announced ahead."))
    async with db.transaction() as conn:
        evening = await evenings.create_evening(
            conn,
            club.id,
            starts_at=form.starts_at,
            place=form.place,
            seats=form.seats,
            note=form.note,
            remind_before=club.remind_before,
            created_by=actor_id,
            now=now,
        )
        await _audit(conn, "announce", evening.id, actor_id, after=evening)
    return evening


async def _audit(
    conn: Conn,
    action: str,
    evening_id: int,
    actor_id: int,
    *,
    before: object = None,
    after: object = None,
) -> None:
    """The audit entry of a change to an evening or its list (no tournament's)."""
    await audit.audit(
        conn,
        action=f"evening.{action}",
        entity="evening",
        entity_id=evening_id,
        actor_id=actor_id,
        before=before,
        after=after,
    )


# -- which evening a host command means ---------------------------------------------------


def evening_id_arg(args: str) -> tuple[int | None, str]:
    """``#3 rest`` → (3, rest): an explicit evening; otherwise (None, args)."""
    found = re.match(r"^#(\d{1,12})(?:\s+|$)", args.strip())
    if found is None:
        return None, args.strip()
    return int(found[1]), args.strip()[found.end() :].strip()


async def pick_evening(db: Database, club: ClubRow, evening_id: int | None) -> EveningRow | Refusal:
    """The evening ``#id`` of this club, or the nearest one not started yet (open or
    closed for sign-up)."""
    async with db.read() as conn:
        if evening_id is not None:
            evening = await evenings.get_evening(conn, evening_id)
            if evening is None or evening.club_id != club.id:
                return Refusal(N_("The club has no evening #{id}."), {"id": evening_id})
            return evening
        upcoming = await evenings.evenings_of_club(conn, club.id)
    return upcoming[0] if upcoming else NO_EVENING


def _acting_refusal(evening: EveningRow) -> Refusal | None:
    """Why a host can't change this evening's list any more."""
    if evening.status == "cancelled":
        return CANCELLED
    if evening.status in ("running", "finished"):
        return Refusal(
            N_("Evening #{id} has started: its list is kept at the table now."), {"id": evening.id}
        )
    return None


# -- who got a seat -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Changed:
    """What a sign-up change did: the evening (for the poster), the sign-up it acted on
    and its place now ((seated?, number) or None), who moved up from the reserve."""

    evening: EveningRow
    signup: SignupRow
    place: tuple[bool, int] | None
    moved_up: tuple[SignupRow, ...] = ()


async def _after_change(
    conn: Conn, evening: EveningRow, before: Lineup
) -> tuple[Lineup, tuple[SignupRow, ...]]:
    """The lineup now; a ``moved_up`` note for each one seated now who waited before."""
    after = await evenings.lineup(conn, evening)
    waited = {r.id for r in before.reserve}
    moved = tuple(r for r in after.seated if r.id in waited)
    for row in moved:
        if row.user_id is not None:
            await evenings.add_note(conn, evening.club_id, evening.id, row.user_id, "moved_up")
    await evenings.mark_dirty(conn, evening.id)
    return after, moved


def _name_of(someone: Profile) -> str:
    full = " ".join(p for p in (someone.first_name, someone.last_name) if p)
    try:
        return normalize_nickname(full)[:NAME_MAX].strip()
    except InvalidNickname:
        return (someone.username or str(someone.id))[:NAME_MAX]


async def _free_name(conn: Conn, evening: EveningRow, someone: Profile, taken: set[str]) -> str:
    """The name he is listed under: his name at the club's last evening, else his
    Telegram name; made unique in the list (by his @username, else a number)."""
    base = await evenings.last_name_in_club(conn, evening.club_id, someone.id)
    base = base or _name_of(someone)
    tries = [base]
    if someone.username:
        tries.append(f"{base} (@{someone.username})"[:NAME_MAX])
    tries += [f"{base[: NAME_MAX - 4]} {n}" for n in range(2, 100)]
    return next(t for t in tries if nickname_key(t) not in taken)


def _closed_refusal(evening: EveningRow, *, joining: bool = False) -> Refusal | None:
    """Why "I'm in" (``joining``) or "Can't come" is refused now, if it is."""
    if evening.status == "closed" and joining:
        return SIGNUP_CLOSED
    return {
        "cancelled": CANCELLED,
        "finished": OVER,
        "running": STARTED,
        "closed": CLOSED,
    }.get(evening.status)


async def sign_up(db: Database, evening_id: int, someone: Profile) -> Changed | Refusal:
    """ "I'm in": a seat if one is free, else the end of the reserve."""
    async with db.transaction() as conn:
        evening = await evenings.get_evening(conn, evening_id)
        if evening is None:
            return OUT_OF_DATE_EVENING
        rows = await evenings.signups(conn, evening.id)
        before = evenings.split(rows, evening.seats)
        mine = next((r for r in rows if r.user_id == someone.id and r.status == "in"), None)
        if mine is not None:
            place = before.place_of(mine.id)
            assert place is not None
            if place[0]:
                return Refusal(N_("You are already in, #{number}."), {"number": place[1]})
            return Refusal(N_("You are already #{number} in the reserve."), {"number": place[1]})
        refused = _closed_refusal(evening, joining=True)
        if refused is not None:
            return refused
        taken = {r.name_key for r in rows if r.status == "in"}
        for old in rows:  # his "can't come" is taken back: one line of his at a time
            if old.user_id == someone.id and old.status == "out":
                await evenings.delete_signup(conn, old.id)
        signup = await _add_own(conn, evening, someone, taken, "in")
        after, moved = await _after_change(conn, evening, before)
        await _audit(conn, "sign_up", evening.id, someone.id, after=signup)
    return Changed(evening, signup, after.place_of(signup.id), moved)


async def _add_own(
    conn: Conn, evening: EveningRow, someone: Profile, taken: set[str], status: SignupStatus
) -> SignupRow:
    """His own line (he tapped), under a name the list does not show yet."""
    name = await _free_name(conn, evening, someone, taken)
    return await evenings.add_signup(
        conn,
        evening.id,
        user_id=someone.id,
        name=name,
        name_key=nickname_key(name),
        added_by=someone.id,
        status=status,
    )


async def cant_come(db: Database, evening_id: int, someone: Profile) -> Changed | Refusal:
    """ "Can't come": off the list (the first of the reserve moves up), listed under
    "Can't come"."""
    async with db.transaction() as conn:
        evening = await evenings.get_evening(conn, evening_id)
        if evening is None:
            return OUT_OF_DATE_EVENING
        refused = _closed_refusal(evening)
        if refused is not None:
            return refused
        rows = await evenings.signups(conn, evening.id)
        before = evenings.split(rows, evening.seats)
        mine = next(
            (r for r in rows if r.user_id == someone.id and r.status in ("in", "out")), None
        )
        if mine is not None and mine.status == "out":
            return Refusal(N_("You are on the list of those who can't come already."))
        if mine is None:
            taken = {r.name_key for r in rows if r.status != "removed"}
            signup = await _add_own(conn, evening, someone, taken, "out")
        else:
            await evenings.set_signup_status(conn, mine.id, "out")
            signup = mine
        _after, moved = await _after_change(conn, evening, before)
        await _audit(conn, "cant_come", evening.id, someone.id, after=signup)
    return Changed(evening, signup, None, moved)


# -- a host's changes ---------------------------------------------------------------------


def guest_name(text: str) -> str | Refusal:
    try:
        name = normalize_nickname(text)
    except InvalidNickname:
        return Refusal(N_("Send the guest's nickname after the command, e.g. /guest Anna."))
    if len(name) > NAME_MAX:
        return Refusal(
            N_("The nickname is too long: at most {count} characters."), {"count": NAME_MAX}
        )
    return name


async def _list_by_name(
    conn: Conn, evening: EveningRow, key: str
) -> tuple[EveningRow, Lineup, SignupRow | None] | Refusal:
    """The evening as it is now, its lineup and who is on its list under ``key``; a
    Refusal when hosts can no longer change the list."""
    evening = await evenings.get_evening(conn, evening.id) or evening
    refused = _acting_refusal(evening)
    if refused is not None:
        return refused
    rows = await evenings.signups(conn, evening.id)
    same = next((r for r in rows if r.status == "in" and r.name_key == key), None)
    return evening, evenings.split(rows, evening.seats), same


async def add_guest(
    db: Database, evening: EveningRow, actor_id: int, text: str
) -> Changed | Refusal:
    """A guest without Telegram (or not in the group), signed up by a host by nickname."""
    name = guest_name(text)
    if isinstance(name, Refusal):
        return name
    key = nickname_key(name)
    async with db.transaction() as conn:
        listed = await _list_by_name(conn, evening, key)
        if isinstance(listed, Refusal):
            return listed
        evening, before, same = listed
        if same is not None:
            place = before.place_of(same.id)
            assert place is not None
            return Refusal(
                N_("{name} is signed up already, #{number}.")
                if place[0]
                else N_("{name} is signed up already, #{number} in the reserve."),
                {"name": Verbatim(same.name), "number": place[1]},
            )
        signup = await evenings.add_signup(
            conn, evening.id, user_id=None, name=name, name_key=key, added_by=actor_id
        )
        after, moved = await _after_change(conn, evening, before)
        await _audit(conn, "guest", evening.id, actor_id, after=signup)
    return Changed(evening, signup, after.place_of(signup.id), moved)


async def remove(db: Database, evening: EveningRow, actor_id: int, text: str) -> Changed | Refusal:
    """A host takes someone off the list by the name it shows; he is told privately."""
    name = guest_name(text)
    if isinstance(name, Refusal):
        return Refusal(N_("Send the nickname as the list shows it, e.g. /unsign Anna."))
    key = nickname_key(name)
    async with db.transaction() as conn:
        listed = await _list_by_name(conn, evening, key)
        if isinstance(listed, Refusal):
            return listed
        evening, before, found = listed
        if found is None:
            return Refusal(
                N_("{name} is not on the list of evening #{id}."),
                {"name": Verbatim(name), "id": evening.id},
            )
        await evenings.set_signup_status(conn, found.id, "removed")
        if found.user_id is not None and found.user_id != actor_id:
            await evenings.add_note(conn, evening.club_id, evening.id, found.user_id, "removed")
        _after, moved = await _after_change(conn, evening, before)
        await _audit(conn, "remove", evening.id, actor_id, before=found)
    return Changed(evening, found, None, moved)


async def close_signup(db: Database, evening: EveningRow, actor_id: int) -> EveningRow | Refusal:
    async with db.transaction() as conn:
        current = await evenings.get_evening(conn, evening.id) or evening
        refused = _acting_refusal(current)
        if refused is not None:
            return refused
        if current.status == "closed":
            return Refusal(
                N_("The sign-up of evening #{id} is closed already."), {"id": current.id}
            )
        await evenings.set_status(conn, current.id, "closed")
        await _audit(conn, "close", current.id, actor_id, before=current.status)
        after = await evenings.get_evening(conn, current.id)
    assert after is not None
    return after


@dataclass(frozen=True, slots=True)
class Cancelled:
    evening: EveningRow
    told: int  # how many signed up are told privately


async def cancel(db: Database, evening: EveningRow, actor_id: int) -> Cancelled | Refusal:
    """The evening is off: everyone signed up (seated or in the reserve) is told."""
    async with db.transaction() as conn:
        current = await evenings.get_evening(conn, evening.id) or evening
        refused = _acting_refusal(current)
        if refused is not None:
            return refused
        rows = await evenings.signups(conn, current.id)
        told = {r.user_id for r in rows if r.status == "in" and r.user_id is not None}
        told.discard(actor_id)
        for user_id in sorted(told):
            await evenings.add_note(conn, current.club_id, current.id, user_id, "cancelled")
        await evenings.set_status(conn, current.id, "cancelled")
        await _audit(conn, "cancel", current.id, actor_id, before=current)
        after = await evenings.get_evening(conn, current.id)
    assert after is not None
    return Cancelled(after, len(told))


# -- reminders ----------------------------------------------------------------------------


async def queue_reminders(db: Database, now: datetime | None = None) -> list[int]:
    """A ``reminder`` note to everyone signed up of each evening whose reminder time
    has come (``starts_at - remind_before``), once; the evenings that got them."""
    now = now or utcnow()
    async with db.transaction() as conn:
        due = await evenings.reminders_due(conn, now)
        for evening in due:
            rows = await evenings.signups(conn, evening.id)
            for user_id in sorted(
                {r.user_id for r in rows if r.status == "in" and r.user_id is not None}
            ):
                await evenings.add_note(
                    conn, evening.club_id, evening.id, user_id, "reminder", now=now
                )
            await evenings.set_reminded(conn, evening.id, now)
    return [e.id for e in due]
