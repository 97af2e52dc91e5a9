"""When Telegram last answered the bot: what ``/healthz`` and ``python -m bot check``
report as ``seconds_since_telegram_ok``.

A session middleware notes every call Telegram answered (a result, or a refusal of the
request itself such as 400: Telegram was reached and took the token); network errors,
5xx and 401 are not answers. In polling mode getUpdates answers at least every polling
timeout (10 s); in webhook mode the bot may call nothing for hours, so ``keep_alive``
asks getMe after a quiet minute. The running bot writes the moment into its instance
lock file (at most every ``NOTE_EVERY`` seconds) for ``check`` from the shell.

A 401 in the middle of a run means the token was revoked in @BotFather: nothing will
get through any more, so ``on_refused`` ends the run (exit 4, like a refused start).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramNetworkError,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods import TelegramMethod
from aiogram.methods.base import Response, TelegramType

if TYPE_CHECKING:
    from aiogram import Bot

log = logging.getLogger(__name__)

NOTE_EVERY = 5.0
QUIET = 60.0
_NOT_ANSWERS = (TelegramNetworkError, TelegramServerError)


class TelegramWatch(BaseRequestMiddleware):
    """``last_ok``: the ``time.time()`` of Telegram's last answer, None before any."""

    def __init__(
        self,
        note: Callable[[datetime], None] | None = None,
        *,
        on_refused: Callable[[], object] | None = None,
        clock: Callable[[], float] = time.time,
        quiet: float = QUIET,
    ) -> None:
        self.last_ok: float | None = None
        self.refused: str | None = None  # Telegram's words when it refused the token
        self._on_refused = on_refused
        self._note = note
        self._noted = float("-inf")
        self._clock = clock
        self.quiet = quiet
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        try:
            response = await make_request(bot, method)
        except TelegramUnauthorizedError as error:
            if self.refused is None and self.last_ok is not None:  # the start's own: raised
                self.refused = error.message
                if self._on_refused is not None:
                    self._on_refused()
            raise
        except TelegramAPIError as error:
            if not isinstance(error, _NOT_ANSWERS):
                self.answered()
            raise
        self.answered()
        return response

    def answered(self) -> None:
        now = self._clock()
        self.last_ok = now
        if self._note is not None and now - self._noted >= NOTE_EVERY:
            self._noted = now
            try:
                self._note(datetime.fromtimestamp(now, UTC))
            except OSError as error:  # the health report's, not the bot's, trouble
                log.warning("could not note Telegram's answer in the lock file: %s", error)

    def age(self) -> float | None:
        return None if self.last_ok is None else max(0.0, self._clock() - self.last_ok)

    # The keep-alive: the dispatcher's start-up and shutdown hooks (aiogram passes the bot).

    async def start(self, bot: Bot) -> None:
        self._task = asyncio.create_task(self._keep_alive(bot), name="telegram-watch")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task

    async def _keep_alive(self, bot: Bot) -> None:
        wait = self.quiet
        while not await self._stopped(wait):
            age = self.age()
            if age is not None and age < self.quiet:
                wait = self.quiet - age  # something else got an answer meanwhile
                continue
            try:
                await asyncio.wait_for(bot.get_me(), self.quiet)
            except Exception as error:  # not answered: the health report says so
                log.debug("Telegram did not answer getMe: %s", error)
            wait = self.quiet

    async def _stopped(self, wait: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), wait)
        return self._stop.is_set()
