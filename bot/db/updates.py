"""Processed Telegram update ids, for the dedup middleware."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.db.connection import Conn, fetch_one, run
from bot.db.timeutil import to_ts, ts_or_now, utcnow

# Telegram picks update ids at random again after a week without updates, so older
# ids are both useless and a (tiny) collision risk.
KEEP_PROCESSED = timedelta(days=7)


async def is_processed(conn: Conn, update_id: int) -> bool:
    return (
        await fetch_one(conn, "SELECT 1 FROM processed_updates WHERE update_id = ?", (update_id,))
        is not None
    )


async def mark_processed(conn: Conn, update_id: int, *, now: datetime | None = None) -> None:
    await run(
        conn,
        "INSERT INTO processed_updates (update_id, processed_at) VALUES (?, ?)"
        " ON CONFLICT (update_id) DO NOTHING",
        (update_id, ts_or_now(now)),
    )


async def prune_processed(
    conn: Conn, *, keep: timedelta = KEEP_PROCESSED, now: datetime | None = None
) -> int:
    """Delete ids processed more than ``keep`` ago; return how many."""
    cutoff = to_ts((now or utcnow()) - keep)
    return await run(conn, "DELETE FROM processed_updates WHERE processed_at < ?", (cutoff,))
