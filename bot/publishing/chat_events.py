"""The tournament's group moves or goes away: upgraded to a supergroup, the bot removed,
added back, made an admin (``handlers.chat_events`` and the posting's own errors)."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.db import staff, tournaments, users
from bot.db.audit import audit
from bot.db.connection import Database
from bot.db.tournaments import CHIEF
from bot.publishing.notices import deliver
from bot.services.notices import Notice
from bot.texts.i18n import locale_for, use_language
from bot.texts.markup import html_text

log = logging.getLogger(__name__)


async def pin_quietly(bot: Bot, chat_id: int, message_id: int) -> None:
    """Pin the standings message if the bot may; it is still posted if it may not."""
    try:
        await bot.pin_chat_message(chat_id, message_id, disable_notification=True)
    except (TelegramBadRequest, TelegramForbiddenError) as error:
        log.info("standings message not pinned in chat %s: %s", chat_id, error)


class ChatEvents:
    """:param republish: brings a tournament's group up to date (the bot is back)."""

    def __init__(
        self, db: Database, i18n: I18n, *, republish: Callable[[Bot, int], Awaitable[None]]
    ) -> None:
        self._db = db
        self._i18n = i18n
        self._republish = republish

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup with a new id: its tournaments follow it.

        Also FloodControl's ``on_migrate``; calling it twice is harmless. The old
        standings message belongs to the old chat, so the next change posts a new one.
        """
        try:
            async with self._db.transaction() as conn:
                moved = await tournaments.tournaments_for_chat(conn, old_chat_id)
                if not moved:
                    return
                await tournaments.migrate_chat(conn, old_chat_id, new_chat_id)
                for t in moved:
                    await tournaments.set_standings_message(conn, t.id, None, None)
                    await audit(
                        conn,
                        action="tournament.chat_migrated",
                        entity="tournament",
                        entity_id=t.id,
                        tournament_id=t.id,
                        before={"chat_id": old_chat_id},
                        after={"chat_id": new_chat_id},
                    )
        except sqlite3.IntegrityError:
            log.error("chat %s migrated to %s, which has a tournament", old_chat_id, new_chat_id)
            return
        log.info("tournaments %s moved from chat %s to %s", [t.id for t in moved],
                 old_chat_id, new_chat_id)

    async def bot_removed(self, bot: Bot, chat_id: int) -> None:
        """The bot left or was kicked from ``chat_id``: mark its tournaments and tell
        their chief judges privately, once (until the bot is added back)."""
        async with self._db.transaction() as conn:
            found = await tournaments.tournaments_for_chat(conn, chat_id)
            newly = [t for t in found if not t.bot_removed and t.status != "finished"]
            await tournaments.set_bot_removed(conn, chat_id, True)
            for t in newly:
                await audit(
                    conn,
                    action="tournament.bot_removed",
                    entity="tournament",
                    entity_id=t.id,
                    tournament_id=t.id,
                    before={"bot_removed": False},
                    after={"bot_removed": True},
                )
            chiefs = {t.id: await staff.list_staff(conn, t.id, role=CHIEF) for t in newly}
            profiles = await users.get_users(
                conn, [s.user_id for rows in chiefs.values() for s in rows]
            )
        if newly:
            log.warning("bot removed from chat %s (tournaments %s)", chat_id,
                        [t.id for t in newly])
        notices = []
        for t in newly:
            for chief in chiefs[t.id]:
                locale = locale_for(profiles.get(chief.user_id))
                with use_language(self._i18n, locale):
                    text = _(
                        "I was removed from the group of the tournament «{title}», so results "
                        "and standings are not posted there any more. Nothing is lost: games "
                        "are still saved. Add me back to the group to continue."
                    ).format(title=html_text(t.title))
                notices.append(Notice(chief.user_id, text, locale))
        await deliver(bot, notices)

    async def bot_returned(self, bot: Bot, chat_id: int) -> None:
        """The bot is back in ``chat_id``: clear the mark and publish what waited."""
        async with self._db.transaction() as conn:
            found = await tournaments.tournaments_for_chat(conn, chat_id)
            await tournaments.set_bot_removed(conn, chat_id, False)
            for t in found:
                if t.bot_removed:
                    await audit(
                        conn,
                        action="tournament.bot_returned",
                        entity="tournament",
                        entity_id=t.id,
                        tournament_id=t.id,
                        before={"bot_removed": True},
                        after={"bot_removed": False},
                    )
        for t in found:
            if t.status != "finished":
                await self._republish(bot, t.id)

    async def bot_promoted(self, bot: Bot, chat_id: int) -> None:
        """The bot became an admin of ``chat_id``: pin the standings message now."""
        async with self._db.read() as conn:
            tournament = await tournaments.running_tournament_for_chat(conn, chat_id)
        if tournament is not None and tournament.standings_message_id is not None:
            await pin_quietly(bot, chat_id, tournament.standings_message_id)
