"""The bot's translations read straight from the `.po` files, with no aiogram: its I18n
(bot.texts.i18n) and the shell's own lines (bot.texts.shell_language) share them."""

from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DOMAIN = "messages"


def stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """What the catalogs of one language's folder are now: a changed file is read anew."""
    return tuple(
        (po.name, po.stat().st_mtime_ns, po.stat().st_size) for po in sorted(folder.glob("*.po"))
    )


@lru_cache(maxsize=32)
def translations(
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
