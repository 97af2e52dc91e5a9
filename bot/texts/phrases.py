"""What the use cases say (``bot.services.phrases``: a message id and its parameters),
in words: ``say`` translates a phrase in the reader's language and shows each of its
parameters as the bot's texts show it. A :class:`~bot.services.Refusal` is said so too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.services.phrases import (
    Clock,
    Command,
    Joined,
    Nick,
    Person,
    Phrase,
    ProtestNote,
    Said,
    StageName,
    Title,
    Verbatim,
)
from bot.texts.i18n import caller_language
from bot.texts.live_words import command_text
from bot.texts.localtime import clock
from bot.texts.markup import html_text
from bot.texts.names import display_name, nick, quoted
from bot.texts.rating_format import protest_note
from bot.texts.standings_text import stage_name


def say(said: Said, locale: str | None = None) -> str:
    """``said`` in words (HTML), in ``locale`` (None: the current one)."""
    if isinstance(said, str):  # worded already
        return said
    with spoken(locale):
        return str(_words(said))


def params_of(phrase: Phrase) -> dict[str, object]:
    """A phrase's parameters as it shows them, in the current locale, for a caller that
    keeps its message id to translate later (the judge's card note)."""
    return {key: _words(value) for key, value in phrase.params.items()}


@contextmanager
def spoken(locale: str | None) -> Iterator[None]:
    """Texts in ``locale`` (None: the current one) through the current translations: a
    handler's, a web request's; the bot's own where there are none (the shell)."""
    with caller_language():
        if locale is None:
            yield
            return
        with I18n.get_current(no_error=False).use_locale(locale):
            yield


def _words(value: object) -> object:
    """A phrase's parameter as shown; a plain value (a number) as it is, for ``format``."""
    match value:
        case Phrase(msgid, params):
            return _(msgid).format(**{key: _words(v) for key, v in params.items()})
        case Joined(parts, sep):
            return sep.join(str(_words(part)) for part in parts)
        case Verbatim(text):
            return html_text(text)
        case Title(title):
            return quoted(title)
        case Nick(nickname):
            return nick(nickname)
        case StageName(name):
            return html_text(stage_name(name))
        case Clock(at, tz, near):
            return clock(at, tz, near)
        case Person(user_id, user):
            return display_name(user, user_id)
        case ProtestNote(protest_id, status):
            return protest_note(protest_id, status)
        case Command(command):
            return command_text(command)
    return value
