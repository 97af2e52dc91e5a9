"""What a use case leaves to be told once the acting user has his answer: notices to
other people, each in its reader's language, and the group's outbox to post now.

The use case decides who is told what, in which language; the caller answers the
acting user first, then delivers the :class:`FollowUp` through ``bot.publishing.notices``
(which words each notice and attaches the caller's buttons where one asks for a
decision). The game use cases tell theirs through a ``GameTeller``
(``bot.services.games.Teller``), because what was sent is stored (an approval request's
messages, edited once it is decided: ``bot.services.game_save.approval_asked``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from bot.db import users
from bot.db.connection import Conn
from bot.services.phrases import DEFAULT_LOCALE, Person, Said, locale_for


@dataclass(frozen=True, slots=True)
class Notice:
    """A private message to someone other than the person acting: what is said, in the
    reader's ``locale`` (None: the current one; also the language of its buttons)."""

    chat_id: int
    said: Said
    locale: str | None = None


@dataclass(frozen=True, slots=True)
class FollowUp:
    notices: tuple[Notice, ...] = ()
    # The tournament whose outbox (filled in the use case's transaction) goes out now;
    # None: nothing to post.
    tournament_id: int | None = None
    now: bool = False


class Outbox(Protocol):
    """Where a use case records, in its transaction, what the tournament's group must
    be told (``bot.publishing.Publisher``). A ``note`` is said in the group's language,
    the tournament's, when it is recorded."""

    async def enqueue(
        self,
        conn: Conn,
        tournament_id: int,
        *,
        result: str | None = None,
        game_id: int | None = None,
        note: Said | None = None,
        standings: bool = False,
        final: bool = False,
        cut: int | None = None,
    ) -> None: ...


async def locale_of_user(conn: Conn, user_id: int | None) -> str:
    """The language someone is told things in: his own Telegram language, as last seen."""
    if user_id is None:
        return DEFAULT_LOCALE
    return locale_for(await users.get_user(conn, user_id))


async def notice_to(conn: Conn, user_id: int | None, said: Said) -> tuple[Notice, ...]:
    """A notice to ``user_id`` (none for nobody), said in his language."""
    if user_id is None:
        return ()
    return (Notice(user_id, said, await locale_of_user(conn, user_id)),)


async def person(conn: Conn, user_id: int) -> Person:
    """``user_id`` as notices and lists name him."""
    return Person(user_id, await users.get_user(conn, user_id))


async def people(conn: Conn, user_ids: Iterable[int]) -> dict[int, Person]:
    ids = list(user_ids)
    found = await users.get_users(conn, ids)
    return {uid: Person(uid, found.get(uid)) for uid in ids}
