"""The language of ``python -m bot``'s own lines: Russian when the shell's locale is
Russian, English otherwise.

The first of ``LANGUAGE`` (its first entry), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
that is set decides, as gettext reads them: ``ru_RU.UTF-8`` or ``ru`` gives Russian,
anything else (a server's ``C.UTF-8``, a systemd unit with none) English. The texts
come from the bot's own catalogs (locales/ru/LC_MESSAGES/cli.po). What the bot logs,
and the JSON of ``check``, stay English: they are read by tools as much as by people.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache

_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def shell_locale(environ: Mapping[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    for name in _VARIABLES:
        value = environ.get(name, "").split(":")[0].strip()
        if value:
            return "ru" if value.lower().startswith("ru") else "en"
    return "en"


@cache
def _translations(locale: str) -> gettext.NullTranslations:
    if locale == "en":  # the message ids are English
        return gettext.NullTranslations()
    # The catalogs are read only when needed, and without aiogram (the shell's commands
    # never load it).
    from bot.config import LOCALES
    from bot.texts.catalogs import DOMAIN, stamp, translations

    folder = LOCALES / locale / "LC_MESSAGES"
    if not (folder / f"{DOMAIN}.po").is_file():
        return gettext.NullTranslations()
    return translations(folder, locale, DOMAIN, stamp(folder))


def _(singular: str, plural: str | None = None, n: int = 1) -> str:
    """As aiogram's ``_``: ``_(text)``, or ``_(one, many, n)`` for a plural."""
    translations = _translations(shell_locale())
    if plural is None:
        return translations.gettext(singular)
    return translations.ngettext(singular, plural, n)
