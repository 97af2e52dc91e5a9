"""All the bot's routers, one per feature, assembled in the order they must match; and
the command menus."""

from __future__ import annotations

from functools import cache

from aiogram import Bot, Dispatcher, Router
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats
from aiogram.utils.i18n import I18n

from bot.telegram.sync_filters import inline_sync_filters
from bot.texts.i18n import DEFAULT_LOCALE, create_i18n
from handlers import (
    access,
    backup,
    career,
    chat_events,
    clubs,
    common,
    errors,
    evening_play,
    evenings,
    exports,
    game_entry,
    lots,
    players,
    protests,
    rating,
    seating,
    staff,
    stage_card,
    stages,
    tournaments,
)


@cache
def _root() -> Router:
    """The feature routers under one root: built once, as they are module-level."""
    root = Router(name="root")
    # common goes last: its /start without a payload and its fallbacks must not
    # shadow the feature routers' more specific handlers.
    root.include_routers(
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
        career.router,
        protests.router,
        lots.router,
        evening_play.router,
        seating.router,
        stages.router,
        stage_card.router,
        clubs.router,
        evenings.router,
        backup.router,
        common.router,
    )
    # Who may use which command and button, and where (handlers.access): before any
    # filter, so that a refused update reaches no handler of any router.
    root.message.outer_middleware(access.AccessMiddleware())
    root.callback_query.outer_middleware(access.AccessMiddleware())
    # Magic filters (F.chat.type == ...) run here, not each in a worker thread.
    inline_sync_filters(root)
    return root


def setup_routers(dp: Dispatcher) -> None:
    """Route ``dp``'s updates through every feature router.

    aiogram links a router to one parent for good, and the feature routers are
    module-level (its decorators need them at import), while a process may build
    several Dispatchers (the tests, an in-process restart). So the one root of the
    process is *listed* among each Dispatcher's routers (what ``include_router`` does
    besides linking the parent) and linked to none. Everything a Dispatcher gives its
    routers reaches it: workflow data, outer middlewares (all of the bot's), startup
    and shutdown hooks, ``resolve_used_update_types``. An *inner* middleware registered
    on a Dispatcher would not (aiogram collects those along ``chain_head``, which ends
    at the root): register such a one on the root above.
    """
    dp.sub_routers.append(_root())


async def set_commands(bot: Bot, i18n: I18n | None = None) -> None:
    """The command menus users see: in the default language (Russian), and in each other
    language of the catalogs for users whose Telegram language it is (English)."""
    i18n = i18n or create_i18n()
    others = sorted(set(i18n.available_locales) - {DEFAULT_LOCALE})
    # The menus come from the access table (handlers.access): one home for every command.
    for commands, scope in (
        (access.menu("private"), BotCommandScopeAllPrivateChats()),
        (access.menu("group"), BotCommandScopeAllGroupChats()),
    ):
        for locale in (DEFAULT_LOCALE, *others):
            menu = [
                BotCommand(command=command, description=i18n.gettext(text, locale=locale))
                for command, text in commands
            ]
            code = None if locale == DEFAULT_LOCALE else locale
            await bot.set_my_commands(menu, scope=scope, language_code=code)
