"""What Telegram refuses for good never silences the group (docs/development.md, "Reliability and
speed"): the item is set aside with its cause, a smaller form goes out where one exists,
every later result and standings edit still goes, the chief judge hears of each cause
once, and "Post again" posts what waited once the cause is fixed.

Telegram is the RecordingSession's model: a group that forbids photos answers 400 "not
enough rights to send photos to the chat", as Telegram does; texts over 4096 characters
and broken markup are refused as Telegram refuses them.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
from collections.abc import AsyncIterator, Sequence

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import EditMessageText, SendMessage, SendPhoto

from bot.db import audit, outbox
from bot.db.connection import Database
from bot.publishing import Publisher
from bot.publishing.notices import run_follow_up
from bot.publishing.refusals import PHOTOS, TOO_LONG, plain_text, refusal
from bot.reads.export import build_export
from bot.services import set_aside as service
from bot.texts.rating_format import utf16_len
from bot.texts.standings_text import PendingGame, live_message
from tests.support import BOT_TOKEN, ApiError, RecordingSession
from tests.test_publishing import (
    CHIEF,
    GROUP,
    I18N,
    Env,
    draft,
    make_tournament,
    save,
    table_players,
)


@pytest.fixture
async def env(db: Database) -> AsyncIterator[Env]:
    e = Env(db)
    yield e
    await e.publisher.close()


async def set_aside_rows(db: Database, tournament_id: int) -> list[outbox.OutboxRow]:
    async with db.read() as conn:
        return await outbox.set_aside_rows(conn, tournament_id)


async def save_round(env: Env, tournament_id: int, ids: Sequence[int], round_no: int) -> None:
    """Both tables of a round of 20 players, each published as a Save does."""
    for table in (1, 2):
        game = await save(env.db, tournament_id, draft(round_no, table,
                                                       table_players(ids, round_no, table)))
        await env.game_saved(tournament_id, game, f"Тур {round_no}, стол {table}")


def forbid_photos(env: Env) -> None:
    """The group's permissions let the bot send no photos."""
    telegram = env.session.telegram
    group = telegram.chats.get(GROUP) or telegram.add_group(GROUP)
    group.photos_allowed = False


# -- classification ---------------------------------------------------------------------


def test_only_bad_requests_are_final() -> None:
    photos = ApiError(400, "Bad Request: not enough rights to send photos to the chat")
    long = ApiError(400, "Bad Request: message is too long")
    assert refusal(_raised(photos)) is not None
    assert refusal(_raised(photos)).cause == PHOTOS  # type: ignore[union-attr]
    assert refusal(_raised(long)).cause == TOO_LONG  # type: ignore[union-attr]
    for passing in (ApiError(500, "Internal Server Error"), ApiError.flood(3),
                    ApiError(502, "Bad Gateway")):
        assert refusal(_raised(passing)) is None
    assert refusal(TelegramNetworkError(SendMessage(chat_id=1, text="x"), "reset")) is None
    assert refusal(TimeoutError()) is None


def _raised(error: ApiError) -> BaseException:
    """What aiogram raises for Telegram's answer ``error``."""
    try:
        RecordingSession().check_response(
            Bot(BOT_TOKEN), SendMessage(chat_id=1, text="x"), error.error_code,
            json.dumps(error.body()),
        )
    except Exception as raised:
        return raised
    raise AssertionError("no error raised")


def test_plain_text_drops_markup() -> None:
    assert plain_text("<b>Тур 1</b>: A &amp; B <i>x") == "Тур 1: A & B x"


# -- a group that refuses photos ------------------------------------------------------------


