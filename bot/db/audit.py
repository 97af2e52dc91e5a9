"""The audit log: who changed what, with JSON snapshots before and after.

Repositories do not audit by themselves; the handler that knows the actor and the
intent calls ``audit`` inside the same transaction as the change.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from fractions import Fraction
from typing import Any

from bot.db.connection import Conn, fetch_all, insert
from bot.db.timeutil import from_ts, ts_or_now


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    tournament_id: int | None
    actor_id: int | None  # None: the bot itself
    at: datetime
    action: str
    entity: str
    entity_id: str | None
    before: Any
    after: Any


# Field names by dataclass: ``dataclasses.fields`` is slow, and a game has eleven rows.
_FIELDS: dict[type, tuple[str, ...]] = {}
_AS_IS = frozenset({str, int, bool, float, type(None)})


def _plain(value: Any) -> Any:
    """JSON-ready form of repository rows (dataclasses, datetimes, enums, sets)."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    names = _FIELDS.get(kind)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    return value


def to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(_plain(value), ensure_ascii=False)


async def audit(
    conn: Conn,
    *,
    action: str,
    entity: str,
    entity_id: int | str | None = None,
    tournament_id: int | None = None,
    actor_id: int | None = None,
    before: Any = None,
    after: Any = None,
    at: datetime | None = None,
) -> int:
    """Append one entry, e.g. ``audit(conn, action="game.update", entity="game",
    entity_id=g.id, tournament_id=g.tournament_id, actor_id=user.id, before=old, after=new)``.
    """
    return await insert(
        conn,
        "INSERT INTO audit_log (tournament_id, actor_id, at, action, entity, entity_id,"
        " before, after) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            tournament_id,
            actor_id,
            ts_or_now(at),
            action,
            entity,
            None if entity_id is None else str(entity_id),
            to_json(before),
            to_json(after),
        ),
    )


async def record(
    conn: Conn,
    action: str,
    entity_id: int | str,
    tournament_id: int,
    actor_id: int | None,
    *,
    before: Any = None,
    after: Any = None,
    at: datetime | None = None,
) -> int:
    """``audit`` of a change to the entity the action names first (``staff.add``: a
    staff entry), e.g. ``record(conn, "staff.add", user_id, tid, actor_id, after=row)``."""
    return await audit(
        conn,
        action=action,
        entity=action.split(".", 1)[0],
        entity_id=entity_id,
        tournament_id=tournament_id,
        actor_id=actor_id,
        before=before,
        after=after,
        at=at,
    )


def _row(r: sqlite3.Row) -> AuditEntry:
    return AuditEntry(
        id=r["id"],
        tournament_id=r["tournament_id"],
        actor_id=r["actor_id"],
        at=from_ts(r["at"]),
        action=r["action"],
        entity=r["entity"],
        entity_id=r["entity_id"],
        before=None if r["before"] is None else json.loads(r["before"]),
        after=None if r["after"] is None else json.loads(r["after"]),
    )


async def audit_entries(
    conn: Conn,
    tournament_id: int,
    *,
    entity: str | None = None,
    entity_id: int | str | None = None,
    limit: int = 100,
) -> list[AuditEntry]:
    """Newest first."""
    rows = await fetch_all(
        conn,
        "SELECT * FROM audit_log WHERE tournament_id = ? AND (? IS NULL OR entity = ?)"
        " AND (? IS NULL OR entity_id = ?) ORDER BY id DESC LIMIT ?",
        (
            tournament_id,
            entity,
            entity,
            None if entity_id is None else str(entity_id),
            None if entity_id is None else str(entity_id),
            limit,
        ),
    )
    return [_row(r) for r in rows]
