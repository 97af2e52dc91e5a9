"""Skip Telegram updates the bot has already processed (redelivery after a restart).

An OUTER middleware on ``dp.update``. The id is recorded after the handler returned
or raised, so an update whose handling was cut short by a crash (the process died
before the record) is processed again when Telegram redelivers it; what such an
update stores is idempotent (a game's ``draft_id``, a card tap's callback id).

Only updates fetched before a restart can come again, and update ids grow, so the
database is asked only about ids up to the highest one recorded before this process
started (read once); later ones are checked in memory. The records are written right
after the handler by one background writer, without holding up the caller, as many
as have gathered in one round trip to the database thread; ``drain()`` (a shutdown
hook) waits for the records still being written, ``recorded(update_id)`` for one
update's (the polling loop confirms an update to Telegram only then: ``bot.telegram.polling``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import timedelta
from functools import partial
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.types import TelegramObject, Update

from bot.db.connection import Database
from bot.db.updates import (
    KEEP_PROCESSED,
    highest_processed,
    is_processed,
    prune_processed,
    record_processed,
)
from bot.telegram.background import Background

log = logging.getLogger(__name__)

# Ids of this run kept in memory; older ones are looked up in the database.
MEMORY = 50_000


class DedupMiddleware(BaseMiddleware):
    """``dp.update.outer_middleware(DedupMiddleware(db))``.

    The Database comes from the constructor or, when that is ``None``, from the
    middleware data ``data["db"]`` (``Dispatcher(db=db)`` puts it there).
    """

    def __init__(
        self,
        db: Database | None = None,
        *,
        keep: timedelta = KEEP_PROCESSED,
        prune_every: timedelta = timedelta(hours=1),
        memory: int = MEMORY,
    ) -> None:
        self._db = db
        self._keep = keep
        self._prune_every = prune_every.total_seconds()
        self._last_prune = float("-inf")  # prune on the first update after start-up
        # Ids being handled now: a webhook retry racing the first delivery is skipped too.
        self._in_flight: set[int] = set()
        self._done: set[int] = set()
        self._done_order: deque[int] = deque()
        self._memory = memory
        # Ids up to this one may be in the database only (None: not read yet).
        self._ask_db_upto: int | None = None
        self._unrecorded: list[int] = []
        self._writer: asyncio.Task[None] | None = None
        self._waiting: set[asyncio.Future[Any]] = set()
        # Ids handled (or being handled) whose record is not written yet.
        self._unwritten: dict[int, asyncio.Future[None]] = {}

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        db = self._db if self._db is not None else data.get("db")
        if not isinstance(db, Database):
            raise RuntimeError("DedupMiddleware needs a Database: pass it, or set dp['db']")
        update_id = event.update_id
        if update_id in self._in_flight or update_id in self._done:
            log.debug("update %s was handled already; skipped", update_id)
            return UNHANDLED
        if await self._in_database(db, update_id):
            log.debug("update %s was processed before; skipped", update_id)
            return UNHANDLED
        self._in_flight.add(update_id)
        self._unwritten.setdefault(update_id, asyncio.get_running_loop().create_future())
        started: list[asyncio.Task[Any]] = []
        try:
            with Background.collect() as started:
                return await handler(event, data)
        finally:
            self._in_flight.discard(update_id)
            self._remember(update_id)
            pending = [task for task in started if not task.done()]
            if pending:
                # What the handler left running (its card's edit) must be done first: a
                # crash before then leaves the update to be delivered again.
                waiter = asyncio.ensure_future(asyncio.wait(pending))
                self._waiting.add(waiter)
                waiter.add_done_callback(partial(self._finished, db, update_id))
            else:
                self._queue(db, update_id)

    def _finished(self, db: Database, update_id: int, waiter: asyncio.Future[Any]) -> None:
        self._waiting.discard(waiter)
        self._queue(db, update_id)

    def _queue(self, db: Database, update_id: int) -> None:
        self._unrecorded.append(update_id)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._record(db), name="dedup-records")

    async def recorded(self, update_id: int) -> None:
        """Return once the update's record is written (at once for an update this
        middleware is not handling: skipped as handled already, or never fed).

        A record the database refused counts as written: it is logged, and holding
        the update back for ever would stop the polling loop's confirmations."""
        written = self._unwritten.get(update_id)
        if written is not None:
            await asyncio.shield(written)

    async def drain(self) -> None:
        """Wait for the records still being written (before the database closes)."""
        while self._waiting or (self._writer is not None and not self._writer.done()):
            await asyncio.gather(*self._waiting, return_exceptions=True)
            if self._writer is not None:
                await asyncio.gather(self._writer, return_exceptions=True)

    async def _in_database(self, db: Database, update_id: int) -> bool:
        if self._ask_db_upto is None:
            async with db.read() as conn:
                highest = await highest_processed(conn)
            self._ask_db_upto = max(self._ask_db_upto or 0, highest)
        if update_id > self._ask_db_upto:
            return False
        async with db.read() as conn:
            return await is_processed(conn, update_id)

    def _remember(self, update_id: int) -> None:
        self._done.add(update_id)
        self._done_order.append(update_id)
        while len(self._done_order) > self._memory:
            forgotten = self._done_order.popleft()
            self._done.discard(forgotten)
            # From now on the database answers for it.
            self._ask_db_upto = max(self._ask_db_upto or 0, forgotten)

    async def _record(self, db: Database) -> None:
        while self._unrecorded:
            batch, self._unrecorded = self._unrecorded, []
            # Never let bookkeeping replace a handler's own result or exception.
            try:
                await record_processed(db, batch)
                if time.monotonic() - self._last_prune >= self._prune_every:
                    self._last_prune = time.monotonic()
                    async with db.transaction() as conn:
                        await prune_processed(conn, keep=self._keep)
            except Exception:
                log.exception("could not record updates %s as processed", batch)
            for update_id in batch:
                written = self._unwritten.pop(update_id, None)
                if written is not None and not written.done():
                    written.set_result(None)
