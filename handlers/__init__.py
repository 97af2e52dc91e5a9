"""All the bot's routers, one per feature, assembled in the order they must match."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

from handlers import (
    backup,
    chat_events,
    common,
    exports,
    game_entry,
    lots,
    players,
    protests,
    rating,
    staff,
    tournaments,
)

_root: Router | None = None


def setup_routers() -> Router:
    """The root router, built once: feature routers are module-level, as in aiogram."""
    global _root
    if _root is None:
        _root = Router(name="root")
        # common goes last: its /start without a payload and its fallbacks must not
        # shadow the feature routers' more specific handlers.
        _root.include_routers(
            # The group's own events (bot removed, group migrated) before anything else.
            chat_events.router,
            # The judge's game card: its commands, state-filtered text and g* buttons.
            game_entry.router,
            # Deep-link /start handlers (invites) live in staff and players: before common.
            tournaments.router,
            staff.router,
            players.router,
            exports.router,  # its /rating image before the rating router's /rating
            rating.router,
            protests.router,
            lots.router,
            backup.router,
            common.router,
        )
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
        BotCommand(command="game", description="Внести игру (судья)"),
        BotCommand(command="games", description="Игры турнира: исправить, аннулировать"),
        BotCommand(command="tournament", description="Турнир: статус, старт, завершение"),
        BotCommand(command="staff", description="Судьи турнира"),
        BotCommand(command="invite_judge", description="Ссылка-приглашение судьи"),
        BotCommand(command="invite_players", description="Ссылка для игроков"),
        BotCommand(command="roster", description="Список игроков (ник в строке)"),
        BotCommand(command="backup", description="Копия базы данных"),
        BotCommand(command="rating", description="Рейтинг и мои очки по играм"),
        BotCommand(command="protest", description="Протест на игру (до 10 минут после)"),
        BotCommand(command="protests", description="Открытые протесты (главный судья)"),
        BotCommand(command="lot", description="Жребий для равных игроков (главный судья)"),
        BotCommand(command="export", description="Выгрузка турнира: JSON, CSV, XLSX, протоколы"),
    ]
    group = [
        BotCommand(command="help", description="Помощь"),
        BotCommand(command="join", description="Записаться: /join НИК"),
        BotCommand(command="tournament", description="Турнир"),
        BotCommand(command="staff", description="Судьи турнира"),
        BotCommand(command="new_tournament", description="Создать турнир в этой группе"),
        BotCommand(command="rating", description="Рейтинг: /rating all — все игроки"),
        BotCommand(command="protest", description="Протест на игру (до 10 минут после)"),
    ]
    await bot.set_my_commands(private, scope=BotCommandScopeAllPrivateChats())
    await bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats())
