"""bot.telegram.flood.FloodControl against a RecordingSession that enforces Telegram's limits.

Limits are scaled down (``time_scale`` / ``FloodLimits.scaled``) so "20 per minute"
takes about a second. ``limit_hits == 0`` and ``violations == 0`` mean the server never
had to answer 429 and no request was retried before its ``retry_after`` expired.
"""

from __future__ import annotations

import asyncio
import heapq
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
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto

from bot.telegram.flood import FloodControl, FloodLimits, counts_toward_limits
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


def assert_paced(at: list[float], *, period: float, burst: int = 3) -> None:
    """A chat's pace: the k-th previous request at least (k - burst + 1) periods before."""
    for i, now in enumerate(at):
        for k in range(burst, i + 1):
            assert now - at[i - k] >= (k - burst + 1) * period - EPS, (i, k, at)


def most_in_any(at: list[float], window: float) -> int:
    """The most stamps that fall in any half-open window of ``window`` seconds."""
    most, start = 0, 0
    for end, now in enumerate(sorted(at)):
        while sorted(at)[start] <= now - window:
            start += 1
        most = max(most, end - start + 1)
    return most


def assert_clean(session: RecordingSession) -> None:
    assert session.limit_hits == 0, "the server had to answer 429"
    assert session.violations == 0, "a request was retried before retry_after passed"


async def test_group_burst_is_queued_spaced_and_ordered() -> None:
    bot, session, _ = make_bot(0.02)  # group: 20 per 1.2 s, chat: 3 at once then 1 per 20 ms
    texts = [f"announcement {i}" for i in range(30)]

    _, elapsed = await timed(asyncio.gather(*(bot.send_message(-100, t) for t in texts)))

    assert_clean(session)
    assert session.sent_texts(-100) == texts
    assert len(session.requests) == 30  # no retries needed
    at = arrivals(session, -100)
    assert_paced(at, period=0.02)
    assert all(at[i + 20] - at[i] >= 1.2 - EPS for i in range(10))
    assert elapsed >= 1.2 - EPS


async def test_without_flood_control_the_same_burst_hits_429() -> None:
    session = RecordingSession(limits=Limits(time_scale=0.02))
    bot = Bot("42:TEST", session=session)
    results = await asyncio.gather(
        *(bot.send_message(-100, str(i)) for i in range(30)), return_exceptions=True
    )
    assert any(isinstance(r, TelegramRetryAfter) for r in results)
    assert session.limit_hits > 0


async def test_chats_are_not_serialised_behind_each_other() -> None:
    bot, session, _ = make_bot(0.2, latency=0.005)  # 3 at once, then 1 per 0.2 s per chat
    chats = range(1001, 1011)

    _, elapsed = await timed(
        asyncio.gather(*(bot.send_message(c, f"{c}:{i}") for i in range(5) for c in chats))
    )

    assert_clean(session)
    for c in chats:
        assert session.sent_texts(c) == [f"{c}:{i}" for i in range(5)]
    # Each chat needs >= 0.4 s (burst of 3, then two more); one after another, chat
    # 1010's first message would come after chat 1001's last: they interleave instead.
    assert elapsed >= 0.4 - EPS
    assert all(arrivals(session, c)[0] < arrivals(session, 1001)[-1] for c in chats)


async def test_retry_after_is_waited_out_without_blocking_other_chats() -> None:
    bot, session, flood = make_bot(0.02)
    session.fail_next("sendMessage", ApiError.flood(1), chat_id=1)

    first = asyncio.create_task(timed(bot.send_message(1, "first")))
    second = asyncio.create_task(timed(bot.send_message(1, "second")))
    other = asyncio.create_task(timed(bot.send_message(2, "other chat")))

    await other
    (message, first_elapsed), (_, second_elapsed) = await first, await second
    # The other chat went while chat 1 waited out its retry_after (no clock bound).
    assert arrivals(session, 2)[0] < arrivals(session, 1)[0]
    assert message.text == "first"
    assert first_elapsed >= 1.0
    assert second_elapsed >= 1.0  # queued behind the 429's block, not sent into it
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
        assert elapsed < 5  # not queued behind the group's ~10 s window (a busy machine is slow)

    # Cancelling queued sends releases everything: nothing half-sent, no deadlock.
    for task in backlog:
        task.cancel()
    await asyncio.gather(*backlog, return_exceptions=True)
    assert session.sent_texts(-100) == ["m0", "m1"]
    _, elapsed = await timed(bot.send_message(-200, "another group"))
    assert elapsed < 5  # not behind the first group's ~10 s window


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
        FloodLimits(chat_burst=0)


