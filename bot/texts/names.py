"""How people, players and tournaments are named in the bot's texts (HTML, escaped with
the stdlib's ``html.escape``)."""

from __future__ import annotations

import html
import re

from aiogram.utils.i18n import gettext as _

from bot.db import users
from bot.db.connection import Conn
from bot.db.tournaments import TournamentRow
from bot.db.users import UserRow
from bot.texts.markup import html_text


def quoted_title(tournament: TournamentRow) -> str:
    return quoted(tournament.title)


def quoted(title: str) -> str:
    """A tournament's title, in quotes."""
    return "«" + html_text(title) + "»"


def nick(nickname: str) -> str:
    """A player's nickname, in bold."""
    return "<b>" + html_text(nickname) + "</b>"


def display_name(user: UserRow | None, user_id: int) -> str:
    """A person as the staff list and notices show him."""
    if user is None or not user.first_name:
        return _("user {id}").format(id=user_id)
    name = html_text(user.first_name)
    if user.username:
        name += " (@" + html_text(user.username) + ")"
    return name


async def names_of(conn: Conn, user_ids: list[int]) -> dict[int, str]:
    found = await users.get_users(conn, user_ids)
    return {uid: display_name(found.get(uid), uid) for uid in user_ids}


async def name_of(conn: Conn, user_id: int) -> str:
    return (await names_of(conn, [user_id]))[user_id]


def plain(text: str) -> str:
    """HTML text as a callback answer shows it (no markup there)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))
