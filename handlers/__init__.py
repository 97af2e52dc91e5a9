"""All the bot's routers, one per feature, assembled in the order they must match."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

from handlers import (
    backup,
    chat_events,
    common,
    errors,
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
            # A 403 from any handler below: logged at INFO, the update counted as handled.
            errors.router,
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


# (command, Russian description, English description): the menu follows the user's
# Telegram language like the texts do; Russian is the default.
PRIVATE_COMMANDS = (
    ("start", "Начать", "Start"),
    ("help", "Помощь", "Help"),
    ("cancel", "Отменить текущее действие", "Cancel the current action"),
    ("game", "Внести игру (судья)", "Enter a game (judge)"),
    ("games", "Игры турнира: исправить, аннулировать", "Games: correct or annul"),
    ("tournament", "Турнир: статус, старт, завершение", "Tournament: status, start, finish"),
    ("staff", "Судьи турнира", "The tournament's judges"),
    ("invite_judge", "Ссылка-приглашение судьи", "Invite link for a judge"),
    ("invite_players", "Ссылка для игроков", "Invite link for players"),
    ("roster", "Список игроков (ник в строке)", "Roster (one nickname a line)"),
    ("backup", "Копия базы данных", "Database backup"),
    ("rating", "Рейтинг и мои очки по играм", "Standings and my points by game"),
    ("protest", "Протест на игру (до 10 минут после)", "Protest a game (within 10 minutes)"),
    ("protests", "Открытые протесты (главный судья)", "Open protests (chief judge)"),
    ("lot", "Жребий для равных игроков (главный судья)", "Draw lots for ties (chief judge)"),
    ("export", "Выгрузка турнира: JSON, CSV, XLSX, протоколы", "Export: JSON, CSV, XLSX"),
    ("timezone", "Часовой пояс турнира (главный судья)", "The tournament's time zone (chief)"),
)
GROUP_COMMANDS = (
    ("help", "Помощь", "Help"),
    ("join", "Записаться: /join НИК", "Join: /join NICKNAME"),
    ("tournament", "Турнир", "Tournament"),
    ("staff", "Судьи турнира", "The tournament's judges"),
    ("new_tournament", "Создать турнир в этой группе", "Create a tournament in this group"),
    ("timezone", "Часовой пояс турнира", "The tournament's time zone"),
    ("rating", "Рейтинг: /rating all — все игроки", "Standings: /rating all for everyone"),
    ("protest", "Протест на игру (до 10 минут после)", "Protest a game (within 10 minutes)"),
)


async def set_commands(bot: Bot) -> None:
    """The command menus users see, in Russian and (for English users) in English."""
    for commands, scope in (
        (PRIVATE_COMMANDS, BotCommandScopeAllPrivateChats()),
        (GROUP_COMMANDS, BotCommandScopeAllGroupChats()),
    ):
        ru = [BotCommand(command=c, description=d) for c, d, _en in commands]
        en = [BotCommand(command=c, description=d) for c, _ru, d in commands]
        await bot.set_my_commands(ru, scope=scope)
        await bot.set_my_commands(en, scope=scope, language_code="en")