async def test_global_rate_is_shared_by_all_chats() -> None:
    bot, session, _ = make_bot(0.5)  # 30 per 0.5 s overall (wide: a busy machine is slow)
    _, elapsed = await timed(
        asyncio.gather(*(bot.send_message(3000 + i, "news") for i in range(45)))
    )
    assert_clean(session)
    assert session.sent_texts().count("news") == 45
    assert elapsed >= 0.1


async def test_people_waiting_go_before_group_posts_when_the_bot_is_at_its_limit() -> None:
    """At the bot's 30 a second, a judge's card (a private chat) takes the next free slot
    before a group's post that waits too: the post goes a moment later, never lost."""
    # 30 per 0.5 s overall: wide enough that the cards queue up inside the posts' first
    # window even when a busy machine stalls the loop.
    bot, session, _ = make_bot(0.5)
    posts = [bot.send_message(-100_000 - i, "post") for i in range(40)]
    cards = [bot.send_message(5000 + i, "card") for i in range(30)]
    await asyncio.gather(*posts, *cards)
    assert_clean(session)
    order = [m.text for m in session.requests_of(SendMessage, delivered=True)]
    assert order.count("post") == 40 and order.count("card") == 30
    # The posts asked first and took the first window; the cards that waited then went
    # before the posts that waited with them, all in one run.
    shown = "".join(text[0] for text in order)
    assert "c" * 30 in shown and shown.endswith("p" * 5), shown


async def test_idle_chats_are_forgotten() -> None:
    clock = VirtualClock()
    bot, _, flood = make_bot(None, clock=clock, sleep=clock.sleep)
    for chat_id in range(1, 11):
        await bot.send_message(-chat_id, "hi")
    assert len(flood._chats) == 10
    clock.now += 61  # past the longest window: nothing left to remember
    await bot.send_message(99, "hi")
    assert list(flood._chats) == [99]


async def test_a_chat_bursts_three_then_goes_on_at_one_a_period() -> None:
    bot, session, _ = make_bot(0.05)  # "a second" is 50 ms
    texts = [f"tap {i}" for i in range(8)]

    _, elapsed = await timed(asyncio.gather(*(bot.send_message(7, t) for t in texts)))

    assert_clean(session)
    assert session.sent_texts(7) == texts
    at = arrivals(session, 7)
    assert at[2] - at[0] < 0.03  # the first three at once
    assert_paced(at, period=0.05)
    assert elapsed >= 5 * 0.05 - EPS  # the other five at the steady pace


async def test_waiting_edits_of_one_message_coalesce_and_the_newest_goes_out() -> None:
    # 3 at once, then 1 per 0.5 s: long enough that the ten taps below are queued
    # before the next slot even on a busy machine (a stall past it would let one go).
    bot, session, flood = make_bot(0.5)
    card = await bot.send_message(5, "card 0")
    for i in (1, 2):  # the rest of the burst
        await bot.edit_message_text(f"card {i}", chat_id=5, message_id=card.message_id)
    # Ten quick taps while the chat waits for its next slot: one edit, the newest.
    edits = [
        asyncio.create_task(
            bot.edit_message_text(f"card {i}", chat_id=5, message_id=card.message_id)
        )
        for i in range(3, 13)
    ]
    results = await asyncio.gather(*edits)

    assert_clean(session)
    texts = [m.text for m in session.requests_of(EditMessageText)]
    assert texts == ["card 1", "card 2", "card 12"]  # a superseded edit is never sent
    assert all(getattr(r, "text", None) == "card 12" for r in results)
    assert flood.stats.coalesced == 9


