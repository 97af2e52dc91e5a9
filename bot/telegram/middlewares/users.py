"""Keep our users table in step with what Telegram tells us about each sender.

It records names (for staff lists and mentions), the language, and whether the user
can be messaged privately (he has started the bot). Writes happen only when something
changed, so a busy judge's taps cost no database write each.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import ChatMemberUpdated, Message, TelegramObject, User

from bot.db import users
from bot.db.connection import Database

_Seen = tuple[str, str | None, str | None, bool | None]


class UsersMiddleware(BaseMiddleware):
    """Outer middleware on ``dp.update``; needs ``data["db"]``."""

    def __init__(self, cache_size: int = 10_000) -> None:
        self._seen: dict[int, _Seen] = {}
        self._cache_size = cache_size

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        user: User | None = data.get("event_from_user")
        if user is not None and not user.is_bot:
            await self._remember(data["db"], user, self._can_message(event, user))
        return await handler(event, data)

    @staticmethod
    def _can_message(event: TelegramObject, user: User) -> bool | None:
        update_event = getattr(event, "event", None)
        if isinstance(update_event, Message) and update_event.chat.id == user.id:
            return True  # he writes to the bot privately, so the bot may write back
        if isinstance(update_event, ChatMemberUpdated) and update_event.chat.id == user.id:
            return update_event.new_chat_member.status not in ("kicked", "left")
        return None

    async def _remember(self, db: Database, user: User, can_message: bool | None) -> None:
        seen: _Seen = (user.first_name, user.username, user.language_code, can_message)
        old = self._seen.get(user.id)
        unchanged = old is not None and old[:3] == seen[:3]
        if unchanged and (can_message is None or (old is not None and old[3] == can_message)):
            return
        async with db.transaction() as conn:
            row = await users.upsert_user(
                conn,
                user.id,
                first_name=user.first_name,
                username=user.username,
                language_code=user.language_code,
                can_message=can_message,
            )
        if len(self._seen) >= self._cache_size:
            self._seen.clear()
        self._seen[user.id] = (*seen[:3], row.can_message)
