"""The card's button to the live protocol (docs/development.md, "The live protocol"): shown once the
round, table and seats are filled, in a private chat, only while WEBAPP_URL is set; /game
lists the live protocols not saved yet."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram.types import InlineKeyboardButton

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import Database
from tests.handlers.test_game_entry_support import NICKS, World
from tests.support import BotHarness

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
