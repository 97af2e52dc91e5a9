"""Errors that end an update's handling without being a fault of the bot.

A 403 (``TelegramForbiddenError``) means the chat is closed to the bot: the user
blocked it or never started it, or the bot was removed from the group. Whatever was
being answered can't be delivered, so the update is logged at INFO and counted as
handled, with no traceback. Where a notice to SOMEONE ELSE is sent in the middle of
a use case, the handler catches the error itself, so the rest still happens.

``Answered``: a filter (``handlers.filters``) refused the update, or offered a picker,
and has said so itself; the update ends there.
"""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.exceptions import TelegramForbiddenError
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import ErrorEvent

from handlers.filters import Answered

log = logging.getLogger(__name__)
router = Router(name="errors")


@router.errors(ExceptionTypeFilter(TelegramForbiddenError))
async def chat_closed_to_the_bot(event: ErrorEvent) -> None:
    error = event.exception
    assert isinstance(error, TelegramForbiddenError)
    log.info(
        "update %s: %s to chat %s refused (%s); nothing more to do",
        event.update.update_id,
        type(error.method).__name__,
        getattr(error.method, "chat_id", None),
        error.message,
    )


@router.errors(ExceptionTypeFilter(Answered))
async def answered_by_a_filter(event: ErrorEvent) -> None:
    """Nothing more to do: the sender has his answer."""
