"""Processed Telegram update ids, for the dedup middleware."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from bot.db.connection import Conn, Database, fetch_one, fetch_val, run
from bot.db.timeutil import to_ts, ts_or_now, utcnow

# Telegram picks update ids at random again after a week without updates, so older
# ids are both useless and a (tiny) collision risk.
KEEP_PROCESSED = timedelta(days=7)


async def is_processed(conn: Conn, update_id: int) -> bool:
    return (
        await fetch_one(conn, "SELECT 1 FROM processed_updates WHERE update_id = ?", (update_id,))
        is not None
    )


async def highest_processed(conn: Conn) -> int:
    return int(await fetch_val(conn, "SELECT max(update_id) FROM processed_updates") or 0)


_MARK = (
    "INSERT INTO processed_updates (update_id, processed_at) VALUES (?, ?)"
    " ON CONFLICT (update_id) DO NOTHING"
)


async def mark_processed(conn: Conn, update_id: int, *, now: datetime | None = None) -> None:
    await run(conn, _MARK, (update_id, ts_or_now(now)))


async def record_processed(
    db: Database, update_ids: Iterable[int], *, now: datetime | None = None
) -> None:
    """``mark_processed`` for many ids in one round trip, outside any transaction."""
    at = ts_or_now(now)
    await db.write_many(_MARK, [(update_id, at) for update_id in update_ids])


async def prune_processed(
    conn: Conn, *, keep: timedelta = KEEP_PROCESSED, now: datetime | None = None
) -> int:
    """Delete ids processed more than ``keep`` ago; return how many."""
    cutoff = to_ts((now or utcnow()) - keep)
    return await run(conn, "DELETE FROM processed_updates WHERE processed_at < ?", (cutoff,))
