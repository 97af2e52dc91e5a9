"""The career rating's public pages (bot/web/career.py) through aiohttp's test client
against the bot's real application: the leaderboard, a profile and its picture, an old
address of a merged person, and nothing of Telegram accounts on them."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.app import add_career_pages
from bot.config import Settings
from bot.db import Database
from bot.db import career as repo
from bot.web.server import create_app
from tests.handlers.rating_fixtures import USER_BASE
from tests.handlers.test_career import harness, person_of, two_tournaments  # noqa: F401
from tests.support import BotHarness


@pytest.fixture
async def client(
    harness: BotHarness, settings: Settings  # noqa: F811
) -> AsyncIterator[TestClient[object, object]]:
    app = create_app(settings, started=time.monotonic(), mode="polling")
    add_career_pages(app, harness.dispatcher, settings.model_copy(update={"top_min_games": 2}))
    async with TestClient(TestServer(app)) as test_client:
        yield test_client


async def test_the_leaderboard_and_a_profile(client: TestClient[object, object],
                                             db: Database) -> None:
    a, _b = await two_tournaments(db)
    page = await client.get("/top")
    assert page.status == 200 and page.content_type == "text/html"
    html = await page.text()
    assert "<h1>Общий рейтинг</h1>" in html
    links = re.findall(r'href="/player/(\d+)">([^<]+)</a>', html)
    assert len(links) == 12 and {name for _id, name in links} == set(a.nicks)
    assert str(USER_BASE + 1) not in html  # no Telegram account shows

    person = await person_of(db, a.players[2])
    profile = await client.get(f"/player/{person}?lang=en")
    text = await profile.text()
    assert profile.status == 200 and "<h1>P3</h1>" in text and "Rated games: 4" in text
    assert f'src="/player/{person}/rating.png?lang=en"' in text
    assert "«Autumn Cup» as <b>P3</b>" in text
    picture = await client.get(f"/player/{person}/rating.png")
    assert picture.status == 200 and picture.content_type == "image/png"
    assert (await picture.read()).startswith(b"\x89PNG")


async def test_unknown_and_merged_addresses(client: TestClient[object, object],
                                            db: Database) -> None:
    a, b = await two_tournaments(db)
    assert (await client.get("/player/999999")).status == 404
    assert (await client.get("/player/abc")).status == 404
    source = await person_of(db, b.players[10])  # R11 of B
    target = await person_of(db, a.players[10])  # P11 of A
    async with db.transaction() as conn:
        await repo.merge_persons(conn, source, target)
    moved = await client.get(f"/player/{source}?lang=en", allow_redirects=False)
    assert moved.status == 301 and moved.headers["Location"] == f"/player/{target}?lang=en"
