"""The bot's single SQLite connection and its transaction discipline.

One aiosqlite connection serves the whole bot; one ``asyncio.Lock`` serialises its
use, so two coroutines never interleave statements inside one transaction (a
shared connection has one transaction at a time). ``transaction()`` takes SQLite's
write lock up front (``BEGIN IMMEDIATE``), which makes read-then-write in a
repository race-free. A nested ``transaction()``/``read()``/``write()`` in the same
task joins the outer block (a SAVEPOINT for ``transaction()``) instead of
deadlocking; a *different* task started inside a transaction (``asyncio.gather`` of
database calls) waits for the lock forever, so don't.

Every statement is a round trip to aiosqlite's worker thread, which costs far more
than the statement (about 0.1-0.2 ms against a few microseconds on a 2-core VM), so
the helpers take one trip each: ``read()`` holds the lock without BEGIN/COMMIT
(the lock already keeps this process's writes out, and this process is the only
writer), ``write()`` runs one statement as its own implicit transaction, and the
statement helpers below fetch in the same trip as they execute.

WAL mode lets other processes (``python -m bot backup``, an operator's ``sqlite3``
shell) read while the bot writes.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.db.migrations import MIGRATIONS, Step, migrate

Conn = aiosqlite.Connection
Params = Sequence[Any] | dict[str, Any]

BUSY_TIMEOUT_MS = 5000
_CACHE_SIZE = 10_000  # entries of Database.cached before it starts afresh
# The bot's runtime tables: writing them changes nothing ``cached()`` keeps.
RUNTIME_TABLES = frozenset({"fsm", "processed_updates"})
_WRITTEN_TABLE = re.compile(
    r"^\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)"
    r"\s+[\"`]?(\w+)",
    re.IGNORECASE,
)


def _touches_domain(sql: str) -> bool:
    found = _WRITTEN_TABLE.match(sql)
    return found is None or found.group(1).lower() not in RUNTIME_TABLES
T = TypeVar("T")


class Database:
    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        # Use Database.open(); this only wires an already configured connection.
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._savepoints = 0
        self._closed = False
        # Transactions committed so far: what was read of the domain (tournaments, staff,
        # players, games...) stays valid while this is unchanged. ``write()`` is for the
        # bot's runtime tables (fsm, processed_updates) and doesn't count.
        self.changes = 0
        # ``cached()``: key -> (``changes`` when read, the value).
        self._cache: dict[Hashable, tuple[int, Any]] = {}

    @classmethod
    async def open(cls, path: str | Path, *, migrations: Sequence[Step] = MIGRATIONS) -> Database:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            conn.row_factory = aiosqlite.Row
            async with conn.execute("PRAGMA journal_mode = WAL") as cur:
                row = await cur.fetchone()
            if row is None or str(row[0]).lower() != "wal":
                raise sqlite3.OperationalError(f"cannot switch {path} to WAL mode: {row}")
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA synchronous = NORMAL")  # safe with WAL, much faster
            await conn.execute("PRAGMA foreign_keys = ON")
            await migrate(conn, migrations)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        async with self._lock:
            # Fold the WAL back so the file alone is a complete database.
            try:
                await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                await self._conn.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def _holds_lock(self) -> bool:
        task = asyncio.current_task()
        return task is not None and self._owner is task

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        if self._closed:
            raise RuntimeError("database is closed")
        async with self._lock:
            self._owner = asyncio.current_task()
            try:
                if self._conn.in_transaction:
                    # Left open by a task cancelled at the wrong moment; never inherit it.
                    await self._conn.rollback()
                yield
            finally:
                self._owner = None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``; ROLLBACK if the block raises."""
        if self._holds_lock():
            async with self._savepoint():
                yield self._conn
            return
        async with self._locked():
            conn = self._conn
            await conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                await _rollback_quietly(conn)
                raise
            try:
                await conn.execute("COMMIT")
            except BaseException:
                await _rollback_quietly(conn)
                raise
            finally:
                self.changes += 1

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """Several SELECTs that see the same data: no write of this process can come
        between them while the lock is held (and no other process writes).

        Writes belong in ``transaction()`` or ``write()``.
        """
        if self._holds_lock():
            yield self._conn
            return
        async with self._locked():
            yield self._conn

    async def cached(
        self, key: Hashable, load: Callable[[aiosqlite.Connection], Awaitable[T]]
    ) -> T:
        """``load(conn)``'s value, read once and kept until a transaction commits.

        The one cache of what was read of the domain (roles, a tournament, a group's
        language): every domain write goes through ``transaction()``, which bumps
        ``changes``, so nothing cached outlives the data it came from.
        """
        known = self._cache.get(key)
        if known is not None and known[0] == self.changes:
            value: T = known[1]
            return value
        changes = self.changes
        async with self.read() as conn:
            value = await load(conn)
        if self.changes == changes:  # nothing committed while we read
            if len(self._cache) > _CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = (changes, value)
        return value

    async def write(self, sql: str, params: Params = ()) -> None:
        """One statement, atomic on its own: a single round trip (no BEGIN/COMMIT).

        Meant for the bot's runtime tables (``RUNTIME_TABLES``), which are no change of
        the domain; a statement on any other table counts in ``changes`` like a
        transaction, so nothing ``cached()`` outlives it. Inside the task's
        ``transaction()`` it becomes part of that transaction.
        """
        if self._holds_lock():
            await self._conn.execute_fetchall(sql, params)
            return
        async with self._locked():
            try:
                await self._conn.execute_fetchall(sql, params)
            finally:
                if _touches_domain(sql):
                    self.changes += 1

    async def write_many(self, sql: str, params: Iterable[Params]) -> None:
        """``write`` for several parameter sets, in one round trip."""
        if self._holds_lock():
            await self._conn.executemany(sql, params)
            return
        async with self._locked():
            try:
                await self._conn.executemany(sql, params)
            finally:
                if _touches_domain(sql):
                    self.changes += 1

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[None]:
        self._savepoints += 1
        name = f"sp{self._savepoints}"  # generated, never user input
        conn = self._conn
        await conn.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            # If SQLite already rolled the whole transaction back, the caller's own
            # exception is the one worth seeing.
            with suppress(sqlite3.Error):
                await conn.execute(f"ROLLBACK TO {name}")
                await conn.execute(f"RELEASE {name}")
            raise
        else:
            await conn.execute(f"RELEASE {name}")
        finally:
            self._savepoints -= 1

    # Convenience helpers, each its own transaction (or part of the caller's one).
    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one write statement; return the number of rows it changed."""
        async with self.transaction() as conn:
            return await run(conn, sql, params)

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        async with self.read() as conn:
            return await fetch_one(conn, sql, params)

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        async with self.read() as conn:
            return await fetch_all(conn, sql, params)

    async def fetchval(self, sql: str, params: Params = ()) -> Any:
        row = await self.fetchone(sql, params)
        return None if row is None else row[0]

    async def backup(self, dest_path: str | Path) -> Path:
        """Write a consistent copy of the database to ``dest_path`` (replaced atomically)."""
        dest = _check_dest(self.path, dest_path)
        try:
            async with self._locked():
                # Holding the lock: no transaction of ours is half-way, so the copy has
                # only committed data.
                target = _open_backup_target(dest)
                try:
                    await self._conn.backup(target)
                finally:
                    target.close()
            return await asyncio.to_thread(_finish_backup_target, dest)
        except BaseException:
            _discard_backup_target(dest)
            raise


async def _rollback_quietly(conn: aiosqlite.Connection) -> None:
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            await conn.rollback()


def _check_dest(source: Path, dest_path: str | Path) -> Path:
    dest = Path(dest_path)
    if dest.resolve() == source.resolve():
        raise ValueError("backup destination is the database itself")
    return dest


def _tmp_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".part")


def _discard_backup_target(dest: Path) -> None:
    tmp = _tmp_path(dest)
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal")):
        leftover.unlink(missing_ok=True)


def _open_backup_target(dest: Path) -> sqlite3.Connection:
    dest.parent.mkdir(parents=True, exist_ok=True)
    _discard_backup_target(dest)
    # The copy runs on aiosqlite's worker thread, not the one that opened the target.
    return sqlite3.connect(_tmp_path(dest), check_same_thread=False)


def _finish_backup_target(dest: Path) -> Path:
    tmp = _tmp_path(dest)
    # A backup is one self-contained file: no WAL beside it.
    target = sqlite3.connect(tmp)
    try:
        target.execute("PRAGMA journal_mode = DELETE")
        verdict = target.execute("PRAGMA integrity_check").fetchone()
    finally:
        target.close()
    if verdict is None or verdict[0] != "ok":
        raise sqlite3.DatabaseError(f"backup {tmp} failed its integrity check: {verdict}")
    os.replace(tmp, dest)
    return dest


async def backup_file(db_path: str | Path, dest_path: str | Path) -> Path:
    """``python -m bot backup PATH``: ``asyncio.run(backup_file(db_path, PATH))``.

    Safe while the bot runs: its own connection (no migrations), one-step copy through
    the SQLite backup API (a consistent snapshot under WAL), ``dest_path`` replaced
    atomically. The copy runs in a worker thread; ``backup_file_sync`` is the same
    without an event loop.
    """
    return await asyncio.to_thread(backup_file_sync, db_path, dest_path)


def backup_file_sync(db_path: str | Path, dest_path: str | Path) -> Path:
    src_path = Path(db_path)
    if not src_path.is_file():
        raise FileNotFoundError(f"no database at {src_path}")
    dest = _check_dest(src_path, dest_path)
    try:
        source = sqlite3.connect(src_path, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            target = _open_backup_target(dest)
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
        return _finish_backup_target(dest)
    except BaseException:
        # A failed copy leaves no part-file behind (a refused restore replaces nothing).
        _discard_backup_target(dest)
        raise


# Statement helpers for repositories, which receive the connection of the caller's
# transaction()/read() block. Each is one trip to aiosqlite's thread: execute and
# fetch together; a cursor is not closed (a trip of its own): a finished statement
# holds nothing, and sqlite3 finalises it with the cursor.
async def fetch_one(
    conn: aiosqlite.Connection, sql: str, params: Params = ()
) -> sqlite3.Row | None:
    rows = await conn.execute_fetchall(sql, params)
    for row in rows:
        return row
    return None


async def fetch_all(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> list[sqlite3.Row]:
    return list(await conn.execute_fetchall(sql, params))


async def fetch_val(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> Any:
    row = await fetch_one(conn, sql, params)
    return None if row is None else row[0]


async def run(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> int:
    """Execute one statement; return the rows it changed."""
    cur = await conn.execute(sql, params)
    return cur.rowcount


async def insert(conn: aiosqlite.Connection, sql: str, params: Params = ()) -> int:
    """Execute one INSERT; return the new rowid."""
    cur = await conn.execute(sql, params)
    rowid = cur.lastrowid
    assert rowid is not None
    return rowid
