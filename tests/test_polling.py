"""The polling loop (bot/telegram/polling.py) against the fake Bot API server over HTTP: an
update is confirmed to Telegram (a getUpdates with an offset past it) only once it is
handled, updates of different users are handled at once, an update Telegram sends
again meanwhile is handled once, and the loop does not ask again and again while it
holds the offset back.

Each handler here says "started" in its chat and then waits for its gate, which the
test opens; the counts of getUpdates are exact because the loop's ``recheck`` (how
long it waits for a handler before asking anyway) is longer than any test.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiogram import Bot, Dispatcher, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.fsm.storage.memory import SimpleEventIsolation
from aiogram.types import Message
from aiogram.utils.backoff import BackoffConfig

from bot.telegram.polling import Polling
from tests.e2e.fake_telegram import ApiRequest, Chat, FakeTelegram, User

# Longer than any test: the loop asks again only when a handler is done.
NEVER = 60.0
QUICK = BackoffConfig(min_delay=0.01, max_delay=0.02, factor=1.5, jitter=0.0)


@dataclass
class Handlers:
    """A dispatcher whose handler waits for its message's gate."""

    gates: defaultdict[str, asyncio.Event] = field(
        default_factory=lambda: defaultdict(asyncio.Event))
    started: list[str] = field(default_factory=list)
    handled: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)

    def dispatcher(self, fake: FakeTelegram) -> Dispatcher:
        dp = Dispatcher(events_isolation=SimpleEventIsolation())  # as bot.app's
        router = Router()

        @router.message()
        async def handle(message: Message) -> None:
            text = message.text or ""
            self.started.append(text)
            await message.answer(f"started {text}")
            await self.gates[text].wait()
            if text == "boom":
                raise RuntimeError("the handler failed")
            self.handled.append(text)

        async def startup() -> None:
            self.hooks.append(f"startup after {len(fake.calls('getUpdates'))} polls")

        async def shutdown() -> None:
            self.hooks.append("shutdown")

        dp.startup.register(startup)
        dp.shutdown.register(shutdown)
        dp.include_router(router)
        return dp


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    bot = Bot(fake.token, session=AiohttpSession(api=TelegramAPIServer.from_base(fake.base_url)))
    try:
        yield bot
    finally:
        await bot.session.close()


def person(fake: FakeTelegram, name: str) -> tuple[User, Chat]:
    user = fake.create_user(name)
    return user, fake.start_private(user)


def polls(fake: FakeTelegram) -> list[ApiRequest]:
    return fake.calls("getUpdates")


def offsets(fake: FakeTelegram) -> list[int | None]:
    return [r.params.get("offset") for r in polls(fake)]


async def answered_polls(fake: FakeTelegram, count: int) -> None:
    """Wait until the loop has made `count` getUpdates and had the answers."""
    await fake.wait_until(lambda: len(polls(fake)) >= count
                          and all(r.response is not None for r in polls(fake)),
                          what=f"{count} answered getUpdates")


async def test_an_update_is_confirmed_once_handled_and_handled_once(
        fake: FakeTelegram, bot: Bot) -> None:
    h = Handlers()
    anna, anna_chat = person(fake, "Anna")
    boris, boris_chat = person(fake, "Boris")
    fake.send_text(anna, anna_chat, "a1")
    fake.send_text(boris, boris_chat, "b1")
    fake.send_text(anna, anna_chat, "a2")
    a1_id, b1_id, a2_id = (u["update_id"] for u in fake.pending_updates)
    polling = Polling(h.dispatcher(fake), bot, recheck=NEVER, handle_signals=False)
    running = asyncio.create_task(polling.run())

    # Anna's first message and Boris's are handled at once; Anna's second waits for
    # her first (one user's updates one after the other).
    await fake.wait_for_message(anna_chat, "started a1")
    await fake.wait_for_message(boris_chat, "started b1")
    assert sorted(h.started) == ["a1", "b1"] and h.hooks == ["startup after 0 polls"]
    # The batch, then once more: the three came back and nothing new; then it waits.
    await answered_polls(fake, 2)
    assert offsets(fake) == [None, a1_id]

    # Boris's is done: the loop asks again, still from Anna's first, which is not done;
    # Boris's comes back once more and is not handled again.
    h.gates["b1"].set()
    await answered_polls(fake, 3)
    assert h.handled == ["b1"] and fake.delivery_count(b1_id) == 3
    assert offsets(fake) == [None, a1_id, a1_id]
    assert [u["update_id"] for u in fake.pending_updates] == [a1_id, b1_id, a2_id]

    # Anna's first is done: confirmed with Boris's; her second is handled now, and
    # confirmed once it is done. Each was handled once, asked for five times in all.
    h.gates["a1"].set()
    await fake.wait_for_message(anna_chat, "started a2")
    await answered_polls(fake, 4)
    assert offsets(fake)[3] == a2_id
    h.gates["a2"].set()
    await fake.wait_until(lambda: not fake.pending_updates, what="all confirmed")
    assert h.handled == ["b1", "a1", "a2"]
    assert offsets(fake) == [None, a1_id, a1_id, a2_id, a2_id + 1]
    assert [fake.delivery_count(i) for i in (a1_id, b1_id, a2_id)] == [3, 3, 4]

    polling.stop()
    await running
    assert h.hooks[-1] == "shutdown"
    assert len(polls(fake)) == 5


