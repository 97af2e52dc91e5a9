"""Building and running the bot: one place that wires settings, storage and routers."""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
import signal
import time
from datetime import timedelta
from typing import TYPE_CHECKING

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.fsm.storage.base import DefaultKeyBuilder
from aiogram.fsm.storage.memory import SimpleEventIsolation

import handlers
from bot.config import Settings
from bot.db.connection import Database
from bot.ops.backups import BackupSchedule, backup_before_migration
from bot.ops.instance import InstanceLock
from bot.publishing import Publisher
from bot.publishing.club_posts import ClubPoster
from bot.reads.career import CareerService
from bot.reads.standings import StandingsService
from bot.telegram.aiogram_models import pin_response_types
from bot.telegram.api_retry import ApiRetry
from bot.telegram.background import Background
from bot.telegram.flood import FloodControl, FloodLimits, MigrateCallback
from bot.telegram.fsm_storage import SQLiteStorage
from bot.telegram.middlewares.dedup import DedupMiddleware
from bot.telegram.middlewares.identity import IdentityMiddleware
from bot.telegram.middlewares.inflight import InFlightMiddleware
from bot.telegram.middlewares.locale import UserLocaleMiddleware
from bot.telegram.middlewares.users import UsersMiddleware
from bot.telegram.polling import Polling
from bot.telegram.startup import TokenRefused, first_contact
from bot.telegram.watch import TelegramWatch
from bot.texts.i18n import create_i18n
from handlers.game_entry.notices import NOTICES
from handlers.game_entry.spec import Desk
from handlers.game_entry.steps import CARD

if TYPE_CHECKING:  # imported where a server is made: polling alone does without aiohttp.web
    from aiohttp import web

    from bot.web.runtime import LiveRuntime

log = logging.getLogger(__name__)


def create_bot(
    token: str,
    api_url: str = "",
    *,
    on_migrate: MigrateCallback | None = None,
    flood_limits: FloodLimits | None = None,
    watch: TelegramWatch | None = None,
) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url)) if api_url else None
    bot = Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    # Outermost: 5xx and network errors are tried again (each retry queues anew below).
    bot.session.middleware(ApiRetry())
    # Every outgoing call passes Telegram's flood limits (docs/development.md,
    # "Reliability and speed"); it queues, never drops.
    # A group upgraded to a supergroup: its tournaments follow (Publisher.chat_migrated).
    bot.session.middleware(FloodControl(flood_limits, on_migrate=on_migrate))
    if watch is not None:  # innermost: every try's answer, for the health report
        bot.session.middleware(watch)
    return bot


def build_dispatcher(db: Database, settings: Settings | None = None) -> Dispatcher:
    settings = settings or Settings()
    dp = Dispatcher(
        storage=SQLiteStorage(db, key_builder=DefaultKeyBuilder(with_destiny=True)),
        # Two quick taps of one user are handled one after the other.
        events_isolation=SimpleEventIsolation(),
    )
    # Outermost: a graceful stop waits for the updates being handled (first shutdown hook).
    inflight = InFlightMiddleware()
    dp.update.outer_middleware(inflight)
    dp.shutdown.register(inflight.drain)
    # What handlers handed over without waiting (card edits) goes out before the stop.
    background = Background()
    dp["background"] = background
    dp.shutdown.register(background.join)
    # Dependencies reach handlers as keyword arguments (aiogram's workflow data).
    dp["db"] = db
    dp["settings"] = settings
    standings = StandingsService(db)
    dp["standings"] = standings
    dp["career"] = CareerService(db)  # the career rating, brought up to date when read
    i18n = create_i18n(settings.locales_path)
    dp["i18n"] = i18n
    publisher = Publisher(db, standings, debounce=settings.standings_debounce, i18n=i18n)
    dp["publisher"] = publisher
    # A club evening's announcement and private notes (edits coalesced per evening), and
    # the reminders' periodic task.
    club_posts = ClubPoster(
        db,
        i18n=i18n,
        debounce=settings.standings_debounce,
        keyboard=handlers.evenings.announcement_keyboard,
    )
    dp["club_posts"] = club_posts
    dp.startup.register(club_posts.start)
    dp.shutdown.register(club_posts.stop)
    # What the judge's card works with (handlers.game_entry): the above and its steps.
    dp["desk"] = Desk(db, standings, publisher, i18n, CARD, settings, NOTICES, background)
    # What a previous run left in the outbox goes out once polling starts...
    dp.startup.register(publisher.resume)
    # ...and debounced standings still waiting are published before the bot stops.
    dp.shutdown.register(publisher.close)
    dedup = DedupMiddleware(db)
    dp.update.outer_middleware(dedup)
    dp["dedup"] = dedup  # polling confirms an update once it is recorded (bot.telegram.polling)
    # Last: the records of handled updates are written before the database closes.
    dp.shutdown.register(dedup.drain)
    dp.update.outer_middleware(UsersMiddleware())
    UserLocaleMiddleware(i18n).setup(dp)
    # Registered after i18n, so its refusals are translated.
    dp.message.outer_middleware(IdentityMiddleware())
    handlers.setup_routers(dp)
    return dp