async def test_refused_picture_goes_as_text_and_later_rounds_still_post(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=20)
    forbid_photos(env)

    await save_round(env, t.id, ids, 1)

    texts = env.session.sent_texts(GROUP)
    assert texts[0] == "Тур 1, стол 1" and texts[2] == "Тур 1, стол 2"
    stand_in = texts[-1]
    assert "после тура 1" in stand_in and "<pre>" in stand_in  # the standings as text
    assert env.delivered(SendPhoto) == []
    [owed] = await set_aside_rows(env.db, t.id)
    assert (owed.kind, owed.round, owed.set_aside) == ("picture", 1, PHOTOS)
    told = env.session.sent_texts(CHIEF)
    assert len(told) == 1
    assert "фото" in told[0] and "/tournament" in told[0] and "Весенний кубок" in told[0]

    # Round 2: its results and standings go at once, its picture as text too, and the
    # chief judge is not told the same cause again.
    env.session.clear()
    await save_round(env, t.id, ids, 2)
    texts = env.session.sent_texts(GROUP)
    assert "Тур 2, стол 1" in texts and "Тур 2, стол 2" in texts
    assert env.delivered(EditMessageText)  # the pinned standings follow every save
    assert "после тура 2" in texts[-1]
    assert env.session.sent_texts(CHIEF) == []
    assert [r.round for r in await set_aside_rows(env.db, t.id)] == [1, 2]
    # Each picture was tried once: nothing is retried in a loop.
    photo_tries = [c for c in env.session.calls if c.api_method == "sendPhoto"]
    assert len(photo_tries) == 1
    async with env.db.read() as conn:
        entries = [e for e in await audit.audit_entries(conn, t.id)
                   if e.action == "post.set_aside"]
    assert len(entries) == 2 and entries[0].after["cause"] == PHOTOS

    # The chief judge gives the right and posts again: both pictures go.
    env.session.telegram.chat(GROUP).photos_allowed = True
    env.session.clear()
    taken, follow_up = await service.post_again(env.db, t.id, CHIEF)
    assert taken == 2
    await run_follow_up(env.bot, follow_up, env.publisher)
    captions = [p.caption for p in env.delivered(SendPhoto)]
    assert len(captions) == 2 and "после тура 1" in captions[0] and "после тура 2" in captions[1]
    assert await set_aside_rows(env.db, t.id) == []
    again, _follow = await service.post_again(env.db, t.id, CHIEF)
    assert again == 0
    env.assert_clean()


async def test_refused_again_after_post_again_tells_the_chief_again(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=20)
    forbid_photos(env)
    await save_round(env, t.id, ids, 1)
    assert len(env.session.sent_texts(CHIEF)) == 1

    taken, follow_up = await service.post_again(env.db, t.id, CHIEF)
    await run_follow_up(env.bot, follow_up, env.publisher)

    assert taken == 1 and len(await set_aside_rows(env.db, t.id)) == 1
    assert len(env.session.sent_texts(CHIEF)) == 2  # still not fixed: he hears it again


async def test_set_aside_items_are_in_the_export_s_audit(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=20)
    forbid_photos(env)
    await save_round(env, t.id, ids, 1)
    await service.post_again(env.db, t.id, CHIEF)

    with I18N.context(), I18N.use_locale("ru"):
        files = {f.name: f.data for f in await build_export(env.db, t.id)}

    rows = list(csv.DictReader(io.StringIO(files[f"audit-{t.id}.csv"].decode("utf-8-sig"))))
    [aside] = [r for r in rows if r["action"] == "post.set_aside"]
    assert json.loads(aside["after"])["cause"] == PHOTOS
    assert "photos" in json.loads(aside["after"])["telegram"]
    assert [r["action"] for r in rows][-1] == "post.again"


async def test_set_aside_items_are_listed_by_cause(env: Env) -> None:
    t, ids = await make_tournament(env.db, players_count=20)
    forbid_photos(env)
    await save_round(env, t.id, ids, 1)

    [item] = await service.set_aside(env.db, t.id)

    assert item.cause == PHOTOS and item.count == 1
    assert item.what == (("a picture of the standings", 1),)
    assert "photos" in item.detail


# -- texts Telegram refuses -------------------------------------------------------------


