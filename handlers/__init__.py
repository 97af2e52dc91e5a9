"""All the bot's routers, one per feature, assembled in the order they must match."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

from handlers import common


def setup_routers() -> Router:
    root = Router(name="root")
    # common goes last: its /start without a payload and its fallbacks must not
    # shadow the feature routers' more specific handlers.
    root.include_routers(common.router)
    return root


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
