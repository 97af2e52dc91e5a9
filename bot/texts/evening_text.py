"""A club evening's announcement in the group and the club's private notes, in words.

Plain data in (``Announcement``, ``NoteFacts``: the poster builds them from the rows),
HTML out. The seats and the reserve come in the order of signing up.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import ngettext

from bot.services.phrases import N_
from bot.texts.localtime import local, utc_offset
from bot.texts.markup import html_text
from bot.texts.names import quoted

WEEKDAYS = (
    N_("Monday"),
    N_("Tuesday"),
    N_("Wednesday"),
    N_("Thursday"),
    N_("Friday"),
    N_("Saturday"),
    N_("Sunday"),
)


@dataclass(frozen=True, slots=True)
class Announcement:
    evening_id: int
    club: str
    starts_at: datetime
    timezone: str
    place: str
    note: str | None
    seats: int | None  # None: no limit
    status: str  # open, closed, running, finished, cancelled
    seated: tuple[str, ...]
    reserve: tuple[str, ...]
    out: tuple[str, ...]


def when(starts_at: datetime, timezone: str) -> str:
    """``Friday 12.12.2025, 19:30 UTC+3`` in the club's zone."""
    here = local(starts_at, timezone)
    return "{day} {date}, {time} {offset}".format(
        day=_(WEEKDAYS[here.weekday()]),
        date=here.strftime("%d.%m.%Y"),
        time=here.strftime("%H:%M"),
        offset=utc_offset(here),
    )


def _status_line(status: str) -> str | None:
    return {
        "closed": _("The sign-up is closed."),
        "running": _("The evening is under way."),
        "finished": _("The evening is over."),
        "cancelled": _("❌ The evening is cancelled."),
    }.get(status)


def announcement_text(a: Announcement) -> str:
    """Title, date and time in the club's zone, place, note, seats "12/20", the numbered
    list, then the reserve numbered, then who can't come."""
    title = _("Evening #{id} of {club}").format(id=a.evening_id, club=quoted(a.club))
    lines = [f"<b>{title}</b>", "📅 " + when(a.starts_at, a.timezone), "📍 " + html_text(a.place)]
    if a.note:
        lines.append("📝 " + html_text(a.note))
    if a.seats is None:
        lines.append(_("Signed up: {count} (no limit)").format(count=len(a.seated)))
    else:
        lines.append(_("Seats: {taken}/{seats}").format(taken=len(a.seated), seats=a.seats))
    status = _status_line(a.status)
    if status:
        lines.append(status)
    if a.seated:
        lines.append("")
        lines += [f"{n}. {html_text(name)}" for n, name in enumerate(a.seated, 1)]
    elif a.status == "open":
        lines += ["", _("Nobody yet: tap “I'm in”.")]
    if a.reserve:
        lines += ["", _("Reserve:")]
        lines += [f"{n}. {html_text(name)}" for n, name in enumerate(a.reserve, 1)]
    if a.out:
        lines += ["", _("Can't come:") + " " + ", ".join(html_text(n) for n in a.out)]
    return "\n".join(lines)


def im_in_label() -> str:
    return _("I'm in")


def cant_come_label() -> str:
    return _("Can't come")


@dataclass(frozen=True, slots=True)
class NoteFacts:
    kind: str  # moved_up, reminder, cancelled, removed
    club: str
    starts_at: datetime
    timezone: str
    place: str
    place_now: tuple[bool, int] | None  # his place in the list now (a reminder)


def note_text(f: NoteFacts) -> str:
    """A club's private note, in the reader's language (the caller's locale)."""
    params = {
        "club": quoted(f.club),
        "when": when(f.starts_at, f.timezone),
        "place": html_text(f.place),
    }
    if f.kind == "moved_up":
        return _("A seat opened up: you are in for the evening of {club}, {when}, {place}.").format(
            **params
        )
    if f.kind == "cancelled":
        return _("The evening of {club}, {when}, {place}, is cancelled.").format(**params)
    if f.kind == "removed":
        return _("A host took you off the list of the evening of {club}, {when}.").format(**params)
    text = _("Reminder: the evening of {club}, {when}, {place}.").format(**params)
    if f.place_now is not None:
        seated, number = f.place_now
        text += "\n" + (
            _("You have a seat, #{number}.") if seated else _("You are #{number} in the reserve.")
        ).format(number=number)
    return text


def reminder_time(seconds: int) -> str:
    """How long before an evening its reminder goes: whole hours, else minutes; 0: none."""
    if seconds == 0:
        return _("no reminder")
    hours, rest = divmod(seconds, 3600)
    if rest == 0:
        return ngettext("{count} hour before", "{count} hours before", hours).format(count=hours)
    minutes = seconds // 60
    return ngettext("{count} minute before", "{count} minutes before", minutes).format(
        count=minutes
    )