async def test_a_refused_line_is_set_aside_and_the_rest_goes_on(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    poisoned = "Тур 1, стол 1: отравленная строка"
    env.session.fail_next(lambda m: isinstance(m, SendMessage) and poisoned in m.text,
                          ApiError(400, "Bad Request: message is too long"), times=10)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    async with env.db.transaction() as conn:
        await outbox.enqueue(conn, t.id, result=poisoned, game_id=g1)
        await outbox.enqueue(conn, t.id, note="Перерыв 10 минут")
    await env.publisher.publish(env.bot, t.id)

    texts = env.session.sent_texts(GROUP)
    assert texts == ["Перерыв 10 минут", await env.expected_text(t.id)]
    tries = [c for c in env.session.calls
             if isinstance(c.method, SendMessage) and poisoned in c.method.text]
    assert len(tries) == 3  # with the note, alone, as plain text: then set aside
    [row] = await set_aside_rows(env.db, t.id)
    assert (row.kind, row.text, row.set_aside) == ("result", poisoned, TOO_LONG)
    [told] = env.session.sent_texts(CHIEF)
    assert "слишком длинным" in told

    # Every later save still reaches the group, and the poisoned line is not tried again.
    env.session.clear()
    g2 = await save(env.db, t.id, draft(1, 2, ids[10:20]))
    await env.game_saved(t.id, g2, "Тур 1, стол 2")
    assert env.session.sent_texts(GROUP)[0] == "Тур 1, стол 2"
    assert env.delivered(EditMessageText)
    assert not any(poisoned in (c.method.text or "") for c in env.session.calls
                   if isinstance(c.method, SendMessage))
    assert env.session.sent_texts(CHIEF) == []  # told once per cause


async def test_broken_markup_goes_as_plain_text(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    async with env.db.transaction() as conn:
        await outbox.enqueue(conn, t.id, note="Итоги <b>тура 1")  # an unclosed tag
    await env.game_saved(t.id, g1, "Тур 1, стол 1")

    texts = env.session.sent_texts(GROUP)
    assert texts[:2] == ["Итоги тура 1", "Тур 1, стол 1"]
    assert await set_aside_rows(env.db, t.id) == []
    assert env.session.sent_texts(CHIEF) == []


async def test_a_too_long_result_line_is_cut_not_refused(env: Env) -> None:
    t, ids = await make_tournament(env.db)
    g1 = await save(env.db, t.id, draft(1, 1, ids[:10]))
    await env.game_saved(t.id, g1, "Тур 1: " + "очень длинная заметка " * 400)

    texts = env.session.sent_texts(GROUP)
    assert texts[0].startswith("Тур 1: очень") and utf16_len(texts[0]) <= 4096
    assert texts[1] == await env.expected_text(t.id)
    assert await set_aside_rows(env.db, t.id) == []


# -- the standings message stays within Telegram's limit ---------------------------------


async def test_standings_with_10k_pending_games_fit_one_message(env: Env) -> None:
    """The pending games' note is cut with a count, as the table is (10k games)."""
    t, ids = await make_tournament(env.db, players_count=100)
    await save(env.db, t.id, draft(1, 1, ids[:10]))
    standings = (await env.standings.get(t.id)).standings
    pending = {f"R{r}-T{n}": PendingGame(f"R{r}-T{n}", approval=True, protests=[r, n])
               for r in range(1, 1001) for n in range(1, 11)}
    with I18N.context(), I18N.use_locale("ru"):
        text = live_message("Кубок", standings, pending=pending)
        small = live_message("Кубок", standings, pending=pending, limit=1000)
    assert utf16_len(text) <= 4096 and "ещё 99" in text  # "…and 99xx more"
    assert "<pre>" in text and ids and "Игрок" in text  # the table is still there
    assert utf16_len(small) <= 1000


# -- a passing failure's back-off holds up no new post -----------------------------------


async def test_a_new_change_does_not_wait_for_a_retry(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    slow = Env(db, debounce=0.05)
    slow.publisher = Publisher(db, slow.standings, debounce=0.05, i18n=I18N, retry_after=600)
    env = slow
    t, ids = await make_tournament(db)
    env.session.fail_next("sendMessage", TelegramNetworkError(SendMessage(chat_id=GROUP, text="x"),
                                                              "connection reset"))
    g1 = await save(db, t.id, draft(1, 1, ids[:10]))
    with caplog.at_level(logging.WARNING):
        await env.game_saved(t.id, g1, "Стол 1")
        await _until(lambda: any("retried later" in r.getMessage() for r in caplog.records))
    assert env.session.sent_texts(GROUP) == []  # a back-off of 600 s waits now

    g2 = await save(db, t.id, draft(1, 2, ids[10:20]))
    await env.game_saved(t.id, g2, "Стол 2")
    await _until(lambda: len(env.session.sent_texts(GROUP)) >= 2)

    texts = env.session.sent_texts(GROUP)
    assert texts[0] == "Стол 1\nСтол 2"  # the failed item went with the new change
    assert texts[1] == await env.expected_text(t.id)
    await env.publisher.close()


async def _until(done: object, *, tries: int = 400) -> None:
    """Wait for ``done()`` (a generous bound; a 600 s back-off would never meet it)."""
    assert callable(done)
    for _ in range(tries):
        if done():
            return
        await asyncio.sleep(0.025)
    raise AssertionError("not reached")


def test_the_stand_in_counts_utf16_units_as_telegram() -> None:
    """4,096 emoji are 8,192 UTF-16 units: Telegram refuses them as too long."""
    session = RecordingSession()
    bot = Bot(BOT_TOKEN, session=session)
    with pytest.raises(Exception, match="message is too long"):
        asyncio.run(bot.send_message(1, "🎲" * 4096))
    assert asyncio.run(bot.send_message(1, "🎲" * 2048)).text == "🎲" * 2048
