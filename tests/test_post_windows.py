"""A crash while the group and the players are being told never repeats a post that
Telegram had already taken, except in the unavoidable window between Telegram's answer
and the commit that follows it (docs/development.md, "Reliability and speed").

The crash is simulated at every request of a round's posts (its result, the standings
message and its pin, the round's picture, the next round's seating as text and picture,
each player's seat): the process dies as the request is made, which is the latest
moment before it at which everything the bot does after the previous answer (its marks
included) has been committed. A new process then posts what the outbox still holds, and
every post must have reached Telegram exactly once.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot
from aiogram.methods import (
    EditMessageText,
    PinChatMessage,
    SendMediaGroup,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)

from bot.db import games, outbox
from bot.db.connection import Database
from bot.publishing import Publisher
from bot.reads.standings import StandingsService
from bot.services.seating_rounds import round_saved
from tests.support import BotHarness
from tests.support.seating_fixtures import CHAT, I18N, accept_plan, save_quietly, seated_world

POSTS = (SendMessage, SendPhoto, SendMediaGroup, PinChatMessage, EditMessageText)


class Killed(BaseException):
    """kill -9: nothing after it runs, nothing is caught."""


def key(method: TelegramMethod[Any]) -> tuple[str, Any, str]:
    """What makes a post itself: its kind, its chat and its text or file."""
    name = type(method).__name__
    chat = getattr(method, "chat_id", None)
    photo = getattr(method, "photo", None)
    what = getattr(method, "text", None) or getattr(photo, "filename", None) or ""
    return name, chat, what


async def round_1_ends(tmp_path: Path, harness: BotHarness, db: Database) -> tuple[int, Path]:
    """Round 1 of an accepted plan is saved; its result, the standings, its picture and
    round 2's seating (group and players) wait in the outbox. The database is copied
    as it stands: the tournament's id and the copy."""
    t = await seated_world(db)
    plan = await accept_plan(harness, t)  # round 1's posts go out here
    await save_quietly(db, t, plan, 1, 1)
    await save_quietly(db, t, plan, 1, 2)
    async with db.transaction() as conn:
        last = max(g.id for g in await games.list_games(conn, t.id))
        await outbox.enqueue(conn, t.id, result="Round 1, table 2: red win.", game_id=last)
        await round_saved(conn, t.id, 1)
    copy = tmp_path / "round-1-ends.sqlite3"
    await db.backup(copy)
    return t.id, copy


async def post_all(bot: Bot, db: Database, tournament_id: int) -> None:
    """What a freshly started bot does with the outbox: post it all."""
    publisher = Publisher(db, StandingsService(db), debounce=0, i18n=I18N)
    await publisher.publish(bot, tournament_id, now=True)
    await publisher.close()


def killing_at(n: int) -> Callable[..., Awaitable[Any]]:
    """A session middleware under which the bot dies as it makes its ``n``-th post."""
    seen = 0

    async def middleware(make_request: Any, bot: Bot, method: TelegramMethod[Any]) -> Any:
        nonlocal seen
        if isinstance(method, POSTS):
            seen += 1
            if seen == n:
                raise Killed
        return await make_request(bot, method)

    return middleware


async def test_a_crash_at_any_post_repeats_no_post(
    tmp_path: Path, harness: BotHarness, db: Database
) -> None:
    tournament_id, saved = await round_1_ends(tmp_path, harness, db)
    harness.session.clear()
    await post_all(harness.bot, db, tournament_id)  # without a crash: the reference
    reference = [key(m) for m in harness.session.delivered if isinstance(m, POSTS)]
    kinds = Counter(name for name, _chat, _what in reference)
    assert kinds["SendPhoto"] == 2  # the round's picture and round 2's seating
    assert kinds["PinChatMessage"] == 1 and kinds["SendMessage"] > 10  # players' seats
    # A crash at each group post, at the first seat and at the last.
    group = [i for i, (_n, chat, _w) in enumerate(reference, start=1) if chat == CHAT]
    points = [*group, len(group) + 2, len(reference)]
    for n in points:
        copy = tmp_path / f"crash-{n}.sqlite3"
        shutil.copy(saved, copy)
        crashed = await Database.open(copy)
        try:
            harness.session.clear()
            killer = killing_at(n)
            harness.session.middleware(killer)
            with pytest.raises(Killed):
                await post_all(harness.bot, crashed, tournament_id)
            harness.session.middleware.unregister(killer)
            await post_all(harness.bot, crashed, tournament_id)  # the restart
            delivered = [key(m) for m in harness.session.delivered if isinstance(m, POSTS)]
            # The pin is no post: one the crash cut off is not made again.
            assert sorted(k for k in delivered if k[0] != "PinChatMessage") == sorted(
                k for k in reference if k[0] != "PinChatMessage"
            ), f"crash at post {n}"
            assert Counter(k[0] for k in delivered)["PinChatMessage"] <= 1
            async with crashed.read() as conn:
                assert await outbox.pending(conn, tournament_id) == []
        finally:
            await crashed.close()
