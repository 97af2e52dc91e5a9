"""The card's button to the live protocol (docs/development.md, "The live protocol"): shown once the
round, table and seats are filled, in a private chat, only while WEBAPP_URL is set; /game
lists the live protocols not saved yet. A game saved in the live protocol closes the
card's draft: its buttons, Save, typed text and /game say so and change nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram.types import InlineKeyboardButton
from aiohttp.test_utils import TestClient, TestServer

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import Database
from tests.handlers.test_game_entry_support import JUDGE, NICKS, PLAYER_USER_BASE, Driver, World
from tests.support import BotHarness
from tests.support.telegram import BOT_TOKEN
from tests.support.webapp import headers
from tests.web.test_live_api import GAME, events, live_app

BASE = "https://live.example.org"


@pytest.fixture
async def live_harness(db: Database, settings: Settings) -> AsyncIterator[BotHarness]:
    with_app = settings.model_copy(update={"webapp_url": BASE})
    async with BotHarness(build_dispatcher(db, with_app)) as h:
        yield h


def web_buttons(message: Any) -> list[InlineKeyboardButton]:
    markup = message.reply_markup
    if markup is None:
        return []
    return [b for row in markup.inline_keyboard for b in row if b.web_app is not None]


async def test_the_card_offers_the_live_protocol_once_the_seats_are_filled(
    live_harness: BotHarness, db: Database
) -> None:
    world = await World.create(live_harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    assert web_buttons(judge.card) == []
    await judge.seat(NICKS[:10])
    [button] = web_buttons(judge.card)
    assert button.text.endswith("Live protocol")
    assert button.web_app is not None and button.web_app.url.startswith(f"{BASE}/app/?g=")
    token = button.web_app.url.rsplit("=", 1)[1]
    assert len(token) >= 16
    rows = await db.fetchall("SELECT token, round, table_no, judge_id FROM live_drafts")
    assert [tuple(r) for r in rows] == [(token, 1, 1, judge.user.id)]
    # The card shown again (the next step) keeps the same live protocol.
    await judge.tap("1")
    assert [b.web_app.url for b in web_buttons(judge.card) if b.web_app] == [button.web_app.url]
    assert await db.fetchval("SELECT count(*) FROM live_drafts") == 1

    # Cancelled on the card, the live protocol stays open: /game lists it.
    await judge.say("/cancel")
    await judge.say("/game")
    listing = live_harness.session.last_message(judge.user.id)
    assert listing is not None and "not saved yet" in (listing.text or "")
    assert [b.web_app.url for b in web_buttons(listing) if b.web_app] == [button.web_app.url]


async def test_without_webapp_url_the_card_is_as_before(harness: BotHarness, db: Database) -> None:
    world = await World.create(harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.seat(NICKS[:10])
    assert web_buttons(judge.card) == []
    assert await db.fetchval("SELECT count(*) FROM live_drafts") == 0


def test_settings_strip_the_trailing_slash() -> None:
    settings = Settings(bot_token=None, webapp_url="https://x.example.org/")
    assert settings.webapp_url == "https://x.example.org"
    assert settings.web_server_port == 8080


SAVED_LIVE = ("This game was saved in the live protocol as game R1-T1; nothing was changed "
              "on this card.")


async def saved_live(harness: BotHarness, db: Database, settings: Settings, judge: Driver) -> None:
    """The judge plays the card's table in the Mini App (its button) and saves it there."""
    [button] = web_buttons(judge.card)
    assert button.web_app is not None
    token = button.web_app.url.rsplit("=", 1)[1]
    async with TestClient(TestServer(live_app(harness, db, settings))) as client:
        signed = headers(BOT_TOKEN, JUDGE)
        sent = await client.post(f"/api/live/{token}/events", headers=signed,
                                 json={"events": events(*GAME)})
        assert sent.status == 200 and (await sent.json())["refused"] is None
        saved = await client.post(f"/api/live/{token}/save", headers=signed)
        assert saved.status == 200, await saved.text()


