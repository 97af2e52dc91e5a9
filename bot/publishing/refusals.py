"""Which Bot API errors are worth trying again, and what a refusal means to a chief judge.

Posting to a group meets two kinds of errors. *Temporary* ones (429 after its
``retry_after``, 5xx, the network, timeouts) pass: the item is tried again with a
back-off. *Permanent* ones are Telegram's answer about that one item (a 400: no right to
send photos, a text too long, broken markup, the chat gone): sending it again changes
nothing, so the item is set aside and the rest goes on (``bot.publishing.posting``). A
403 stays what it was: the bot is out of the group (``chat_events.bot_removed``).

Each permanent refusal has a *cause*; the chief judge hears of each cause once, in plain
words with what fixes it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramEntityTooLarge,
    TelegramNotFound,
)
from aiogram.utils.i18n import gettext as _

# What the group missed, named by the list of what waits (``bot.services.set_aside``).
from bot.services.set_aside import FINAL_STANDINGS as FINAL_STANDINGS
from bot.services.set_aside import NOTE as NOTE
from bot.services.set_aside import PICTURE as PICTURE
from bot.services.set_aside import RESULT_LINE as RESULT_LINE
from bot.services.set_aside import SEATING as SEATING
from bot.services.set_aside import STANDINGS_MESSAGE as STANDINGS_MESSAGE
from bot.services.set_aside import what_of as what_of
from bot.texts.markup import html_text

PHOTOS = "photos"  # the group lets the bot send no photos
TEXTS = "texts"  # the group lets the bot send no messages
TOO_LONG = "too_long"  # a text over Telegram's limit, even when split
MARKUP = "markup"  # a text whose formatting Telegram can't parse
CHAT = "chat"  # the group is gone or can't be found
FILE = "file"  # a picture Telegram refused as a file
OTHER = "other"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Telegram refused an item for good: ``cause`` (one of the constants above) and
    Telegram's own words (``detail``)."""

    cause: str
    detail: str


_CAUSES = (
    (PHOTOS, ("rights to send photos", "chat_send_photos_forbidden",
              "chat_send_media_forbidden", "rights to send media")),
    (TEXTS, ("rights to send text", "chat_write_forbidden", "chat_send_plain_forbidden",
             "have no rights to send a message", "chat_restricted")),
    (TOO_LONG, ("too long", "message_too_long", "caption_too_long", "text is too long")),
    (MARKUP, ("can't parse entities", "can't find end of the entity", "unsupported start tag",
              "entities_too_long")),
    (CHAT, ("chat not found", "peer_id_invalid", "chat_id_invalid", "group chat was deactivated",
            "channel_private")),
    (FILE, ("photo_invalid", "image_process_failed", "wrong file", "file must be non-empty",
            "photo_ext_invalid", "photo_save_file_invalid", "request entity too large",
            "wrong type of the web page content", "failed to get http url content")),
)


def refusal(error: BaseException) -> Refusal | None:
    """The permanent refusal ``error`` is, or None when it may pass (try again).

    Only 400s (and Telegram's 404/413 for a chat or a file) are final: 429s, 5xx and
    network errors are not. Callers handle "message is not modified" and the
    cannot-edit family before, and a 403 as the bot being out of the group."""
    if not isinstance(error, TelegramBadRequest | TelegramNotFound | TelegramEntityTooLarge):
        return None
    detail = error.message
    text = detail.lower()
    if isinstance(error, TelegramEntityTooLarge):
        return Refusal(FILE, detail)
    for cause, marks in _CAUSES:
        if any(mark in text for mark in marks):
            return Refusal(cause, detail)
    return Refusal(OTHER, detail)


def explained(cause: str) -> tuple[str, str]:
    """(what went wrong, what fixes it) for a chief judge, in the current language."""
    if cause == PHOTOS:
        return (
            _("the group does not let me send photos"),
            _("In the group's settings give the bot the right to send photos (or make it an "
              "administrator)."),
        )
    if cause == TEXTS:
        return (
            _("the group does not let me send messages"),
            _("Make the bot an administrator of the group, or let members send messages."),
        )
    if cause == TOO_LONG:
        return (
            _("a text was too long for Telegram even when split"),
            _("Shorten what was typed (a note, a nickname); the rest goes out as usual."),
        )
    if cause == MARKUP:
        return (
            _("Telegram could not read a text's formatting"),
            _("Check the nicknames and notes for stray symbols; the rest goes out as usual."),
        )
    if cause == CHAT:
        return (
            _("Telegram cannot find the group"),
            _("Check that the group still exists and that the bot is in it."),
        )
    if cause == FILE:
        return (
            _("Telegram refused a picture"),
            _("Nothing to do in the group; the standings went out as text instead."),
        )
    return (
        _("Telegram refused a post"),
        _("Check the group's settings and the bot's rights in it."),
    )


Refused = dict[str, tuple[Refusal, str]]  # cause -> the first refusal of it, what it refused

_TAG = re.compile(r"<[^>]*>")


def plain_text(text: str) -> str:
    """An HTML text without its formatting, for a message sent without a parse mode."""
    return html.unescape(_TAG.sub("", text)) or "…"


def refusal_notice(title: str, what: str, cause: str, detail: str) -> str:
    """The chief judge's private message about one cause, in the current language."""
    reason, fix = explained(cause)
    return _(
        "⚠️ The group of «{title}» did not get {what}: {reason} (Telegram: {detail}).\n"
        "{fix}\n"
        "Everything else still goes out. What the group missed waits in /tournament: tap "
        "«Post again» there once it is fixed."
    ).format(title=html_text(title), what=_(what), reason=reason, detail=html_text(detail),
             fix=fix)
