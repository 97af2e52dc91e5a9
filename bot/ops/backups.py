"""Backups on a schedule, before a migration, and putting one back (``restore``).

Every copy is made by the code behind ``python -m bot backup`` (``bot.db.connection``):
SQLite's backup API, a temporary file checked with ``PRAGMA integrity_check``, then
``os.replace``. So a backup is whole or absent, never half-written.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.db.connection import Database, backup_file_sync
from bot.db.migrations import LATEST
from bot.ops.instance import InstanceLock
from bot.texts.shell_language import _

log = logging.getLogger(__name__)

# Tables every version of the bot's schema has: what tells its database from another.
_BOT_TABLES = frozenset({"tournaments", "players", "games", "game_seats", "audit_log"})
# The first scheduled backup of a folder that has none, after start-up (not during it).
_FIRST_DELAY = 60.0


def _stamp(now: datetime) -> str:
    # Milliseconds: names stay distinct and sort in time order at any period.
    return now.strftime("%Y%m%d-%H%M%S-") + f"{now.microsecond // 1000:03d}"


def scheduled_name(db_path: Path, now: datetime) -> str:
    return f"{db_path.stem}-{_stamp(now)}.sqlite3"


def backup_target(db_path: Path, path: str, now: datetime) -> Path:
    """Where ``python -m bot backup PATH`` writes: into an existing folder, or a path
    ending in a slash (a folder, made if missing), a dated file named as the
    scheduled ones; anything else is the file's own name."""
    target = Path(path)
    if path.endswith(("/", os.sep)) or target.is_dir():
        return target / scheduled_name(db_path, now)
    return target


def _scheduled(folder: Path, db_path: Path, *, parts: bool = False) -> list[Path]:
    """The schedule's backups of this database, oldest first (the names sort so); with
    ``parts``, the temporary files of copies a crash cut short instead."""
    tail = r"\.part(?:-wal|-shm|-journal)?" if parts else ""
    pattern = re.compile(rf"{re.escape(db_path.stem)}-\d{{8}}-\d{{6}}-\d{{3}}\.sqlite3{tail}")
    try:
        names = sorted(p.name for p in folder.iterdir() if pattern.fullmatch(p.name))
    except FileNotFoundError:
        return []
    return [folder / name for name in names]


def prune(folder: Path, db_path: Path, keep: int) -> list[Path]:
    """Delete all but the ``keep`` newest scheduled backups, and what a crash left of
    one being written (only one bot runs, and its copy is done); return the deleted
    backups. Others in the folder (those taken before a migration, an operator's) stay."""
    old = _scheduled(folder, db_path)[:-keep] if keep > 0 else []
    for path in (*old, *_scheduled(folder, db_path, parts=True)):
        path.unlink(missing_ok=True)
    return old


class BackupSchedule:
    """A backup every ``every`` into ``folder``, the ``keep`` newest kept.

    Through the bot's own connection (``Database.backup``): the copy holds only
    committed transactions. The period counts from the newest backup in the folder, so
    restarts neither skip nor repeat one. ``start``/``stop`` are the dispatcher's
    start-up and shutdown hooks; a backup under way is finished, not cut short.
    """

    def __init__(self, db: Database, folder: Path, every: timedelta, keep: int) -> None:
        self.db = db
        self.folder = folder
        self.every = every.total_seconds()
        self.keep = keep
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="backups")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task

    def first_wait(self) -> float:
        backups = _scheduled(self.folder, self.db.path)
        if not backups:
            return min(self.every, _FIRST_DELAY)
        try:
            age = datetime.now(UTC).timestamp() - backups[-1].stat().st_mtime
        except FileNotFoundError:
            return 0.0
        return max(0.0, self.every - age)

    async def take(self) -> Path:
        path = self.folder / scheduled_name(self.db.path, datetime.now(UTC))
        await self.db.backup(path)
        removed = await asyncio.to_thread(prune, self.folder, self.db.path, self.keep)
        log.info("backup written to %s (%d old ones removed)", path, len(removed))
        return path

    async def _run(self) -> None:
        wait = self.first_wait()
        while True:
            try:
                await asyncio.wait_for(self._stop.wait(), wait)
                return
            except TimeoutError:
                pass
            try:
                await self.take()
            except Exception:
                # A full disk must not stop the bot; the next period tries again.
                log.exception("the scheduled backup failed")
            wait = self.every


def schema_version(db_path: Path) -> int:
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def backup_before_migration(db_path: Path, folder: Path) -> Path | None:
    """An existing database older than the code gets a backup before it is migrated:
    an upgrade that goes wrong can be undone with ``restore``. Never pruned."""
    if not db_path.is_file():
        return None
    version = schema_version(db_path)
    if version == 0 or version >= LATEST:
        return None
    now = datetime.now(UTC)
    dest = folder / f"{db_path.stem}-before-v{LATEST}-{_stamp(now)}.sqlite3"
    backup_file_sync(db_path, dest)
    log.info("schema version %d -> %d: backup written to %s first", version, LATEST, dest)
    return dest


class RestoreRefused(Exception):
    """The file is not a backup this code can restore; nothing was replaced."""


@dataclass(frozen=True)
class Restored:
    schema_version: int
    replaced: Path | None  # where the database it replaced was moved to


def _bot_schema(path: Path, source: Path) -> int:
    """The schema version of a copy that passed its integrity check, if it is a
    database of this bot this code can run."""
    conn = sqlite3.connect(path)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    if version == 0 or not tables >= _BOT_TABLES:
        raise RestoreRefused(_("{path} is not a database of this bot").format(path=source))
    if version > LATEST:
        raise RestoreRefused(
            _("{path} has schema version {version}, newer than this code's {latest}: "
              "upgrade the bot first").format(path=source, version=version, latest=LATEST)
        )
    return version


def restore(backup: Path, db_path: Path) -> Restored:
    """Put ``backup`` in place of the database, the replaced one kept beside it.

    Refused (``AlreadyRunning``) while a bot holds the database; the backup is copied
    beside the database and checked first (integrity, this bot's tables, a schema
    version not newer than the code's), so a refusal replaces nothing. An older
    schema is migrated when the bot next starts.
    """
    if not backup.is_file():
        raise RestoreRefused(_("no file {path}").format(path=backup))
    if db_path.exists() and backup.resolve() == db_path.resolve():
        raise RestoreRefused(_("{path} is the database itself").format(path=backup))
    with InstanceLock.acquire(db_path):
        stamp = _stamp(datetime.now(UTC))
        incoming = db_path.with_name(f".{db_path.name}.restoring")
        try:
            try:
                backup_file_sync(backup, incoming)
            except sqlite3.DatabaseError as error:
                raise RestoreRefused(_("{path} is not a sound SQLite database: {error}")
                                     .format(path=backup, error=error)) from None
            version = _bot_schema(incoming, backup)
            # The WAL and its index go too: a stale WAL would be replayed into the
            # restored file. Moved together, the replaced database stays whole.
            present = [s for s in ("", "-wal", "-shm") if Path(f"{db_path}{s}").exists()]
            replaced = db_path.with_name(f"{db_path.name}.replaced-{stamp}") if present else None
            for suffix in present:
                os.replace(Path(f"{db_path}{suffix}"), Path(f"{replaced}{suffix}"))
            os.replace(incoming, db_path)
        finally:
            incoming.unlink(missing_ok=True)
    return Restored(version, replaced)
