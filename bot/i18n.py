"""Translations through aiogram's gettext i18n.

Message ids in the code are English; Russian is the default language and English is
used for users whose Telegram language is English. Catalogs are read straight from the
`.po` files, so there is no compiled `.mo` to forget or to get out of date.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aiogram.types import TelegramObject, User
from aiogram.utils.i18n import I18n, I18nMiddleware
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DEFAULT_LOCALE = "ru"
DOMAIN = "messages"


class PoI18n(I18n):
    """aiogram's I18n, loading every `<lang>/LC_MESSAGES/messages.po` in memory."""

    def find_locales(self) -> dict[str, gettext.GNUTranslations]:
        translations: dict[str, gettext.GNUTranslations] = {}
        for po_path in sorted(self.path.glob(f"*/LC_MESSAGES/{self.domain}.po")):
            with po_path.open("rb") as fp:
                catalog = read_po(fp, locale=po_path.parent.parent.name)
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


def locale_for(user: User | None) -> str:
    """English for English-speaking users, Russian for everyone else."""
    code = (user.language_code or "") if user else ""
    return "en" if code.lower().startswith("en") else DEFAULT_LOCALE


class UserLocaleMiddleware(I18nMiddleware):
    async def get_locale(self, event: TelegramObject, data: dict[str, Any]) -> str:
        return locale_for(data.get("event_from_user"))


def create_i18n(path: Path) -> PoI18n:
    return PoI18n(path=path, default_locale=DEFAULT_LOCALE, domain=DOMAIN)
