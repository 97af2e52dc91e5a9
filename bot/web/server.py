"""The bot's one aiohttp application: ``/healthz``, the webhook, and whatever page is
added later (``create_app`` returns a plain ``web.Application`` to add routes to).
Requests too large or malformed are refused before any route (``bot.web.bad_requests``).

The webhook is aiogram's own ``SimpleRequestHandler``, with the update handled before
the answer (``handle_in_background=False``): Telegram sends an update again until it
gets a 200, so a crash in the middle of handling one leaves it to be delivered again,
as an unconfirmed update is after a crash in polling mode. What the handler left
running (a card's edit, ``bot.telegram.background``) is waited for too, as the dedup
middleware waits for it before it records the update as processed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.methods import TelegramMethod
from aiogram.types import Update
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web

from bot.config import Settings
from bot.telegram.background import Background
from bot.telegram.watch import TelegramWatch
from bot.web.bad_requests import MAX_BODY, Runner, bounded_body
from bot.web.health import Limits, report_async

log = logging.getLogger(__name__)

SETTINGS = web.AppKey("settings", Settings)
STARTED = web.AppKey("started", float)  # time.monotonic() at the process's start
MODE = web.AppKey("mode", str)
TELEGRAM = web.AppKey("telegram", TelegramWatch)


def create_app(settings: Settings, *, started: float, mode: str,
               telegram: TelegramWatch | None = None) -> web.Application:
    """``telegram``: the bot's session's watch (without one, Telegram counts as silent)."""
    # A body over MAX_BODY is refused before any route (413), and when read without its
    # length declared (``client_max_size``); the parser's refusals are ``Runner``'s.
    app = web.Application(client_max_size=MAX_BODY, middlewares=[bounded_body])
    app[SETTINGS] = settings
    app[STARTED] = started
    app[MODE] = mode
    app[TELEGRAM] = telegram or TelegramWatch()
    app.router.add_get("/healthz", healthz)
    return app


async def healthz(request: web.Request) -> web.Response:
    app = request.app
    settings = app[SETTINGS]
    report = await report_async(
        settings.database_path, uptime=time.monotonic() - app[STARTED], mode=app[MODE],
        telegram_age=app[TELEGRAM].age(),
        limits=Limits(settings.health_telegram_max_age, settings.health_outbox_max_age))
    return web.json_response(report, status=200 if report["healthy"] else 503)


class WebhookHandler(SimpleRequestHandler):
    """``SimpleRequestHandler`` answering once the update is handled."""

    def __init__(self, dispatcher: Dispatcher, bot: Bot, *, secret_token: str) -> None:
        super().__init__(dispatcher, bot, handle_in_background=False, secret_token=secret_token)

    async def _handle_request(self, bot: Bot, request: web.Request) -> web.Response:
        try:
            update = Update.model_validate(
                await request.json(loads=bot.session.json_loads), context={"bot": bot}
            )
        except ValueError:  # not JSON, or not an update: sending it again won't help
            return web.Response(status=400, text="Bad Request")
        result: TelegramMethod[Any] | None = None
        with Background.collect() as started:
            try:
                result = await self.dispatcher.feed_webhook_update(bot, update, **self.data)
            except Exception:
                # aiogram has logged it. As in polling, an update whose handler failed
                # counts as processed: a redelivery would be skipped as a duplicate.
                result = None
        pending = [task for task in started if not task.done()]
        if pending:
            await asyncio.wait(pending)
        return web.Response(body=self._build_response_writer(bot=bot, result=result))


def add_webhook(app: web.Application, dp: Dispatcher, bot: Bot, *, path: str,
                secret: str) -> None:
    """Serve the webhook at ``path`` and run the dispatcher's start-up and shutdown
    hooks with the application's."""
    # First: on shutdown the dispatcher drains the updates being handled, and only then
    # does the handler's own hook close the bot's session they use.
    setup_application(app, dp, bot=bot)
    WebhookHandler(dp, bot, secret_token=secret).register(app, path=path)


async def start_server(app: web.Application, host: str, port: int) -> web.AppRunner:
    # No access log: Telegram posts every update; the reverse proxy logs requests.
    # A short shutdown timeout: the dispatcher's shutdown hook has drained the updates
    # being handled already; what is left hangs (and is sent again after the restart).
    # A request the parser refuses (a header over aiohttp's 8190 bytes, a malformed
    # line) gets 431 or 400 and one log line, not a traceback and a reset
    # (``bot.web.bad_requests``).
    runner = Runner(app, access_log=None, handle_signals=False, shutdown_timeout=10)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    log.info("serving HTTP on %s:%d (/healthz)", host, port)
    return runner
