"""bot.flood.FloodControl against a RecordingSession that enforces Telegram's limits.

Limits are scaled down (``time_scale`` / ``FloodLimits.scaled``) so "20 per minute"
takes about a second. ``limit_hits == 0`` and ``violations == 0`` mean the server never
had to answer 429 and no request was retried before its ``retry_after`` expired.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Awaitable
from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    GetChatMember,
    GetMe,
    GetUpdates,
    SendChatAction,
    SendMediaGroup,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.types import InputMediaPhoto

from bot.flood import FloodControl, FloodLimits, counts_toward_limits
from tests.support import ApiError, Limits, RecordingSession

EPS = 1e-6


def make_bot(
    scale: float | None = 0.02,
    *,
    flood_limits: FloodLimits | None = None,
    latency: Any = 0.0,
    clock: Any = time.monotonic,
    **flood_kwargs: Any,
) -> tuple[Bot, RecordingSession, FloodControl]:
    """A bot whose session enforces Telegram's limits scaled by ``scale`` (None: no
    server limits), with FloodControl installed using the same scaled limits."""
    session = RecordingSession(
        limits=Limits(time_scale=scale) if scale is not None else None,
        latency=latency,
        clock=clock,
    )
    limits = flood_limits or FloodLimits().scaled(scale or 1.0)
    flood = FloodControl(limits, clock=clock, **flood_kwargs)
    session.middleware(flood)
    return Bot("42:TEST", session=session), session, flood


async def timed(awaitable: Awaitable[Any]) -> tuple[Any, float]:
    start = time.monotonic()
    result = await awaitable
    return result, time.monotonic() - start


def arrivals(session: RecordingSession, chat_id: int) -> list[float]:
    return [c.at for c in session.calls if c.ok and getattr(c.method, "chat_id", None) == chat_id]


def assert_clean(session: RecordingSession) -> None:
    assert session.limit_hits == 0, "the server had to answer 429"
    assert session.violations == 0, "a request was retried before retry_after passed"


async def test_group_burst_is_queued_spaced_and_ordered() -> None:
    bot, session, _ = make_bot(0.02)  # group: 20 per 1.2 s, chat: 1 per 20 ms
    texts = [f"announcement {i}" for i in range(30)]

    _, elapsed = await timed(asyncio.gather(*(bot.send_message(-100, t) for t in texts)))

    assert_clean(session)
    assert session.sent_texts(-100) == texts
    assert len(session.requests) == 30  # no retries needed
    at = arrivals(session, -100)
    assert all(b - a >= 0.02 - EPS for a, b in itertools.pairwise(at))
    assert all(at[i + 20] - at[i] >= 1.2 - EPS for i in range(10))
    assert 1.2 <= elapsed < 4


async def test_without_flood_control_the_same_burst_hits_429() -> None:
    session = RecordingSession(limits=Limits(time_scale=0.02))
    bot = Bot("42:TEST", session=session)
    results = await asyncio.gather(
        *(bot.send_message(-100, str(i)) for i in range(30)), return_exceptions=True
    )
    assert any(isinstance(r, TelegramRetryAfter) for r in results)
    assert session.limit_hits > 0


async def test_chats_are_not_serialised_behind_each_other() -> None:
    bot, session, _ = make_bot(0.2, latency=0.005)  # 1 message per 0.2 s per chat
    chats = range(1001, 1011)

    _, elapsed = await timed(
        asyncio.gather(*(bot.send_message(c, f"{c}:{i}") for i in range(3) for c in chats))
    )

    assert_clean(session)
    for c in chats:
        assert session.sent_texts(c) == [f"{c}:{i}" for i in range(3)]
    # Each chat needs >= 0.4 s; one after another would take >= 4 s.
    assert 0.4 <= elapsed < 1.5


async def test_retry_after_is_waited_out_without_blocking_other_chats() -> None:
    bot, session, flood = make_bot(0.02)
    session.fail_next("sendMessage", ApiError.flood(1), chat_id=1)

    first = asyncio.create_task(timed(bot.send_message(1, "first")))
    second = asyncio.create_task(timed(bot.send_message(1, "second")))
    other = asyncio.create_task(timed(bot.send_message(2, "other chat")))

    _, other_elapsed = await other
    assert other_elapsed < 0.3
    (message, first_elapsed), (_, second_elapsed) = await first, await second
    assert message.text == "first"
    assert first_elapsed >= 1.0
    assert second_elapsed >= first_elapsed  # queued behind, not sent into the 429
    assert session.sent_texts(1) == ["first", "second"]  # delivered once, in order
    assert len(session.requests_of(SendMessage)) == 4  # one failed attempt + 3
    assert session.violations == 0
    assert flood.stats.retried == 1


async def test_retry_after_on_unqueued_methods_is_retried() -> None:
    bot, session, flood = make_bot(None, retry_margin=0.0)
    session.fail_next("answerCallbackQuery", ApiError.flood(1))
    result, elapsed = await timed(bot.answer_callback_query("q1"))
    assert result is True and elapsed >= 1.0
    assert session.violations == 0 and flood.stats.retried == 1


async def test_get_updates_is_passed_through_untouched() -> None:
    bot, session, _ = make_bot(None)
    session.fail_next("getUpdates", ApiError.flood(5))
    # Polling has its own backoff; the middleware must not sit on a long poll.
    with pytest.raises(TelegramRetryAfter):
        await asyncio.wait_for(bot.get_updates(), 0.5)


class VirtualClock:
    """Shared by session and FloodControl: sleeping advances time instantly."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)
        await asyncio.sleep(0)


