"""The live protocol end to end (docs/development.md, "The live protocol"): the real bot polling the
fake Bot API with WEBAPP_URL set; the judge's card offers the Mini App once round, table
and seats are filled, the page's events reach the bot's own web port (initData signed
with the bot's token), and Save stores the game (8.3 best move, the red win)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import aiohttp

from tests.support.webapp import headers
from tests.web.test_live_api import GAME

from .bot_process import BotFactory, free_port, requires_bot
from .fake_telegram import FakeTelegram
from .scenario import NICKS, Card, Person, query, seed_tournament

pytestmark = requires_bot


async def test_a_game_entered_in_the_mini_app_is_saved(
    bot_factory: BotFactory, fake_telegram: FakeTelegram, tmp_path: Path, bot_token: str
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    chief = Person(fake_telegram, "Chief").open_chat()
    judge = Person(fake_telegram, "Judge").open_chat()
    await seed_tournament(db_path, chief=chief, judges=[judge], language="en")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    await bot_factory(env={"WEBAPP_URL": base, "WEB_PORT": str(port)})

    card = Card(judge)
    await card.open()
    await card.type("1 1", "Step 2/11: Seating")
    await card.type("\n".join(NICKS[:10]), f"10. {NICKS[9]}")
    [url] = [b["web_app"]["url"] for b in card.message.buttons if "web_app" in b]
    assert url.startswith(f"{base}/app/?g=")
    token = parse_qs(urlsplit(url).query)["g"][0]

    signed = headers(bot_token, judge.id)
    batch = [{"id": f"e{i}", "command": c} for i, c in enumerate(GAME, start=1)]
    async with aiohttp.ClientSession(base) as http:
        async with http.get("/app/") as page:
            assert page.status == 200
        async with http.post(f"/api/live/{token}/events", json={"events": batch[:5]},
                             headers=signed) as r:
            assert r.status == 200, await r.text()
        # The page sends the first five again (a lost answer) with the rest.
        async with http.post(f"/api/live/{token}/events", json={"events": batch},
                             headers=signed) as r:
            body = await r.json()
            assert body["refused"] is None and body["version"] == len(GAME), body
        async with http.post(f"/api/live/{token}/save", headers=signed) as r:
            assert r.status == 200, await r.text()
            saved = await r.json()
        assert saved["code"] == "R1-T1"
        async with http.post(f"/api/live/{token}/save", headers=signed) as r:
            assert r.status == 200  # sent again: the same game, not a second one
            assert await r.json() == saved
    assert query(db_path, "SELECT round, table_no, result, first_killed FROM games") == [
        (1, 1, "red", 5)]
    assert query(db_path, "SELECT count(*) FROM live_events") == [(len(GAME),)]
