"""Who is really speaking: no one acts through an anonymous admin or a forwarded command.

Roles are always checked from ``from_user.id`` against our tables. A group's anonymous
admin (the "GroupAnonymousBot" account) or a channel speaking in the group hides the
real person, and a forwarded message carries someone else's words, so a command from
either is refused in one line and never reaches a handler. Plain text from them is
group noise and is ignored silently.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import Message, TelegramObject
from aiogram.utils.i18n import gettext as _

# Telegram's service accounts that stand in for a hidden sender.
ANONYMOUS_ADMIN_ID = 1087968824
CHANNEL_BOT_ID = 136817688
HIDDEN_SENDERS = frozenset({ANONYMOUS_ADMIN_ID, CHANNEL_BOT_ID})


def is_command(message: Message) -> bool:
    return bool(message.text and message.text.startswith("/"))


def hidden_sender(message: Message) -> bool:
    user = message.from_user
    return user is None or user.id in HIDDEN_SENDERS or message.sender_chat is not None


class IdentityMiddleware(BaseMiddleware):
    """Outer middleware on ``dp.message`` (after the i18n middleware)."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Message):
            return await handler(event, data)
        if hidden_sender(event):
            if is_command(event):
                await event.reply(
                    _(
                        "I can't tell who sent this: anonymous admins and channels can't "
                        "give commands. Turn off \"Remain anonymous\" and send it again."
                    )
                )
            return None
        if event.forward_origin is not None and is_command(event):
            await event.reply(
                _("A forwarded command acts for no one. Send the command yourself.")
            )
            return None
        return await handler(event, data)