async def test_a_game_saved_live_closes_the_card_its_buttons_say_so(
    live_harness: BotHarness, db: Database, settings: Settings
) -> None:
    """A tap on the card's keyboard after the live Save: the judge is told where the game
    went, the card loses its buttons, nothing is changed; /game moves on to a new card
    (his next table suggested) instead of offering the old one as unfinished."""
    world = await World.create(live_harness, db)
    judge = world.judge()
    await judge.start()
    await judge.say("1 1")
    await judge.seat(NICKS[:10])
    old = judge.card  # the keyboard as the judge still sees it
    await saved_live(live_harness, db, settings, judge)
    [game] = await world.games()
    before = await db.fetchall("SELECT * FROM games")

    await judge.tap("1", on=old)  # the sheriff, on the roles step
    assert judge.last_answer() == SAVED_LIVE
    assert judge.text == "📱 " + SAVED_LIVE and judge.card.reply_markup is None
    assert await judge.state() is None and await judge.draft() == {}
    assert [tuple(r) for r in await db.fetchall("SELECT * FROM games")] == [
        tuple(r) for r in before]

    sent = len(judge.sent_texts())
    await judge.start()
    assert judge.card_id != old.message_id
    assert "Spring Cup" in judge.text and "Step 1/" in judge.text, judge.text
    assert judge.labels()[0] == "Round 2, table 1"  # his next table
    assert not any("unfinished" in t for t in judge.sent_texts()[sent:])
    assert [g.id for g in await world.games()] == [game.id]


@pytest.mark.parametrize("then", ["/game", "Save", "typed", "/cancel"])
async def test_after_a_live_save_the_card_s_game_is_not_entered_again(
    live_harness: BotHarness, db: Database, settings: Settings, then: str
) -> None:
    """The card was at its review when the Mini App saved the table: /game, its Save,
    a typed text and /cancel each close it with the same words; one game saved once,
    the card without buttons."""
    world = await World.create(live_harness, db)
    judge = world.judge()
    await judge.enter(best_move=(3, 4, 6), day1=1)
    await judge.to_review()
    card_id = judge.card_id
    await saved_live(live_harness, db, settings, judge)
    if then == "Save":
        await judge.tap("💾 Save")
        assert judge.last_answer() == SAVED_LIVE
    elif then == "typed":
        await judge.say("0.3")
        assert judge.last_sent() == SAVED_LIVE
    else:
        await judge.say(then)
        assert SAVED_LIVE in judge.sent_texts()
    closed = live_harness.session.message(judge.user.id, card_id)
    assert closed is not None and closed.text == "📱 " + SAVED_LIVE
    assert closed.reply_markup is None
    assert len(await world.games()) == 1
    assert await db.fetchval("SELECT count(*) FROM audit_log WHERE action = 'game.save'") == 1
    if then == "/game":
        assert judge.last_sent() is not None and "Step 1/" in (judge.last_sent() or "")
    else:
        assert await judge.state() is None


async def test_the_first_killed_player_s_request_closes_with_the_card(
    live_harness: BotHarness, db: Database, settings: Settings
) -> None:
    """Echo (seat 5, shot on night 1) was asked for his best move on the card; the Mini
    App saved the table meanwhile: his tap is told so and changes nothing, his request
    loses its buttons, and the judge's card closes as after his own tap."""
    echo_user = PLAYER_USER_BASE + 4
    world = await World.create(live_harness, db, linked=[4], reachable=[4])
    judge = world.judge()
    await judge.enter(night=5, best_move=None)
    asked = live_harness.session.last_message(echo_user)
    assert asked is not None and asked.reply_markup is not None
    await saved_live(live_harness, db, settings, judge)
    echo = Driver(world, world.person(echo_user, "Echo"))
    await echo.tap("2", on=asked)
    assert echo.last_answer() == ("The judge saved this game in the live protocol; nothing "
                                  "was changed.")
    request = live_harness.session.message(echo_user, asked.message_id)
    assert request is not None and request.reply_markup is None
    assert request.text == "The judge saved this game in the live protocol."
    assert judge.text == "📱 " + SAVED_LIVE and await judge.state() is None
    [game] = await world.games()
    assert game.best_move == (3, 4, 6)  # the live protocol's, not Echo's tap
