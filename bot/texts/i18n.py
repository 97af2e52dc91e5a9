"""Translations through aiogram's gettext i18n.

Message ids in the code are English; Russian is the default language and English is
used for users whose Telegram language is English. Catalogs are read straight from the
`.po` files, so there is no compiled `.mo` to forget or to get out of date. Which
language an update is answered in: ``bot.telegram.middlewares.locale``.
"""

from __future__ import annotations

import gettext
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path

from aiogram.utils.i18n import I18n

from bot.config import LOCALES

# Who reads which language is decided where the use cases choose whom to tell.
from bot.services.phrases import DEFAULT_LOCALE as DEFAULT_LOCALE
from bot.services.phrases import Speaker as Speaker
from bot.services.phrases import locale_for as locale_for
from bot.services.phrases import locale_of_code as locale_of_code
from bot.texts.catalogs import DOMAIN as DOMAIN
from bot.texts.catalogs import read_catalog as read_catalog
from bot.texts.catalogs import stamp, translations


class PoI18n(I18n):
    """aiogram's I18n, loading every `<lang>/LC_MESSAGES/messages.po` in memory.

    A language's folder may hold further `*.po` files beside `messages.po` (one per
    feature); their entries join the same catalog.
    """

    def find_locales(self) -> dict[str, gettext.GNUTranslations]:
        found: dict[str, gettext.GNUTranslations] = {}
        for po_path in sorted(self.path.glob(f"*/LC_MESSAGES/{self.domain}.po")):
            locale = po_path.parent.parent.name
            found[locale] = translations(po_path.parent, locale, self.domain,
                                         stamp(po_path.parent))
        return found

    @contextmanager
    def context(self) -> Generator[I18n, None, None]:
        # aiogram's gettext() looks up I18n's own context variable; a subclass gets a
        # variable of its own (ContextInstanceMixin), so register under I18n's.
        token = I18n.set_current(self)
        try:
            yield self
        finally:
            I18n.reset_current(token)


def N_(msgid: str) -> str:
    """Mark an English message id for the catalogs (``make messages``) without
    translating it: it is translated where it is shown, in the reader's language."""
    return msgid


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
