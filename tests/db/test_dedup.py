"""The dedup middleware with a real Dispatcher: a redelivered update runs its handler once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from aiogram import Bot, Dispatcher, Router
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.types import Chat, Message, Update, User

from bot.db import Database
from bot.db.updates import is_processed, mark_processed, prune_processed
from bot.telegram.background import Background
from bot.telegram.middlewares import DedupMiddleware


def update(update_id: int, text: str = "hello") -> Update:
    return Update(
        update_id=update_id,
        message=Message(
            message_id=update_id,
            date=datetime.now(UTC),
            chat=Chat(id=5, type="private"),
            from_user=User(id=5, is_bot=False, first_name="Ann"),
            text=text,
        ),
    )


@pytest.fixture
async def bot() -> AsyncIterator[Bot]:
    bot = Bot("42:TEST")  # no request is made: the handlers send nothing
    try:
        yield bot
    finally:
        await bot.session.close()


def dispatcher(db: Database, calls: list[int], *, via_data: bool = False) -> Dispatcher:
    """A dispatcher whose ``dp["dedup"]`` is its middleware (``drain()`` it before
    looking at the database: records are written after the handler, in the background)."""
    router = Router()

    @router.message()
    async def handle(message: Message) -> None:
        async with db.read() as conn:
            # Recorded only after the handler: not yet while it runs.
            assert not await is_processed(conn, message.message_id)
        calls.append(message.message_id)
        if message.text == "boom":
            raise RuntimeError("handler failed")

    middleware = DedupMiddleware() if via_data else DedupMiddleware(db)
    dp = Dispatcher(db=db) if via_data else Dispatcher()
    dp.update.outer_middleware(middleware)
    dp["dedup"] = middleware
    dp.include_router(router)
    return dp


@pytest.mark.parametrize("via_data", [False, True])
async def test_same_update_twice_runs_once(db: Database, bot: Bot, via_data: bool) -> None:
    calls: list[int] = []
    dp = dispatcher(db, calls, via_data=via_data)
    await dp.feed_update(bot, update(1))
    await dp.feed_update(bot, update(1))
    await dp.feed_update(bot, update(2))
    assert calls == [1, 2]
    await dp["dedup"].drain()
    async with db.read() as conn:
        assert await is_processed(conn, 1) and await is_processed(conn, 2)


async def test_a_failed_update_is_recorded_too(db: Database, bot: Bot) -> None:
    calls: list[int] = []
    dp = dispatcher(db, calls)
    with pytest.raises(RuntimeError):
        await dp.feed_update(bot, update(3, "boom"))
    await dp.feed_update(bot, update(3, "boom"))  # skipped: no second exception
    assert calls == [3]


async def test_survives_a_restart(tmp_path: object, bot: Bot) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "bot.db"
    db = await Database.open(path)
    calls: list[int] = []
    dp = dispatcher(db, calls)
    await dp.feed_update(bot, update(4))
    await dp["dedup"].drain()
    await db.close()
    db = await Database.open(path)
    try:
        await dispatcher(db, calls).feed_update(bot, update(4))
    finally:
        await db.close()
    assert calls == [4]


async def test_only_ids_from_before_the_start_are_looked_up(tmp_path: object, bot: Bot) -> None:
    """After a restart the database answers for ids up to the last one recorded; newer
    ids (and ids of this run) never cost a query."""
    from pathlib import Path

    path = Path(str(tmp_path)) / "bot.db"
    db = await Database.open(path)
    calls: list[int] = []
    dp = dispatcher(db, calls)
    for n in (10, 11, 12):
        await dp.feed_update(bot, update(n))
    await dp["dedup"].drain()
    await db.close()
    db = await Database.open(path)
    queries: list[str] = []
    try:
        await db._conn.set_trace_callback(queries.append)
        dp = dispatcher(db, calls)
        for n in (11, 12, 13, 13, 14):  # 11 and 12 redelivered, 13 twice, then 14
            await dp.feed_update(bot, update(n))
        await db._conn.set_trace_callback(None)
        await dp["dedup"].drain()
    finally:
        await db.close()
    assert calls == [10, 11, 12, 13, 14]
    lookups = [int(q.rsplit("=", 1)[1]) for q in queries
               if "FROM processed_updates WHERE update_id" in q]
    # The middleware asked about 11 and 12; 13 and 14 were asked once each by the
    # handler itself (its own check above), never by the middleware.
    assert lookups == [11, 12, 13, 14]


async def test_prune_keeps_a_week(db: Database) -> None:
    now = datetime(2025, 5, 10, tzinfo=UTC)
    async with db.transaction() as conn:
        await mark_processed(conn, 1, now=now - timedelta(days=8))
        await mark_processed(conn, 2, now=now - timedelta(days=6))
        await mark_processed(conn, 2, now=now)  # again: no error
        assert await prune_processed(conn, now=now) == 1
        assert not await is_processed(conn, 1)
        assert await is_processed(conn, 2)


async def test_an_update_counts_as_processed_once_what_it_left_running_is_done(
    db: Database, bot: Bot
) -> None:
    """A card's edit goes out after its handler returned (bot.telegram.background): until it is
    out, a crash must leave the update to be delivered again, so it is not recorded."""
    background = Background()
    edit_sent = asyncio.Event()

    async def send_card_later() -> None:
        await edit_sent.wait()

    router = Router()

    @router.message()
    async def handle(message: Message) -> None:
        background.spawn(send_card_later(), name="card")

    middleware = DedupMiddleware(db)
    dp = Dispatcher()
    dp.update.outer_middleware(middleware)
    dp.include_router(router)

    await dp.feed_update(bot, update(41))
    await asyncio.sleep(0.05)
    async with db.read() as conn:
        assert not await is_processed(conn, 41)  # the edit is still on its way
    assert await dp.feed_update(bot, update(41)) is UNHANDLED  # this process will send it

    edit_sent.set()
    await background.join()
    await middleware.drain()
    async with db.read() as conn:
        assert await is_processed(conn, 41)


async def test_recorded_returns_once_the_record_is_written(db: Database, bot: Bot) -> None:
    """What the polling loop waits for before it confirms an update to Telegram
    (bot/telegram/polling.py): the record, written after what the handler left running."""
    background = Background()
    edit_sent = asyncio.Event()

    async def send_card_later() -> None:
        await edit_sent.wait()

    router = Router()

    @router.message()
    async def handle(message: Message) -> None:
        background.spawn(send_card_later(), name="card")

    middleware = DedupMiddleware(db)
    dp = Dispatcher()
    dp.update.outer_middleware(middleware)
    dp.include_router(router)

    await middleware.recorded(51)  # not fed: nothing to wait for
    await dp.feed_update(bot, update(51))
    recorded = asyncio.create_task(middleware.recorded(51))
    await asyncio.wait({recorded}, timeout=0.05)
    assert not recorded.done()  # the card's edit is still on its way

    edit_sent.set()
    await recorded
    async with db.read() as conn:
        assert await is_processed(conn, 51)
    assert await dp.feed_update(bot, update(51)) is UNHANDLED
    await middleware.recorded(51)  # skipped as handled: at once
    await middleware.drain()