async def test_gives_up_after_max_retries_and_raises() -> None:
    clock = VirtualClock()
    bot, session, _ = make_bot(None, clock=clock, sleep=clock.sleep, max_retries=2)
    session.fail_next("sendMessage", ApiError.flood(30), times=10)

    with pytest.raises(TelegramRetryAfter):
        await bot.send_message(1, "doomed")

    assert len(session.requests) == 3  # first try + 2 retries, each after the full wait
    assert clock.now >= 60
    assert session.violations == 0
    assert session.sent_texts() == []


async def test_migration_calls_back_and_delivers_to_the_new_chat() -> None:
    migrations: list[tuple[int, int]] = []

    async def on_migrate(old: int, new: int) -> None:
        migrations.append((old, new))

    bot, session, _ = make_bot(0.02, on_migrate=on_migrate)
    session.fail_next("sendMessage", ApiError.migrated(-100999), chat_id=-5)

    results = await asyncio.gather(*(bot.send_message(-5, f"m{i}") for i in range(3)))

    assert [m.chat.id for m in results] == [-100999] * 3
    assert migrations == [(-5, -100999)]  # once, however many requests were queued
    assert session.sent_texts(-100999) == ["m0", "m1", "m2"]
    assert session.sent_texts(-5) == []
    # Later requests to the old id are rewritten without another failed round trip.
    await bot.send_message(-5, "later")
    await bot.get_chat_member(-5, 42)
    assert len(session.requests) == 6
    assert session.requests_of(GetChatMember)[0].chat_id == -100999
    assert_clean(session)


async def test_failing_on_migrate_does_not_lose_the_message() -> None:
    async def on_migrate(old: int, new: int) -> None:
        raise RuntimeError("storage down")

    bot, session, _ = make_bot(None, on_migrate=on_migrate)
    session.fail_next("sendMessage", ApiError.migrated(-100999))
    assert (await bot.send_message(-5, "x")).chat.id == -100999


async def test_busy_chat_does_not_delay_unqueued_requests() -> None:
    limits = FloodLimits(chat_period=0.01, group_rate=2, group_period=10, global_period=0.01)
    bot, session, _ = make_bot(None, flood_limits=limits)
    backlog = [asyncio.create_task(bot.send_message(-100, f"m{i}")) for i in range(6)]
    await asyncio.sleep(0.05)  # two sent, four waiting ~10 s for the group window
    assert session.sent_texts(-100) == ["m0", "m1"]

    for call in (
        bot.answer_callback_query("q"),
        bot.get_chat_member(-100, 42),
        bot.get_me(),
        bot.send_chat_action(-100, "typing"),
        bot.get_updates(),
    ):
        _, elapsed = await timed(call)
        assert elapsed < 0.05

    # Cancelling queued sends releases everything: nothing half-sent, no deadlock.
    for task in backlog:
        task.cancel()
    await asyncio.gather(*backlog, return_exceptions=True)
    assert session.sent_texts(-100) == ["m0", "m1"]
    _, elapsed = await timed(bot.send_message(-200, "another group"))
    assert elapsed < 0.05


