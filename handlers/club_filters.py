"""Who may do what in a club: the group's club and the sender's role in it, from
``from_user.id`` against the club's staff on every update (``Database.cached``). A host
of another club is nobody here."""

from __future__ import annotations

from typing import Any, Literal

from aiogram.filters import BaseFilter
from aiogram.types import Message

from bot.services.clubs import NO_CLUB_HERE, ONLY_HOSTS, ONLY_OWNER, OWNER, club_and_role
from bot.services.records import Database
from handlers.filters import refuse


class ClubRole(BaseFilter):
    """Lets through the club's owner (``need="owner"``) or its owner and hosts
    (``"host"``), injecting ``club`` and ``club_role``; answers anyone else."""

    def __init__(self, need: Literal["owner", "host"] = "host") -> None:
        self.need = need

    async def __call__(self, message: Message, db: Database) -> dict[str, Any]:
        sender = 0 if message.from_user is None else message.from_user.id
        club, role = await club_and_role(db, message.chat.id, sender)
        if club is None:
            await refuse(message, NO_CLUB_HERE)
        if role is None or (self.need == "owner" and role != OWNER):
            await refuse(message, ONLY_OWNER if self.need == "owner" else ONLY_HOSTS)
        return {"club": club, "club_role": role}


ClubOwner = ClubRole("owner")
ClubHost = ClubRole("host")