async def test_an_edit_of_another_kind_or_after_dispatch_is_not_folded_in() -> None:
    bot, session, _ = make_bot(0.1, latency=0.02)
    card = await bot.send_message(5, "card")
    other = await bot.send_message(5, "other")
    first = asyncio.create_task(
        bot.edit_message_text("text 1", chat_id=5, message_id=card.message_id)
    )
    await asyncio.sleep(0.005)  # dispatched (in flight), no longer waiting
    keyboard = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="go", callback_data="go")]]
    )  # a change, or Telegram answers "message is not modified"
    markup = asyncio.create_task(
        bot.edit_message_reply_markup(chat_id=5, message_id=card.message_id, reply_markup=keyboard)
    )
    second = asyncio.create_task(
        bot.edit_message_text("text 2", chat_id=5, message_id=card.message_id)
    )
    elsewhere = asyncio.create_task(
        bot.edit_message_text("other 2", chat_id=5, message_id=other.message_id)
    )
    await asyncio.gather(first, markup, second, elsewhere)

    assert_clean(session)
    sent = [m.__api_method__ for m in session.requests if m.__api_method__.startswith("edit")]
    assert sent == ["editMessageText", "editMessageReplyMarkup", "editMessageText",
                    "editMessageText"]
    assert session.last_text(5) in ("text 2", "other 2")


@pytest.mark.parametrize("seed", [1, 2])
async def test_never_over_telegrams_counts_in_any_window(seed: int) -> None:
    """Private chat: <= 3 in any 1 s and <= 12 in any 10 s; group: <= 20 in any 60 s;
    the bot: <= 30 in any 1 s, under a random mix of sends and card edits."""
    scale = 0.005  # a group's minute is 0.3 s
    rng = random.Random(seed)
    bot, session, _ = make_bot(scale, latency=lambda: rng.uniform(0, 0.001))
    private, groups = [11, 12, 13, 14], [-101, -102]
    cards = {c: (await bot.send_message(c, "card")).message_id for c in private}
    calls = []
    for i in range(400):
        chat = rng.choice(private + groups)
        if chat > 0 and rng.random() < 0.7:
            calls.append(bot.edit_message_text(f"v{i}", chat_id=chat, message_id=cards[chat]))
        else:
            calls.append(bot.send_message(chat, f"m{i}"))
        if rng.random() < 0.3:
            await asyncio.sleep(rng.uniform(0, 2 * scale))
    await asyncio.gather(*(asyncio.ensure_future(c) for c in calls))

    assert_clean(session)
    for chat in private:
        at = arrivals(session, chat)
        assert most_in_any(at, 1 * scale) <= 3
        assert most_in_any(at, 10 * scale) <= 12
    for chat in groups:
        assert most_in_any(arrivals(session, chat), 60 * scale) <= 20
    everything = [c.at for c in session.calls if c.ok and counts_toward_limits(c.method)]
    assert most_in_any(everything, 1 * scale) <= 30



class SteppedClock:
    """Virtual time for concurrent tasks: when every task waits, time jumps to the
    earliest sleeper's wake-up (``run``)."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._count = 0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        wake = asyncio.get_running_loop().create_future()
        self._count += 1
        heapq.heappush(self._sleepers, (self.now + max(seconds, 0.0), self._count, wake))
        await wake

    async def run(self, work: Awaitable[Any]) -> Any:
        task = asyncio.ensure_future(work)
        while not task.done():
            for _ in range(20):  # let every task run on until it waits
                await asyncio.sleep(0)
            if self._sleepers and not task.done():
                at, _, wake = heapq.heappop(self._sleepers)
                self.now = max(self.now, at)
                wake.set_result(None)
        return task.result()


async def test_with_a_round_trip_the_bot_still_sends_thirty_a_second() -> None:
    """A slot is free again a second after the send, not a second after the reply: with
    a steady 0.1 s round trip, 120 messages to 120 chats go out in 4 seconds' slots of
    30 (stamping the reply made every slot last 1.1 s)."""
    clock = SteppedClock()
    arrived: list[float] = []

    async def telegram(bot: Bot, method: TelegramMethod[Any]) -> Any:
        await clock.sleep(0.05)  # on its way
        arrived.append(clock.now)
        await clock.sleep(0.05)  # the answer on its way back
        return True

    bot, _, _ = make_bot(None)
    flood = FloodControl(FloodLimits(), clock=clock, sleep=clock.sleep)
    sends = [flood(telegram, bot, SendMessage(chat_id=1000 + i, text="news")) for i in range(120)]
    await clock.run(asyncio.gather(*sends))

    assert len(arrived) == 120
    assert most_in_any(arrived, 1.0) <= 30
    # Each wave a second after the last (the first one's slots wait for the first
    # reply, which has no round trip to go by): 3.22 s; with stamps at the replies 3.4.
    assert max(arrived) < 3.3
