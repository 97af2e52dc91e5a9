"""A tournament's local time: its IANA time zone and the clock texts people read.

Times are stored in UTC (``bot.db.timeutil``); whatever shows a time shows it in the
tournament's zone with its UTC offset, e.g. ``14:05 (UTC+03:00)``, so that nobody has
to guess which clock is meant.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

DEFAULT_TIMEZONE = "Europe/Moscow"
UTC_NAME = "UTC"


@lru_cache(maxsize=256)
def _zone(name: str) -> ZoneInfo | None:
    if not name or name.startswith(("/", ".")) or ".." in name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, IsADirectoryError, OSError):
        return None


@lru_cache(maxsize=1)
def _names_by_fold() -> dict[str, str]:
    return {name.casefold(): name for name in available_timezones()}


# Names people type for a zone, folded (lower case, ё as е, "-" and "_" as spaces):
# Russian and a few other cities the zone database spells otherwise, and the
# abbreviations players use. Cities the database names (Berlin, New York) are found
# by their own name.
_ALIASES: dict[str, str] = {
    "мск": "Europe/Moscow", "msk": "Europe/Moscow", "москва": "Europe/Moscow",
    "санкт петербург": "Europe/Moscow", "петербург": "Europe/Moscow",
    "спб": "Europe/Moscow", "питер": "Europe/Moscow", "st petersburg": "Europe/Moscow",
    "saint petersburg": "Europe/Moscow", "нижний новгород": "Europe/Moscow",
    "казань": "Europe/Moscow", "ростов на дону": "Europe/Moscow", "сочи": "Europe/Moscow",
    "краснодар": "Europe/Moscow", "воронеж": "Europe/Moscow", "ярославль": "Europe/Moscow",
    "тула": "Europe/Moscow", "калининград": "Europe/Kaliningrad", "самара": "Europe/Samara",
    "ижевск": "Europe/Samara", "саратов": "Europe/Saratov", "волгоград": "Europe/Volgograd",
    "ульяновск": "Europe/Ulyanovsk", "астрахань": "Europe/Astrakhan",
    "екатеринбург": "Asia/Yekaterinburg", "екб": "Asia/Yekaterinburg",
    "челябинск": "Asia/Yekaterinburg", "пермь": "Asia/Yekaterinburg",
    "уфа": "Asia/Yekaterinburg", "тюмень": "Asia/Yekaterinburg", "омск": "Asia/Omsk",
    "новосибирск": "Asia/Novosibirsk", "барнаул": "Asia/Barnaul", "томск": "Asia/Tomsk",
    "кемерово": "Asia/Novokuznetsk", "новокузнецк": "Asia/Novokuznetsk",
    "красноярск": "Asia/Krasnoyarsk", "иркутск": "Asia/Irkutsk", "чита": "Asia/Chita",
    "якутск": "Asia/Yakutsk", "владивосток": "Asia/Vladivostok",
    "хабаровск": "Asia/Vladivostok", "магадан": "Asia/Magadan",
    "сахалин": "Asia/Sakhalin", "южно сахалинск": "Asia/Sakhalin",
    "петропавловск камчатский": "Asia/Kamchatka", "камчатка": "Asia/Kamchatka",
    "минск": "Europe/Minsk", "киев": "Europe/Kyiv", "київ": "Europe/Kyiv",
    "kiev": "Europe/Kyiv", "алматы": "Asia/Almaty", "алма ата": "Asia/Almaty",
    "астана": "Asia/Almaty", "ташкент": "Asia/Tashkent", "бишкек": "Asia/Bishkek",
    "тбилиси": "Asia/Tbilisi", "ереван": "Asia/Yerevan", "баку": "Asia/Baku",
    "кишинев": "Europe/Chisinau", "рига": "Europe/Riga", "вильнюс": "Europe/Vilnius",
    "таллин": "Europe/Tallinn", "варшава": "Europe/Warsaw", "берлин": "Europe/Berlin",
    "прага": "Europe/Prague", "вена": "Europe/Vienna", "париж": "Europe/Paris",
    "лондон": "Europe/London", "рим": "Europe/Rome", "мадрид": "Europe/Madrid",
    "стамбул": "Europe/Istanbul", "дубай": "Asia/Dubai", "нью йорк": "America/New_York",
    "utc": "UTC", "gmt": "UTC", "всемирное": "UTC",
}
# ±HH[:MM] after UTC, GMT, МСК/MSK or nothing: "UTC+3", "GMT-05:00", "МСК+2", "+3".
_OFFSET = re.compile(
    r"^(utc|gmt|мск|msk)?\s*([+\-−])\s*(\d{1,2})(?::?(\d{2}))?$"
)
# Zones for offsets of whole hours and a half or three quarters (Etc/GMT has whole
# hours only, with the sign reversed).
_ODD_OFFSETS = {
    -210: "America/St_Johns", 210: "Asia/Tehran", 270: "Asia/Kabul",
    330: "Asia/Kolkata", 345: "Asia/Kathmandu", 390: "Asia/Yangon",
    570: "Australia/Darwin", 630: "Australia/Lord_Howe",
}


def _fold(text: str) -> str:
    return " ".join(text.casefold().replace("ё", "е").replace("_", " ").replace("-", " ").split())


@lru_cache(maxsize=1)
def _cities() -> dict[str, str]:
    """A zone by its city's name alone ("berlin", "new york"), where only one zone has it."""
    found: dict[str, str | None] = {}
    for name in available_timezones():
        city = _fold(name.rsplit("/", 1)[-1])
        found[city] = None if city in found and found[city] != name else name
    return {city: name for city, name in found.items() if name is not None}


