"""How people, players and tournaments are named in the bot's texts (HTML, escaped with
the stdlib's ``html.escape``)."""

from __future__ import annotations

import html
import re
from typing import Protocol

from aiogram.utils.i18n import gettext as _

from bot.texts.markup import html_text


class Titled(Protocol):
    """A tournament as its name is shown (``bot.db.tournaments.TournamentRow``)."""

    @property
    def title(self) -> str: ...


class Person(Protocol):
    """A stored profile as a name is shown (``bot.db.users.UserRow``)."""

    @property
    def first_name(self) -> str: ...

    @property
    def username(self) -> str | None: ...


def quoted_title(tournament: Titled) -> str:
    return quoted(tournament.title)


def quoted(title: str) -> str:
    """A tournament's title, in quotes."""
    return "«" + html_text(title) + "»"


def nick(nickname: str) -> str:
    """A player's nickname, in bold."""
    return "<b>" + html_text(nickname) + "</b>"


def display_name(user: Person | None, user_id: int) -> str:
    """A person as the staff list and notices show him."""
    if user is None or not user.first_name:
        return _("user {id}").format(id=user_id)
    name = html_text(user.first_name)
    if user.username:
        name += " (@" + html_text(user.username) + ")"
    return name


def plain(text: str) -> str:
    """HTML text as a callback answer shows it (no markup there)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))