def prepare_runtime() -> None:
    """Once the bot is built, before it serves updates.

    aiogram parses every answer into ``Response[...]``, which pydantic keeps in a weak
    cache: pinned, they are not rebuilt after each garbage collection. Everything alive
    now (aiogram's models, the routers, translations) lives as long as the process:
    ``gc.freeze`` keeps the collector from walking it again and again (its full passes
    otherwise stall an update for tens of milliseconds).
    """
    pin_response_types()
    gc.collect()
    gc.freeze()


async def run(settings: Settings, token: str, lock: InstanceLock | None = None) -> None:
    """Until SIGTERM or SIGINT. Raises ``bot.telegram.startup.StartRefused`` when Telegram cannot
    be reached at the start or refuses the token (at the start, or later: a token
    revoked in @BotFather ends the run)."""
    started = time.monotonic()
    # An upgrade's migrations run in Database.open: a copy of the older database first.
    await asyncio.to_thread(
        backup_before_migration, settings.database_path, settings.backup_folder
    )
    db = await Database.open(settings.database_path)
    dp = build_dispatcher(db, settings)
    stop = asyncio.Event()  # SIGTERM, SIGINT, or Telegram refusing the token
    watch = TelegramWatch(lock.note_telegram_ok if lock is not None else None,
                          on_refused=stop.set)
    bot = create_bot(
        token,
        settings.telegram_api_url,
        on_migrate=dp["publisher"].chat_migrated,
        flood_limits=FloodLimits().scaled(settings.flood_scale),
        watch=watch,
    )
    dp.startup.register(watch.start)
    dp.shutdown.register(watch.stop)
    if settings.backup_every_hours > 0:
        backups = BackupSchedule(db, settings.backup_folder,
                                 timedelta(hours=settings.backup_every_hours),
                                 settings.backup_keep)
        dp.startup.register(backups.start)
        dp.shutdown.register(backups.stop)
    prepare_runtime()
    mode = "webhook" if settings.webhook_url else "polling"
    port = settings.web_server_port  # never None in webhook mode
    app = None
    if port is not None:
        from bot.web.server import create_app

        app = create_app(settings, started=started, mode=mode, telegram=watch)
    if app is not None and settings.webapp_url:
        add_live_pages(app, dp, bot, settings, token)
    if app is not None:
        add_career_pages(app, dp, settings)
    try:
        # Nothing is served before Telegram has answered: "started" means reachable.
        me = await first_contact(bot, settings.telegram_start_wait)
        try:
            await handlers.set_commands(bot, dp["i18n"])
        except Exception as exc:  # the menu is a convenience; polling retries the network
            log.warning("could not set the command menu: %s", exc)
        log.info("bot @%s started (%s); database %s", me.username, mode,
                 settings.database_path)
        # my_chat_member tells us who blocked the bot and when it leaves a group.
        updates = sorted({*dp.resolve_used_update_types(), "my_chat_member"})
        if settings.webhook_url and app is not None and port is not None:
            await serve_webhook(app, dp, bot, settings, port, updates, stop)
        else:
            await poll(app, dp, bot, settings, updates, stop)
        if watch.refused is not None:
            raise TokenRefused(watch.refused, not_found=False)
    finally:
        await dp.storage.close()
        await bot.session.close()
        await db.close()


