"""Let the updates being handled finish before the bot shuts down.

The polling loop (``bot.telegram.polling``) handles each update in a task of its own and, on
SIGTERM (a deploy, `make run` stopped with Ctrl+C), stops without waiting for those
tasks; the shutdown hooks then close the publisher, the session and the database under
a judge's Save.
This outer middleware counts the updates in flight, and ``drain`` (the first shutdown
hook) waits for them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject

log = logging.getLogger(__name__)


class InFlightMiddleware(BaseMiddleware):
    def __init__(self, drain_timeout: float = 20.0) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._timeout = drain_timeout

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        self._count += 1
        self._idle.clear()
        try:
            return await handler(event, data)
        finally:
            self._count -= 1
            if self._count == 0:
                self._idle.set()

    @property
    def in_flight(self) -> int:
        return self._count

    async def drain(self) -> None:
        if self._count:
            log.info("waiting for %d update(s) being handled", self._count)
        try:
            await asyncio.wait_for(self._idle.wait(), self._timeout)
        except TimeoutError:
            log.warning("stopping with %d update(s) still being handled", self._count)
