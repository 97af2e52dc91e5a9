"""What ``GET /healthz`` and ``python -m bot check`` report.

The database is opened afresh by its path each time, not through the bot's own
connection: that one keeps reading the file it opened even after the file on disk
was deleted, replaced or damaged, which is just what a health check must notice.

Healthy: the database is this code's, a bot runs on it, Telegram answered it within
``HEALTH_TELEGRAM_MAX_AGE`` seconds and no group post has waited longer than
``HEALTH_OUTBOX_MAX_AGE`` (posts set aside for the chief judge, or a group the bot was
removed from, wait for people, not for Telegram, and do not count).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.db.migrations import LATEST
from bot.ops.instance import running

# Short: a health check must answer, not wait behind a long write.
_BUSY_TIMEOUT = 2.0


@dataclass(frozen=True)
class Limits:
    """Seconds after which silence from Telegram, or a waiting post, is unhealthy."""

    telegram: int = 300
    outbox: int = 600


def no_database(db_path: Path) -> str:
    return (f"no database at {db_path} (the bot has not run here yet, or DATABASE_PATH "
            "points elsewhere)")


def database_facts(db_path: Path) -> dict[str, Any]:
    """Schema version, the age of the last handled update and the outbox's backlog, or
    ``error`` when the file is missing or is no usable database of this bot."""
    facts: dict[str, Any] = {"database": str(db_path)}
    if not db_path.exists():
        return {**facts, "database_ok": False, "error": no_database(db_path)}
    try:
        # mode=rw: a missing file is an error, not a new empty database.
        conn = sqlite3.connect(f"file:{db_path}?mode=rw", uri=True, timeout=_BUSY_TIMEOUT)
    except sqlite3.Error as error:
        return {**facts, "database_ok": False, "error": str(error)}
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        facts["schema_version"] = version
        last = conn.execute("SELECT max(processed_at) FROM processed_updates").fetchone()[0]
        facts["seconds_since_last_update"] = (
            None if last is None else max(0, int(time.time()) - int(last))
        )
        if version >= 14:  # set-aside rows wait for the chief judge, not for Telegram
            backlog, aside = conn.execute(
                "SELECT count(*) FILTER (WHERE set_aside IS NULL),"
                " count(*) FILTER (WHERE set_aside IS NOT NULL) FROM outbox"
            ).fetchone()
            facts["outbox_set_aside"] = int(aside)
            oldest = conn.execute(
                "SELECT min(o.created_at) FROM outbox o"
                " JOIN tournaments t ON t.id = o.tournament_id"
                " WHERE o.set_aside IS NULL AND NOT t.bot_removed"
            ).fetchone()[0]
            facts["outbox_oldest_seconds"] = (
                None if oldest is None else max(0, int(time.time()) - int(oldest))
            )
        else:
            backlog = conn.execute("SELECT count(*) FROM outbox").fetchone()[0]
        facts["outbox_backlog"] = int(backlog)
    except sqlite3.Error as error:
        return {**facts, "database_ok": False, "error": str(error)}
    finally:
        conn.close()
    if version != LATEST:
        return {**facts, "database_ok": False,
                "error": f"schema version {version}, this code's is {LATEST}"}
    return {**facts, "database_ok": True}


def report(
    db_path: Path,
    *,
    uptime: float | None = None,
    mode: str | None = None,
    telegram_age: float | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """The whole report; ``healthy`` is what the exit code and the HTTP status follow.

    From the running bot (``uptime`` given) the bot is running by definition and says
    when Telegram last answered it (``telegram_age``); from the shell, the instance
    lock says whether a bot runs, since when, and what it last noted of Telegram.
    """
    limits = limits or Limits()
    result: dict[str, Any] = {"healthy": False, **database_facts(db_path)}
    result["schema_version_expected"] = LATEST
    if uptime is None:
        holder = running(db_path)
        result["running"] = holder is not None
        if holder is not None:
            result["pid"] = holder.pid
            now = time.time()
            if holder.started is not None:
                uptime = max(0.0, now - holder.started.timestamp())
            if holder.telegram_ok is not None:
                telegram_age = max(0.0, now - holder.telegram_ok.timestamp())
    else:
        result["running"] = True
    if mode is not None:
        result["mode"] = mode
    result["uptime_seconds"] = None if uptime is None else round(uptime, 1)
    result["seconds_since_telegram_ok"] = (
        None if telegram_age is None or not result["running"] else int(telegram_age)
    )
    age = result["seconds_since_telegram_ok"]
    result["telegram_ok"] = age is not None and age <= limits.telegram
    oldest = result.get("outbox_oldest_seconds")
    result["outbox_ok"] = bool(result["database_ok"]) and (
        oldest is None or oldest <= limits.outbox)
    result["healthy"] = bool(result["database_ok"] and result["running"]
                             and result["telegram_ok"] and result["outbox_ok"])
    return result


async def report_async(db_path: Path, *, uptime: float | None = None,
                       mode: str | None = None, telegram_age: float | None = None,
                       limits: Limits | None = None) -> dict[str, Any]:
    """``report`` on a worker thread: the event loop goes on serving updates."""
    return await asyncio.to_thread(report, db_path, uptime=uptime, mode=mode,
                                   telegram_age=telegram_age, limits=limits)
