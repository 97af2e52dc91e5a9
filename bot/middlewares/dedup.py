"""Skip Telegram updates the bot has already processed (redelivery after a restart).

An OUTER middleware on ``dp.update``. The id is recorded after the handler returned
or raised, so an update whose handling was cut short by a crash (the process died
before the record) is processed again when Telegram redelivers it; saves stay
idempotent through the game's ``draft_id``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.types import TelegramObject, Update

from bot.db.connection import Database
from bot.db.updates import KEEP_PROCESSED, is_processed, mark_processed, prune_processed

log = logging.getLogger(__name__)


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
    ) -> None:
        self._db = db
        self._keep = keep
        self._prune_every = prune_every.total_seconds()
        self._last_prune = float("-inf")  # prune on the first update after start-up
        # Ids being handled now: a webhook retry racing the first delivery is skipped too.
        self._in_flight: set[int] = set()

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
        if update_id in self._in_flight:
            log.debug("update %s is being handled already; skipped", update_id)
            return UNHANDLED
        async with db.read() as conn:
            seen = await is_processed(conn, update_id)
        if seen:
            log.debug("update %s was processed before; skipped", update_id)
            return UNHANDLED
        self._in_flight.add(update_id)
        try:
            return await handler(event, data)
        finally:
            self._in_flight.discard(update_id)
            await self._record(db, update_id)

    async def _record(self, db: Database, update_id: int) -> None:
        # Never let bookkeeping replace the handler's own result or exception.
        try:
            async with db.transaction() as conn:
                await mark_processed(conn, update_id)
                if time.monotonic() - self._last_prune >= self._prune_every:
                    self._last_prune = time.monotonic()
                    pruned = await prune_processed(conn, keep=self._keep)
                    if pruned:
                        log.debug("pruned %d processed update ids", pruned)
        except Exception:
            log.exception("could not record update %s as processed", update_id)
