"""The language an update is answered in (aiogram's ``I18nMiddleware``): a private chat
reads the user's Telegram language, a group the language of its tournament.

It lives with the other middlewares, not in ``bot.texts``: it reads the database, and
what people read knows no repositories.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from aiogram.types import Chat, TelegramObject
from aiogram.utils.i18n import I18nMiddleware

from bot.db import clubs, tournaments
from bot.db.connection import Conn, Database
from bot.texts.i18n import locale_for

GROUP_CHATS = frozenset({"group", "supergroup"})


class UserLocaleMiddleware(I18nMiddleware):
    """A private chat reads the user's Telegram language; a group reads the language of
    its tournament (everything the bot posts there, replies included, is in it), else of
    its club. A group without either reads the sender's language.

    The group's language is read from the database once and kept until the database
    changes (``Database.changes``: any committed transaction, so a language chosen,
    a tournament created or a group migrated is seen at the next update).
    """

    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        chat: Chat | None = data.get("event_chat")
        db = data.get("db")
        if chat is not None and chat.type in GROUP_CHATS and db is not None:
            language = await self.group_language(db, chat.id)
            if language is not None:
                return language
        return locale_for(data.get("event_from_user"))

    async def group_language(self, db: Database, chat_id: int) -> str | None:
        return await db.cached(("chat_language", chat_id), partial(_language, chat_id=chat_id))


async def _language(conn: Conn, *, chat_id: int) -> str | None:
    """The group's tournament's language, else its club's."""
    return await tournaments.chat_language(conn, chat_id) or await clubs.club_language(
        conn, chat_id
    )
