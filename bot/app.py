"""Building and running the bot: one place that wires settings, storage and routers."""

from __future__ import annotations

import gc
import logging

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.fsm.storage.base import DefaultKeyBuilder
from aiogram.fsm.storage.memory import SimpleEventIsolation

import handlers
from bot.aiogram_models import pin_response_types
from bot.api_retry import ApiRetry
from bot.background import Background
from bot.config import Settings
from bot.db.connection import Database
from bot.flood import FloodControl, FloodLimits, MigrateCallback
from bot.fsm_storage import SQLiteStorage
from bot.i18n import UserLocaleMiddleware, create_i18n
from bot.middlewares.dedup import DedupMiddleware
from bot.middlewares.identity import IdentityMiddleware
from bot.middlewares.inflight import InFlightMiddleware
from bot.middlewares.users import UsersMiddleware
from bot.publishing import Publisher
from bot.standings import StandingsService

log = logging.getLogger(__name__)


def create_bot(
    token: str,
    api_url: str = "",
    *,
    on_migrate: MigrateCallback | None = None,
    flood_limits: FloodLimits | None = None,
) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url)) if api_url else None
    bot = Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    # Outermost: 5xx and network errors are tried again (each retry queues anew below).
    bot.session.middleware(ApiRetry())
    # Every outgoing call passes Telegram's flood limits (README, "Reliability and speed");
    # it queues, never drops.
    # A group upgraded to a supergroup: its tournaments follow (Publisher.chat_migrated).
    bot.session.middleware(FloodControl(flood_limits, on_migrate=on_migrate))
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
    i18n = create_i18n(settings.locales_path)
    dp["i18n"] = i18n
    publisher = Publisher(db, standings, debounce=settings.standings_debounce, i18n=i18n)
    dp["publisher"] = publisher
    # What a previous run left in the outbox goes out once polling starts...
    dp.startup.register(publisher.resume)
    # ...and debounced standings still waiting are published before the bot stops.
    dp.shutdown.register(publisher.close)
    dedup = DedupMiddleware(db)
    dp.update.outer_middleware(dedup)
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


async def run(settings: Settings, token: str) -> None:
    db = await Database.open(settings.database_path)
    dp = build_dispatcher(db, settings)
    bot = create_bot(
        token,
        settings.telegram_api_url,
        on_migrate=dp["publisher"].chat_migrated,
        flood_limits=FloodLimits().scaled(settings.flood_scale),
    )
    prepare_runtime()
    try:
        try:
            await handlers.set_commands(bot, dp["i18n"])
        except Exception as exc:  # the menu is a convenience; polling retries the network
            log.warning("could not set the command menu: %s", exc)
        log.info("bot started; database %s", settings.database_path)
        # my_chat_member tells us who blocked the bot and when it leaves a group.
        updates = sorted({*dp.resolve_used_update_types(), "my_chat_member"})
        await dp.start_polling(bot, allowed_updates=updates)
    finally:
        await dp.storage.close()
        await bot.session.close()
        await db.close()