async def test_a_new_update_comes_while_the_offset_is_held_back(
        fake: FakeTelegram, bot: Bot) -> None:
    """Nothing done for a while: the loop still asks again (after ``recheck``) and so
    gets what came meanwhile, without confirming the update in hand."""
    h = Handlers()
    anna, anna_chat = person(fake, "Anna")
    boris, boris_chat = person(fake, "Boris")
    fake.send_text(anna, anna_chat, "a1")
    [a1_id] = [u["update_id"] for u in fake.pending_updates]
    polling = Polling(h.dispatcher(fake), bot, recheck=0.01, handle_signals=False)
    running = asyncio.create_task(polling.run())
    await fake.wait_for_message(anna_chat, "started a1")
    fake.send_text(boris, boris_chat, "b1")
    await fake.wait_for_message(boris_chat, "started b1")
    assert h.handled == [] and len(fake.pending_updates) == 2
    assert set(offsets(fake)) == {None, a1_id}
    h.gates["a1"].set()
    h.gates["b1"].set()
    await fake.wait_until(lambda: not fake.pending_updates, what="both confirmed")
    assert sorted(h.handled) == ["a1", "b1"]
    polling.stop()
    await running


async def test_an_update_stays_unconfirmed_until_settled(fake: FakeTelegram, bot: Bot) -> None:
    """``settled`` (the dedup middleware's ``recorded`` in the bot) holds the offset
    back after the handler returned."""
    h = Handlers()
    h.gates["a1"].set()
    anna, chat = person(fake, "Anna")
    fake.send_text(anna, chat, "a1")
    [a1_id] = [u["update_id"] for u in fake.pending_updates]
    written = asyncio.Event()
    asked: list[int] = []

    async def settled(update_id: int) -> None:
        asked.append(update_id)
        await written.wait()

    polling = Polling(h.dispatcher(fake), bot, settled=settled, recheck=NEVER,
                      handle_signals=False)
    running = asyncio.create_task(polling.run())
    await fake.wait_until(lambda: asked, what="the handler done")
    await answered_polls(fake, 2)
    assert h.handled == ["a1"] and offsets(fake) == [None, a1_id]
    assert [u["update_id"] for u in fake.pending_updates] == [a1_id]

    written.set()
    await fake.wait_until(lambda: not fake.pending_updates, what="a1 confirmed")
    assert offsets(fake) == [None, a1_id, a1_id + 1] and asked == [a1_id]
    polling.stop()
    await running


async def test_errors_are_logged_and_polling_goes_on(
        fake: FakeTelegram, bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    """A failed getUpdates is tried again after aiogram's back-off, logged; a handler
    that fails is logged and its update counts as handled (as with aiogram's polling)."""
    caplog.set_level(logging.INFO, logger="bot.telegram.polling")
    h = Handlers()
    h.gates["boom"].set()
    h.gates["after"].set()
    anna, chat = person(fake, "Anna")
    fake.inject_error("getUpdates", error_code=502, description="Bad Gateway", times=2)
    fake.send_text(anna, chat, "boom")
    fake.send_text(anna, chat, "after")
    polling = Polling(h.dispatcher(fake), bot, recheck=NEVER, backoff=QUICK,
                      handle_signals=False)
    running = asyncio.create_task(polling.run())
    await fake.wait_until(lambda: not fake.pending_updates, what="both confirmed")
    polling.stop()
    await running
    assert h.started == ["boom", "after"] and h.handled == ["after"]
    logged = [r.getMessage() for r in caplog.records]
    assert sum("Failed to fetch updates - TelegramServerError" in m for m in logged) == 2
    assert any(m.startswith("Connection established") for m in logged)
    assert any("update id=" in m and "the handler failed" in m for m in logged)
