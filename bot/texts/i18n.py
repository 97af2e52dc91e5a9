"""Translations through aiogram's gettext i18n.

Message ids in the code are English; Russian is the default language and English is
used for users whose Telegram language is English. Catalogs are read straight from the
`.po` files, so there is no compiled `.mo` to forget or to get out of date.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from aiogram.types import Chat, TelegramObject
from aiogram.utils.i18n import I18n, I18nMiddleware
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.config import LOCALES
from bot.db import tournaments
from bot.db.connection import Database

# Who reads which language is decided beside the users, where the use cases see it too.
from bot.db.users import DEFAULT_LOCALE as DEFAULT_LOCALE
from bot.db.users import Speaker as Speaker
from bot.db.users import locale_for as locale_for
from bot.db.users import locale_of_code as locale_of_code

DOMAIN = "messages"


class PoI18n(I18n):
    """aiogram's I18n, loading every `<lang>/LC_MESSAGES/messages.po` in memory.

    A language's folder may hold further `*.po` files beside `messages.po` (one per
    feature); their entries join the same catalog.
    """

    def find_locales(self) -> dict[str, gettext.GNUTranslations]:
        translations: dict[str, gettext.GNUTranslations] = {}
        for po_path in sorted(self.path.glob(f"*/LC_MESSAGES/{self.domain}.po")):
            catalog = read_catalog(po_path.parent, locale=po_path.parent.parent.name)
            buffer = io.BytesIO()
            write_mo(buffer, catalog)
            buffer.seek(0)
            translations[po_path.parent.parent.name] = gettext.GNUTranslations(buffer)
        return translations

    @contextmanager
    def context(self) -> Generator[I18n, None, None]:
        # aiogram's gettext() looks up I18n's own context variable; a subclass gets a
        # variable of its own (ContextInstanceMixin), so register under I18n's.
        token = I18n.set_current(self)
        try:
            yield self
        finally:
            I18n.reset_current(token)


def read_catalog(folder: Path, locale: str | None = None, domain: str = DOMAIN) -> Catalog:
    """`<domain>.po` of one language's folder, with the entries of its other `*.po` files."""
    with (folder / f"{domain}.po").open("rb") as fp:
        catalog = read_po(fp, locale=locale)
    for extra in sorted(folder.glob("*.po")):
        if extra.stem == domain:
            continue
        with extra.open("rb") as fp:
            for message in read_po(fp, locale=locale):
                if message.id:
                    catalog[message.id] = message
    return catalog


def N_(msgid: str) -> str:
    """Mark an English message id for the catalogs (``make messages``) without
    translating it: it is translated where it is shown, in the reader's language."""
    return msgid


GROUP_CHATS = frozenset({"group", "supergroup"})


class UserLocaleMiddleware(I18nMiddleware):
    """A private chat reads the user's Telegram language; a group reads the language of
    its tournament (everything the bot posts there, replies included, is in it). A group
    without a tournament reads the sender's language.

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
        return await db.cached(
            ("chat_language", chat_id), partial(tournaments.chat_language, chat_id=chat_id)
        )


def create_i18n(path: Path = LOCALES) -> PoI18n:
    return PoI18n(path=path, default_locale=DEFAULT_LOCALE, domain=DOMAIN)


@contextmanager
def use_language(i18n: I18n, locale: str | None) -> Iterator[None]:
    """Texts in ``locale`` (the default language if None) outside a handler: a group's
    posts, a chief judge's private note."""
    with i18n.context(), i18n.use_locale(locale or DEFAULT_LOCALE):
        yield


@contextmanager
def caller_language(i18n: I18n | None = None) -> Iterator[None]:
    """The caller's translations (a handler's user); without any (the shell, a
    background task), ``i18n`` (else the bot's catalogs) in the default language."""
    if I18n.get_current(no_error=True) is not None:
        yield
        return
    with use_language(i18n or create_i18n(), None):
        yield
