"""Timestamps are stored as INTEGER Unix seconds (UTC); the API speaks aware datetimes."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


def to_ts(value: datetime) -> int:
    # A naive datetime is ambiguous (local time?) and would shift protest windows silently.
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}; pass an aware (UTC) datetime")
    return int(value.timestamp())


def ts_or_now(value: datetime | None) -> int:
    return to_ts(utcnow() if value is None else value)


def from_ts(value: int) -> datetime:
    return datetime.fromtimestamp(value, UTC)


def opt_from_ts(value: int | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)
