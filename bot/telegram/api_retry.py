"""Bot API calls that fail for reasons outside the request: tried again, or let go.

* A server error (5xx, "Restarting") or a network error: the same request is sent
  again after 0.5, 1, 2, 4, 8 seconds, then the error goes to the caller. A message
  lost to a blip is worse than the rare duplicate of one that Telegram did get.
  ``getUpdates`` is left to the polling loop (``bot.telegram.polling``), which has its own
  back-off, and ``getMe`` to the start's own schedule (``bot.telegram.startup``,
  ``TELEGRAM_START_WAIT``).
* ``answerCallbackQuery`` refused because the query is too old or unknown: the answer
  only stops the button's spinner, and after a restart a redelivered tap's query has
  expired while its handler must still run. It is logged and counted as done.

Installed on the bot's session before (outside) ``FloodControl``, so that every retry
queues within the flood limits again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, cast

from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramBadRequest, TelegramNetworkError, TelegramServerError
from aiogram.methods import AnswerCallbackQuery, TelegramMethod
from aiogram.methods.base import Response, TelegramType
from aiohttp import InvalidURL

if TYPE_CHECKING:
    from aiogram import Bot

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[object]]

RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
_NOT_RETRIED = frozenset({"getUpdates", "getMe"})
_EXPIRED_QUERY = ("query is too old", "query id is invalid")


def expired_query(error: TelegramBadRequest) -> bool:
    text = error.message.lower()
    return any(reason in text for reason in _EXPIRED_QUERY)


def _permanent(error: Exception) -> bool:
    """A malformed API URL (a setting to fix) fails the same way every time."""
    return isinstance(error.__cause__, InvalidURL)


class ApiRetry(BaseRequestMiddleware):
    def __init__(
        self, delays: tuple[float, ...] = RETRY_DELAYS, *, sleep: Sleep = asyncio.sleep
    ) -> None:
        self.delays = delays
        self._sleep = sleep
        self.retried = 0  # for logs and tests

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        name = method.__api_method__
        attempt = 0
        while True:
            try:
                return await make_request(bot, method)
            except TelegramBadRequest as error:
                if isinstance(method, AnswerCallbackQuery) and expired_query(error):
                    log.info("callback query %s not answered: %s", method.callback_query_id,
                             error.message)
                    # What the call returns (aiogram's hint says Response; it passes results).
                    return cast(Response[TelegramType], True)
                raise
            except (TelegramServerError, TelegramNetworkError) as error:
                if name in _NOT_RETRIED or attempt >= len(self.delays) or _permanent(error):
                    raise
                delay = self.delays[attempt]
                attempt += 1
                self.retried += 1
                log.warning("%s failed (%s); trying again in %ss (%d/%d)", name, error.message,
                            delay, attempt, len(self.delays))
                await self._sleep(delay)
