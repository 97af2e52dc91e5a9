"""Where a message comes from: filters on the kind of chat and on conversation steps."""

from __future__ import annotations

from aiogram import Bot, F
from aiogram.types import Message

GROUP_TYPES = frozenset({"group", "supergroup"})
in_group = F.chat.type.in_(GROUP_TYPES)
in_private = F.chat.type == "private"


def is_group(message: Message) -> bool:
    return message.chat.type in GROUP_TYPES


async def replies_to_bot(message: Message, bot: Bot) -> bool:
    """In a group a conversation step must answer the bot's question: with privacy mode
    on that is all the bot receives, and as an admin it must not take chatter for input."""
    replied = message.reply_to_message
    return bool(replied and replied.from_user and replied.from_user.id == bot.id)


def is_conversation_text(message: Message) -> bool:
    """Plain text (commands such as /cancel belong to their own handlers)."""
    return bool(message.text) and not (message.text or "").startswith("/")
