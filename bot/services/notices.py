"""What a use case leaves to be sent once the acting user has his answer: notices to
other people (each in its reader's language) and the group's outbox.

The use case decides who is told what; the handler answers the acting user first, then
runs the :class:`FollowUp`, attaching the buttons (its callback data) where a notice
asks for a decision. The game use cases (``bot.services.games``) send theirs themselves
after the handler's ``acknowledge``, because they store what was sent (an approval
request's messages, edited once it is decided); they send through ``send`` too, so a
notice that can't arrive is handled in one place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError
from aiogram.types import InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n

from bot.db import users
from bot.db.connection import Conn
from bot.texts.i18n import DEFAULT_LOCALE, locale_for

if TYPE_CHECKING:  # the publisher's own notices (bot.publishing) are sent from here too
    from bot.publishing import Publisher

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Notice:
    """A private message to someone other than the person acting."""

    chat_id: int
    text: str
    locale: str | None = None  # the reader's (its text is in it), for the buttons under it
    markup: InlineKeyboardMarkup | None = None  # its own buttons, made in its language


# Buttons under every notice: the same ones, or made for each in its reader's language.
Markup = InlineKeyboardMarkup | Callable[[], InlineKeyboardMarkup] | None


@dataclass(frozen=True, slots=True)
class FollowUp:
    notices: tuple[Notice, ...] = ()
    # The tournament whose outbox (filled in the use case's transaction) goes out now.
    publisher: Publisher | None = None
    tournament_id: int = 0
    now: bool = False

    async def run(self, bot: Bot, markup: Markup = None) -> int:
        """Send the notices (``markup`` under each), then publish; how many arrived."""
        delivered = await deliver(bot, self.notices, markup)
        if self.publisher is not None:
            await self.publisher.publish(bot, self.tournament_id, now=self.now)
        return delivered


async def deliver(bot: Bot, notices: Iterable[Notice], markup: Markup = None) -> int:
    """Send each notice; one that can't arrive (he never started the bot, blocked it) is
    logged and the rest still go. Returns how many arrived."""
    sent = [await send(bot, notice, markup) for notice in notices]
    return sum(message is not None for message in sent)


async def send(bot: Bot, notice: Notice, markup: Markup = None) -> Message | None:
    """One notice, with its own buttons or ``markup``; None when it can't arrive."""
    try:
        buttons = notice.markup or _buttons(markup, notice.locale)
        return await bot.send_message(notice.chat_id, notice.text, reply_markup=buttons)
    except TelegramForbiddenError as exc:  # blocked the bot, or never started it
        log.info("notice to %s not delivered: %s", notice.chat_id, exc)
    except TelegramAPIError as exc:
        log.warning("notice to %s not delivered: %s", notice.chat_id, exc)
    return None


def _buttons(markup: Markup, locale: str | None) -> InlineKeyboardMarkup | None:
    if not callable(markup):
        return markup
    i18n = I18n.get_current(no_error=True)
    if locale is None or i18n is None:
        return markup()
    with i18n.use_locale(locale):
        return markup()


async def locale_of_user(conn: Conn, user_id: int | None) -> str:
    """The language someone is told things in: his own Telegram language, as last seen."""
    if user_id is None:
        return DEFAULT_LOCALE
    return locale_for(await users.get_user(conn, user_id))


async def notice_to(
    conn: Conn, i18n: I18n, user_id: int | None, text: Callable[[], str]
) -> tuple[Notice, ...]:
    """A notice to ``user_id`` (none for nobody) with ``text()`` written in his language."""
    if user_id is None:
        return ()
    locale = await locale_of_user(conn, user_id)
    with i18n.use_locale(locale):
        return (Notice(user_id, text(), locale),)
