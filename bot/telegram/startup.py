"""The start's first call: getMe, before the bot says it started.

Telegram out of reach (a refused connection, DNS, a timeout, 5xx) is asked again 1, 2,
4, 8 and 15 s later, ``TELEGRAM_START_WAIT`` seconds in all (30), then the start gives
up with ``TelegramUnreachable``; a refused token (401, or 404: no such bot on that
server) gives up at once with ``TokenRefused``. ``python -m bot`` turns each into one
line and an exit code of its own, which the systemd unit does not restart in a loop
(deploy/mafia-bot.service).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.types import User
from aiohttp import InvalidURL

# python -m bot's exit codes, named here too: the start is where they are decided.
from bot.ops.exit_codes import EXIT_CRASH as EXIT_CRASH
from bot.ops.exit_codes import EXIT_SETTINGS as EXIT_SETTINGS
from bot.ops.exit_codes import EXIT_TOKEN as EXIT_TOKEN
from bot.ops.exit_codes import EXIT_UNREACHABLE as EXIT_UNREACHABLE

log = logging.getLogger(__name__)


DELAYS = (1.0, 2.0, 4.0, 8.0, 15.0)
# One try's longest wait: a black-holed network answers nothing, not even a refusal.
ATTEMPT_TIMEOUT = 10.0

Sleep = Callable[[float], Awaitable[object]]


class StartRefused(Exception):
    """The start gave up: ``cause`` is what Telegram or the network said."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class TelegramUnreachable(StartRefused):
    """No answer from the Bot API server for the whole ``TELEGRAM_START_WAIT``."""


class TokenRefused(StartRefused):
    """The server answered 401 (a revoked or mistyped token) or 404."""

    def __init__(self, cause: str, *, not_found: bool) -> None:
        super().__init__(cause)
        self.not_found = not_found


class BadApiUrl(StartRefused):
    """TELEGRAM_API_URL is no address aiohttp can use."""


async def first_contact(
    bot: Bot,
    wait: float,
    *,
    sleep: Sleep = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> User:
    """getMe until it answers; the bot's own user (``bot.me()`` keeps it for later)."""
    deadline = clock() + wait
    attempt = 0
    while True:
        try:
            timeout = (ATTEMPT_TIMEOUT if wait == 0
                       else min(ATTEMPT_TIMEOUT, max(deadline - clock(), 1.0)))
            return await asyncio.wait_for(bot.me(), timeout)
        except TelegramUnauthorizedError as error:
            raise TokenRefused(error.message, not_found=False) from None
        except TelegramNotFound as error:
            raise TokenRefused(error.message, not_found=True) from None
        except TelegramNetworkError as error:
            if isinstance(error.__cause__, InvalidURL):
                raise BadApiUrl(str(error.__cause__)) from None
            cause = error.message
        except (TelegramServerError, TelegramRetryAfter) as error:
            cause = error.message
        except TimeoutError:
            cause = f"no answer in {timeout:g} s"
        except ClientDecodeError as error:  # something answered, but not the Bot API
            cause = f"not a Bot API answer: {error.message}"
        left = deadline - clock()
        if left <= 0:
            raise TelegramUnreachable(cause)
        delay = min(DELAYS[min(attempt, len(DELAYS) - 1)], left)
        attempt += 1
        log.debug("getMe failed (%s); trying again in %.1f s", cause, delay)
        await sleep(delay)
