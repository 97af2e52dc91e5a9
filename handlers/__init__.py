"""All the bot's routers, one per feature, assembled in the order they must match."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

from handlers import common


_root: Router | None = None


def setup_routers() -> Router:
    """The root router, built once: feature routers are module-level, as in aiogram."""
    global _root
    if _root is None:
        _root = Router(name="root")
        # common goes last: its /start without a payload and its fallbacks must not
        # shadow the feature routers' more specific handlers.
        _root.include_routers(common.router)
    # A new Dispatcher over the same routers (tests, an in-process restart) takes the
    # root over; aiogram has no public way to detach a router.
    _root._parent_router = None
    return _root


async def set_commands(bot: Bot) -> None:
    """The command menus users see (Russian, the bot's default language)."""
    private = [
        BotCommand(command="start", description="Начать"),
        BotCommand(command="help", description="Помощь"),
        BotCommand(command="cancel", description="Отменить текущее действие"),
    ]
    group = [BotCommand(command="help", description="Помощь")]
    await bot.set_my_commands(private, scope=BotCommandScopeAllPrivateChats())
    await bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats())
