"""Who may do what in a club: the group's club and the sender's role in it, from
``from_user.id`` against the club's staff on every update (``Database.cached``). A host
of another club is nobody here. A command's group is its chat; a button's, the chat of
the message it is under.

As ``handlers.filters`` does for tournaments, a filter that lets the update through
injects what it found (``club``, ``club_role``); one that doesn't answers the sender
(a reply to a command, a toast to a tap) and ends the update: no use case runs."""

from __future__ import annotations

from typing import Any, Literal

from aiogram.filters import BaseFilter
from aiogram.types import CallbackQuery, Message

from bot.services.clubs import NO_CLUB_HERE, ONLY_HOSTS, ONLY_OWNER, OWNER, club_and_role
from bot.services.records import Database
from handlers.filters import refuse


class ClubRole(BaseFilter):
    """Lets through the club's owner (``need="owner"``) or its owner and hosts
    (``"host"``), injecting ``club`` and ``club_role``; answers anyone else."""

    def __init__(self, need: Literal["owner", "host"] = "host") -> None:
        self.need = need

    async def __call__(self, event: Message | CallbackQuery, db: Database) -> dict[str, Any]:
        if isinstance(event, CallbackQuery):
            chat = None if event.message is None else event.message.chat.id
        else:
            chat = event.chat.id
        sender = 0 if event.from_user is None else event.from_user.id
        club, role = (None, None) if chat is None else await club_and_role(db, chat, sender)
        if club is None:
            await refuse(event, NO_CLUB_HERE)
        if role is None or (self.need == "owner" and role != OWNER):
            await refuse(event, ONLY_OWNER if self.need == "owner" else ONLY_HOSTS)
        return {"club": club, "club_role": role}


ClubOwner = ClubRole("owner")
ClubHost = ClubRole("host")
