"""Translations through aiogram's gettext i18n.

Message ids in the code are English; Russian is the default language and English is
used for users whose Telegram language is English. Catalogs are read straight from the
`.po` files, so there is no compiled `.mo` to forget or to get out of date. Which
language an update is answered in: ``bot.telegram.middlewares.locale``.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from aiogram.utils.i18n import I18n
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.config import LOCALES

# Who reads which language is decided where the use cases choose whom to tell.
from bot.services.phrases import DEFAULT_LOCALE as DEFAULT_LOCALE
from bot.services.phrases import Speaker as Speaker
from bot.services.phrases import locale_for as locale_for
from bot.services.phrases import locale_of_code as locale_of_code

DOMAIN = "messages"


class PoI18n(I18n):
    """aiogram's I18n, loading every `<lang>/LC_MESSAGES/messages.po` in memory.

    A language's folder may hold further `*.po` files beside `messages.po` (one per
    feature); their entries join the same catalog.
    """

    def find_locales(self) -> dict[str, gettext.GNUTranslations]:
        translations: dict[str, gettext.GNUTranslations] = {}
        for po_path in sorted(self.path.glob(f"*/LC_MESSAGES/{self.domain}.po")):
            locale = po_path.parent.parent.name
            stamp = _stamp(po_path.parent)
            translations[locale] = _translations(po_path.parent, locale, self.domain, stamp)
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


def _stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """What the catalogs of one language's folder are now: a changed file is read anew."""
    return tuple(
        (po.name, po.stat().st_mtime_ns, po.stat().st_size) for po in sorted(folder.glob("*.po"))
    )


@lru_cache(maxsize=32)
def _translations(
    folder: Path, locale: str, domain: str, stamp: tuple[tuple[str, int, int], ...]
) -> gettext.GNUTranslations:
    """One language's translations, shared by every I18n of the process (they are only
    read), while the files' ``stamp`` stays the same."""
    return gettext.GNUTranslations(io.BytesIO(_compiled(folder, locale, domain, stamp)))


@lru_cache(maxsize=32)
def _compiled(
    folder: Path, locale: str, domain: str, stamp: tuple[tuple[str, int, int], ...]
) -> bytes:
    """One language's catalog as `.mo` bytes. Parsing the `.po` files takes ~50 ms, and a
    process builds its I18n more than once (each Dispatcher, the CLI), so the bytes are
    kept while the files' ``stamp`` stays the same."""
    buffer = io.BytesIO()
    write_mo(buffer, read_catalog(folder, locale=locale, domain=domain))
    return buffer.getvalue()


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
