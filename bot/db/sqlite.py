"""The bot's SQLite connection: ``sqlite3`` on the event loop's own thread, behind the
awaitable API the repositories use (``execute``, ``execute_fetchall``, ``executemany``,
``async with conn.execute(...) as cur``).

Why not a worker thread per connection (aiosqlite): the bot's statements take a few
microseconds each, and handing each one to another thread and back costs ten times
that on a quiet machine and far more on a busy one (two thread wake-ups per statement,
each waiting for a core). Run here, a statement costs what SQLite costs.

A statement that finds the database locked by another process (an operator's
``sqlite3`` shell writing) waits for it up to the busy timeout, holding up the event
loop meanwhile: the bot is the database's only writer (readers such as
``python -m bot backup`` never hold a writer up in WAL mode), so that is not a wait of
normal running. Copying the whole file (``backup``) runs in a worker thread, the
caller keeping the connection to itself meanwhile (``Database``'s lock); a task
cancelled during the copy lets the cancellation through only once the copy has
stopped using the connection.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Generator, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

Params = Sequence[Any] | dict[str, Any]
T = TypeVar("T")


class Cursor:
    """A finished statement's cursor: its rows (``fetchone``/``fetchall``), ``rowcount``
    and ``lastrowid``."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    async def fetchone(self) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._cursor.fetchone()
        return row

    async def fetchall(self) -> list[sqlite3.Row]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()


class _Executed:
    """What ``execute`` returns, the statement already run: awaited, its cursor;
    ``async with``, the cursor closed at the end of the block."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: Cursor) -> None:
        self._cursor = cursor

    def __await__(self) -> Generator[Any, None, Cursor]:
        return self._cursor
        yield  # a generator that never suspends  # pragma: no cover

    async def __aenter__(self) -> Cursor:
        return self._cursor

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self._cursor.close()


class Connection:
    """One ``sqlite3`` connection in autocommit mode (``isolation_level=None``: the
    caller writes BEGIN and COMMIT), rows as ``sqlite3.Row``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        # Use connect(); this only wraps an open connection.
        self._sync = conn

    @property
    def in_transaction(self) -> bool:
        return self._sync.in_transaction

    @property
    def total_changes(self) -> int:
        return self._sync.total_changes

    def execute(self, sql: str, params: Params = ()) -> _Executed:
        """Run a statement (at once, on this thread); await the result for its cursor."""
        return _Executed(Cursor(self._sync.execute(sql, params)))

    async def execute_fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a statement and return all its rows."""
        return self._sync.execute(sql, params).fetchall()

    async def executemany(self, sql: str, params: Iterable[Params]) -> Cursor:
        rows = params if isinstance(params, (list, tuple)) else list(params)
        return Cursor(self._sync.executemany(sql, rows))

    async def rollback(self) -> None:
        self._sync.rollback()

    async def commit(self) -> None:
        self._sync.commit()

    async def set_trace_callback(self, callback: Callable[[str], object] | None) -> None:
        self._sync.set_trace_callback(callback)

    async def backup(self, target: sqlite3.Connection) -> None:
        """Copy the whole database into ``target`` (opened with ``check_same_thread``
        off), in a worker thread."""
        await self._in_thread(lambda: self._sync.backup(target))

    async def close(self) -> None:
        self._sync.close()

    async def _in_thread(self, work: Callable[[], T]) -> T:
        done = asyncio.ensure_future(asyncio.to_thread(work))
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            # The thread still uses the connection: give it back only once it is done.
            await asyncio.wait([done])
            raise



async def connect(path: str | Path, *, busy_timeout: float) -> Connection:
    """Open ``path`` in autocommit mode; a statement that finds it locked waits up to
    ``busy_timeout`` seconds."""
    # check_same_thread off: ``backup`` uses it from a worker thread.
    conn = sqlite3.connect(
        path, isolation_level=None, timeout=busy_timeout, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    return Connection(conn)