def _offset_zone(match: re.Match[str]) -> str | None:
    base, sign, hours, minutes = match.groups()
    total = int(hours) * 60 + int(minutes or 0)
    total = -total if sign in "-−" else total
    if base in ("мск", "msk"):
        total += 180  # Moscow time, UTC+3 all year
    if total % 60 == 0 and -12 * 60 <= total <= 14 * 60:
        return "UTC" if total == 0 else f"Etc/GMT{-total // 60:+d}"
    return _ODD_OFFSETS.get(total)


def valid_timezone(name: str) -> str | None:
    """The IANA name of a zone as people type it: an IANA name in any case
    (``europe/berlin``), a city (``Berlin``, ``Москва``, ``New York``), an abbreviation
    (``MSK``) or an offset (``UTC+3``, ``GMT-05:00``, ``МСК+2``). None: no zone."""
    name = name.strip()
    if not name:
        return None
    # An offset first: the database's own "GMT-5" means UTC+5 (POSIX signs), never
    # what a person typing it means.
    offset = _OFFSET.match(name.casefold().replace(" ", ""))
    if offset:
        found = _offset_zone(offset)
    else:
        spelled = _names_by_fold().get(name.casefold(), name)
        if _zone(spelled) is not None:
            return spelled
        folded = _fold(name)
        found = _ALIASES.get(folded) or _cities().get(folded)
    return found if found is not None and _zone(found) is not None else None


def zone(name: str | None) -> ZoneInfo:
    """The zone of a stored name; UTC for a name this machine does not know."""
    return _zone(name or UTC_NAME) or ZoneInfo(UTC_NAME)


def utc_offset(moment: datetime) -> str:
    """``UTC+3``, ``UTC+5:30``, ``UTC−5`` (a typographic minus), ``UTC`` for an aware
    datetime: no brackets, so that it sits in any sentence."""
    offset = moment.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    if minutes == 0:
        return "UTC"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{'+' if minutes > 0 else '−'}{hours}" + (f":{rest:02d}" if rest else "")


def local(moment: datetime, tz: str | None) -> datetime:
    return moment.astimezone(zone(tz))


def clock(
    moment: datetime,
    tz: str | None,
    reference: datetime | None = None,
    *,
    seconds: bool | None = False,
    date: bool = False,
) -> str:
    """``14:05 UTC+3`` in the zone ``tz``.

    Seconds only when asked (``seconds=None``: when not zero); the date when ``date``
    or when the moment is not on ``reference``'s local day."""
    here = local(moment, tz)
    show_seconds = here.second != 0 if seconds is None else seconds
    text = here.strftime("%H:%M:%S" if show_seconds else "%H:%M")
    if date or (reference is not None and local(reference, tz).date() != here.date()):
        text = here.strftime("%Y-%m-%d ") + text
    return f"{text} {utc_offset(here)}"


def zone_label(tz: str | None, at: datetime) -> str:
    """``Europe/Moscow, UTC+3``: the zone and its offset at ``at``; a zone that is only
    an offset (``UTC+3`` typed) by its offset alone."""
    name = tz or UTC_NAME
    offset = utc_offset(local(at, name))
    return offset if name == UTC_NAME or name.startswith("Etc/") else f"{name}, {offset}"