def add_live_pages(app: web.Application, dp: Dispatcher, bot: Bot, settings: Settings,
                   token: str) -> None:
    """The Mini App's page and API (docs/development.md, "The live protocol") beside the webhook."""
    from bot.web.live import add_live

    add_live(app, live_runtime(dp, bot, token=token, max_age=settings.webapp_init_max_age,
                               base_url=settings.webapp_url))


def add_career_pages(app: web.Application, dp: Dispatcher, settings: Settings) -> None:
    """The career rating's public pages (``/top``, ``/player/{id}``) on the bot's server."""
    from bot.web.career import CareerPages, add_career

    add_career(app, CareerPages(db=dp["db"], career=dp["career"], standings=dp["standings"],
                                i18n=dp["i18n"], min_games=settings.top_min_games))


def live_runtime(dp: Dispatcher, bot: Bot, *, token: str, max_age: int,
                 base_url: str) -> LiveRuntime:
    """What the live protocol's pages talk to: the dispatcher's own database, publisher,
    catalog and standings, and the card's views, so a game saved there reads as one
    saved on the card."""
    from bot.web.runtime import LiveRuntime

    return LiveRuntime(
        bot=bot, db=dp["db"], publisher=dp["publisher"], i18n=dp["i18n"],
        standings=dp["standings"], token=token, max_age=max_age, base_url=base_url,
        views=NOTICES,
    )


async def poll(app: web.Application | None, dp: Dispatcher, bot: Bot, settings: Settings,
               updates: list[str], stop: asyncio.Event) -> None:
    """Long polling until SIGTERM, SIGINT or ``stop``, each update confirmed to Telegram
    once handled (``bot.telegram.polling``); the HTTP server beside it when WEB_PORT is set."""
    try:
        # Telegram refuses getUpdates while a webhook is set (back from webhook mode);
        # updates waiting for the webhook are kept and come by polling.
        await bot.delete_webhook(drop_pending_updates=False)
    except Exception as exc:  # polling itself retries the network
        log.warning("could not remove the webhook: %s", exc)
    runner = None
    if app is not None and settings.web_server_port is not None:
        from bot.web.server import start_server

        runner = await start_server(app, settings.web_host, settings.web_server_port)
    polling = Polling(dp, bot, allowed_updates=updates, settled=dp["dedup"].recorded)
    stopper = asyncio.create_task(_stop_polling_on(stop, polling))
    try:
        await polling.run()
    finally:
        stopper.cancel()
        if runner is not None:
            await runner.cleanup()


async def _stop_polling_on(stop: asyncio.Event, polling: Polling) -> None:
    await stop.wait()
    log.info("stopping")
    polling.stop()


async def serve_webhook(app: web.Application, dp: Dispatcher, bot: Bot, settings: Settings,
                        port: int, updates: list[str], stop: asyncio.Event) -> None:
    """Webhook mode until SIGTERM, SIGINT or ``stop``: the dispatcher's start-up and
    shutdown hooks run with the application's (aiogram's ``setup_application``)."""
    from bot.web.server import add_webhook, start_server

    secret = (settings.webhook_secret.get_secret_value() if settings.webhook_secret
              else secrets.token_urlsafe(32))
    add_webhook(app, dp, bot, path=settings.webhook_path, secret=secret)
    runner = await start_server(app, settings.web_host, port)
    try:
        # Once the server listens: Telegram posts what waited at once.
        await bot.set_webhook(settings.webhook_url, secret_token=secret,
                              allowed_updates=updates, drop_pending_updates=False)
        log.info("webhook set: %s", settings.webhook_url)
        await _stop_requested(stop)
        log.info("stopping")
    finally:
        # Stops listening, drains the updates being handled, then the shutdown hooks.
        await runner.cleanup()


async def _stop_requested(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT)
    for number in signals:
        loop.add_signal_handler(number, stop.set)
    try:
        await stop.wait()
    finally:
        for number in signals:
            loop.remove_signal_handler(number)
