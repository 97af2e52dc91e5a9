"""A tournament's local time: its IANA time zone and the clock texts people read.

Times are stored in UTC (``bot.db.timeutil``); whatever shows a time shows it in the
tournament's zone with its UTC offset, e.g. ``14:05 (UTC+03:00)``, so that nobody has
to guess which clock is meant.
"""

from __future__ import annotations

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


def valid_timezone(name: str) -> str | None:
    """The IANA name as the database spells it (``europe/berlin`` → ``Europe/Berlin``),
    or None for a name zoneinfo does not know."""
    name = name.strip()
    if not name:
        return None
    spelled = _names_by_fold().get(name.casefold(), name)
    return spelled if _zone(spelled) is not None else None


def zone(name: str | None) -> ZoneInfo:
    """The zone of a stored name; UTC for a name this machine does not know."""
    return _zone(name or UTC_NAME) or ZoneInfo(UTC_NAME)


def utc_offset(moment: datetime) -> str:
    """``UTC+03:00`` for an aware datetime."""
    offset = moment.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    sign = "+" if minutes >= 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{rest:02d}"


def local(moment: datetime, tz: str | None) -> datetime:
    return moment.astimezone(zone(tz))


def clock(
    moment: datetime,
    tz: str | None,
    reference: datetime | None = None,
    *,
    seconds: bool | None = None,
    date: bool = False,
) -> str:
    """``14:05 (UTC+03:00)`` in the zone ``tz``.

    Seconds are shown when they matter (``seconds=None``: when not zero); the date when
    ``date`` or when the moment is not on ``reference``'s local day."""
    here = local(moment, tz)
    show_seconds = here.second != 0 if seconds is None else seconds
    text = here.strftime("%H:%M:%S" if show_seconds else "%H:%M")
    if date or (reference is not None and local(reference, tz).date() != here.date()):
        text = here.strftime("%Y-%m-%d ") + text
    return f"{text} ({utc_offset(here)})"


def zone_label(tz: str | None, at: datetime) -> str:
    """``Europe/Moscow (UTC+03:00)``: the zone and its offset at ``at``."""
    name = tz or UTC_NAME
    return f"{name} ({utc_offset(local(at, name))})"
