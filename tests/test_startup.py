"""The start's getMe (bot/telegram/startup.py) and the watch on Telegram's answers
(bot/telegram/watch.py), against the recording session: no network, no waiting."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramNetworkError, TelegramServerError
from aiogram.methods import GetMe

from bot.telegram.startup import TelegramUnreachable, TokenRefused, first_contact
from bot.telegram.watch import NOTE_EVERY, TelegramWatch
from tests.support import BOT_TOKEN, ApiError, RecordingSession

REFUSED = TelegramNetworkError(GetMe(), "ClientConnectorError: Cannot connect to host")


class Clock:
    """A clock the fake sleep moves: the back-off is asserted, never waited."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class Env:
    def __init__(self) -> None:
        self.clock = Clock()
        self.noted: list[datetime] = []
        self.refused = 0
        self.watch = TelegramWatch(self.noted.append, on_refused=self.refuse,
                                   clock=self.clock)
        self.session = RecordingSession()
        self.session.middleware(self.watch)
        self.bot = Bot(BOT_TOKEN, session=self.session)
        self.session.bind(self.bot)

    def refuse(self) -> None:
        self.refused += 1

    async def contact(self, wait: float = 30.0) -> str | None:
        me = await first_contact(self.bot, wait, sleep=self.clock.sleep, clock=self.clock)
        return me.username

    def asked(self) -> int:
        return sum(call.api_method == "getMe" for call in self.session.calls)


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    e = Env()
    yield e
    await e.session.close()


async def test_telegram_back_after_a_while_is_waited_for(env: Env) -> None:
    env.session.fail_next("getMe", REFUSED, times=3)
    env.session.fail_next("getMe", ApiError(502, "Bad Gateway"))
    assert await env.contact() == env.session.bot_username
    assert env.clock.slept == [1.0, 2.0, 4.0, 8.0] and env.asked() == 5
    # The start's answer is the first the health report hears of, noted at once.
    assert env.watch.last_ok == 15.0 and len(env.noted) == 1


async def test_telegram_out_of_reach_gives_up_after_the_wait(env: Env) -> None:
    env.session.fail_next("getMe", REFUSED, times=100)
    with pytest.raises(TelegramUnreachable) as gave_up:
        await env.contact()
    assert env.clock.slept == [1.0, 2.0, 4.0, 8.0, 15.0] and env.clock.now == 30.0
    assert "Cannot connect to host" in gave_up.value.cause
    assert env.watch.last_ok is None and env.noted == []

    with pytest.raises(TelegramUnreachable):  # TELEGRAM_START_WAIT=0: one try
        await env.contact(wait=0)
    assert env.clock.slept[5:] == []
    env.clock.slept.clear()
    with pytest.raises(TelegramUnreachable):  # a short wait cuts the back-off
        await env.contact(wait=2.5)
    assert env.clock.slept == [1.0, 1.5]


@pytest.mark.parametrize(("answer", "not_found"), [
    (ApiError(401, "Unauthorized"), False), (ApiError(404, "Not Found"), True)])
async def test_a_refused_token_gives_up_at_once(env: Env, answer: ApiError,
                                                not_found: bool) -> None:
    env.session.fail_next("getMe", answer)
    with pytest.raises(TokenRefused) as refused:
        await env.contact()
    assert refused.value.not_found is not_found and refused.value.cause == answer.description
    assert env.clock.slept == [] and env.asked() == 1
    assert env.refused == 0  # the start's refusal is raised, not a run to end


async def test_what_counts_as_an_answer(env: Env) -> None:
    await env.bot.get_me()
    assert env.watch.last_ok == 0.0
    env.clock.now = 100.0
    env.session.fail_next("sendMessage", ApiError(400, "Bad Request: chat not found"))
    with pytest.raises(Exception, match="chat not found"):
        await env.bot.send_message(7, "x")
    assert env.watch.last_ok == 100.0  # a refusal of the request: Telegram was reached
    env.clock.now = 200.0
    for error in (ApiError(502, "Bad Gateway"), REFUSED):
        env.session.fail_next("getMe", error)
        with pytest.raises((TelegramServerError, TelegramNetworkError)):
            await env.bot.get_me()
    assert env.watch.last_ok == 100.0 and env.watch.age() == 100.0
    # The lock file is told at most every NOTE_EVERY seconds.
    env.clock.now = 100.0 + NOTE_EVERY / 2
    await env.bot.get_me()
    assert len(env.noted) == 2
    env.clock.now = 100.0 + NOTE_EVERY
    await env.bot.get_me()
    assert len(env.noted) == 3


async def test_a_token_revoked_while_running_ends_the_run(env: Env) -> None:
    await env.bot.get_me()
    env.session.fail_next("getUpdates", ApiError(401, "Unauthorized"), times=2)
    for _ in range(2):
        with pytest.raises(Exception, match="Unauthorized"):
            await env.bot.get_updates()
    assert env.watch.refused == "Unauthorized" and env.refused == 1


async def test_a_quiet_webhook_bot_asks_telegram_now_and_then(env: Env) -> None:
    """Without polling nothing may be called for hours: getMe after a quiet spell."""
    watch = TelegramWatch(quiet=0.01)
    env.session.middleware(watch)
    await watch.start(env.bot)
    try:
        for _ in range(1000):
            if env.asked() >= 2:
                break
            await asyncio.sleep(0.01)
    finally:
        await watch.stop()
    assert env.asked() >= 2 and watch.last_ok is not None