async def test_nothing_lost_under_concurrency() -> None:
    rng = random.Random(7)
    bot, session, _ = make_bot(0.02, latency=lambda: rng.uniform(0, 0.006))
    chats = [-1001, -1002, -1003, 2001, 2002]
    session.fail_next("sendMessage", ApiError.flood(1), chat_id=-1002)
    session.fail_next("sendMessage", ApiError.flood(1), chat_id=2001)
    texts = [(chats[i % 5], f"msg {i}") for i in range(50)]
    order = texts[:]
    rng.shuffle(order)

    await asyncio.gather(*(bot.send_message(c, t) for c, t in order))

    delivered = session.sent_texts()
    assert sorted(delivered) == sorted(t for _, t in texts)  # each exactly once
    for c in chats:  # and per chat in the order they were issued
        assert session.sent_texts(c) == [t for cc, t in order if cc == c]
    assert session.violations == 0


async def test_albums_count_once_per_item_in_groups() -> None:
    bot, session, _ = make_bot(0.01)  # group: 20 per 0.6 s
    media: list[Any] = [InputMediaPhoto(media=f"photo-{i}") for i in range(5)]

    _, elapsed = await timed(asyncio.gather(*(bot.send_media_group(-100, media) for _ in range(5))))

    assert_clean(session)
    assert len(session.requests_of(SendMediaGroup)) == 5
    assert elapsed >= 0.6  # the fifth album of 5 waits for the first one to leave the window


async def test_edits_share_the_group_budget_and_inline_edits_pass() -> None:
    bot, session, _ = make_bot(0.01)
    sent = await bot.send_message(-100, "lobby")
    await asyncio.gather(
        *(
            bot.edit_message_text(f"lobby {i}", chat_id=-100, message_id=sent.message_id)
            for i in range(25)
        )
    )
    assert await bot.edit_message_text("inline", inline_message_id="abc") is True
    assert_clean(session)
    assert session.last_text(-100) == "lobby 24"


def test_which_methods_are_limited() -> None:
    counted: list[TelegramMethod[Any]] = [
        SendMessage(chat_id=1, text="x"),
        SendPhoto(chat_id=1, photo="p"),
        EditMessageText(text="x", chat_id=1, message_id=1),
    ]
    free: list[TelegramMethod[Any]] = [
        AnswerCallbackQuery(callback_query_id="q"),
        GetUpdates(),
        GetMe(),
        GetChatMember(chat_id=1, user_id=1),
        SendChatAction(chat_id=1, action="typing"),
    ]
    assert all(counts_toward_limits(m) for m in counted)
    assert not any(counts_toward_limits(m) for m in free)


def test_limits_validate_and_scale() -> None:
    scaled = FloodLimits().scaled(0.5)
    assert (scaled.chat_period, scaled.group_period, scaled.global_period) == (0.5, 30.0, 0.5)
    assert scaled.group_rate == 20
    with pytest.raises(ValueError):
        FloodLimits(chat_rate=0)


async def test_global_rate_is_shared_by_all_chats() -> None:
    bot, session, _ = make_bot(0.1)  # 30 per 0.1 s overall
    _, elapsed = await timed(
        asyncio.gather(*(bot.send_message(3000 + i, "news") for i in range(45)))
    )
    assert_clean(session)
    assert session.sent_texts().count("news") == 45
    assert elapsed >= 0.1


async def test_idle_chats_are_forgotten() -> None:
    clock = VirtualClock()
    bot, _, flood = make_bot(None, clock=clock, sleep=clock.sleep)
    for chat_id in range(1, 11):
        await bot.send_message(-chat_id, "hi")
    assert len(flood._chats) == 10
    clock.now += 61  # past the longest window: nothing left to remember
    await bot.send_message(99, "hi")
    assert list(flood._chats) == [99]
