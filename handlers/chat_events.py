"""What happens to the tournament's group itself.

* ``my_chat_member``: the bot was removed from a group (left or kicked) — its
  tournaments are marked and their chief judges told privately, once; the bot was
  added back — the mark is cleared and what waited is published; the bot was made
  an admin — the standings message gets pinned.
* A group upgraded to a supergroup gets a new chat id: the service messages
  ``migrate_to_chat_id`` (in the old group) and ``migrate_from_chat_id`` (in the new
  one) move its tournaments, as FloodControl's ``on_migrate`` does on a send.
"""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import (
    IS_MEMBER,
    IS_NOT_MEMBER,
    PROMOTED_TRANSITION,
    ChatMemberUpdatedFilter,
)
from aiogram.types import ChatMemberUpdated, Message

from bot.publishing import Publisher

router = Router(name="chat_events")
router.my_chat_member.filter(F.chat.type.in_({"group", "supergroup"}))


@router.my_chat_member(ChatMemberUpdatedFilter(IS_MEMBER >> IS_NOT_MEMBER))
async def bot_removed(event: ChatMemberUpdated, bot: Bot, publisher: Publisher) -> None:
    await publisher.bot_removed(bot, event.chat.id)


@router.my_chat_member(ChatMemberUpdatedFilter(IS_NOT_MEMBER >> IS_MEMBER))
async def bot_added(event: ChatMemberUpdated, bot: Bot, publisher: Publisher) -> None:
    await publisher.bot_returned(bot, event.chat.id)


@router.my_chat_member(ChatMemberUpdatedFilter(PROMOTED_TRANSITION))
async def bot_promoted(event: ChatMemberUpdated, bot: Bot, publisher: Publisher) -> None:
    await publisher.bot_promoted(bot, event.chat.id)


@router.message(F.migrate_to_chat_id)
async def migrated_to(message: Message, publisher: Publisher) -> None:
    assert message.migrate_to_chat_id is not None
    await publisher.chat_migrated(message.chat.id, message.migrate_to_chat_id)


@router.message(F.migrate_from_chat_id)
async def migrated_from(message: Message, publisher: Publisher) -> None:
    assert message.migrate_from_chat_id is not None
    await publisher.chat_migrated(message.migrate_from_chat_id, message.chat.id)
