"""The career rating's public pages (bot/web/career.py) in headless Chromium, phone-sized,
served by the real bot: the leaderboard fits the screen and links to each profile,
whose picture of the rating loads. Screenshots go to tests/browser/artifacts/."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.bot_process import BotFactory, free_port
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.scenario import NICKS, GameSpec, Person, seed_game, seed_tournament

from .page import PHONE, Browser

GAMES = [
    GameSpec(1, 1, NICKS[0:10], sheriff=1, don=2, mafia=(3, 4), result="red"),
    GameSpec(1, 2, NICKS[2:12], sheriff=5, don=6, mafia=(7, 8), result="black"),
    GameSpec(2, 1, [*NICKS[6:12], *NICKS[0:4]], sheriff=2, don=9, mafia=(1, 10),
             result="red"),
]


def look(browser: Browser, base: str) -> dict[str, object]:
    b = browser
    b.driver.get(f"{base}/top?lang=en")
    b.wait_for("table tbody tr")
    seen: dict[str, object] = {
        "title": b.text("h1"),
        "rows": len(b.driver.find_elements("css selector", "table tbody tr")),
        "overflow": b.js("return document.documentElement.scrollWidth") - PHONE[0],
    }
    b.screenshot("career-top.png")
    b.find("table tbody tr td.name a").click()  # type: ignore[union-attr]
    b.wait_for("img")
    b.wait(lambda: b.js("var i = document.querySelector('img');"
                        " return i.complete && i.naturalWidth > 0;"), "the rating's picture")
    seen["profile"] = b.text("h1")
    seen["picture"] = b.js("return document.querySelector('img').naturalWidth")
    seen["profile_overflow"] = b.js("return document.documentElement.scrollWidth") - PHONE[0]
    b.screenshot("career-player.png")
    return seen


async def test_the_leaderboard_and_a_profile_on_a_phone(
    fake_telegram: FakeTelegram, bot_factory: BotFactory, tmp_path: Path, browser: Browser
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    chief = Person(fake_telegram, "Chief").open_chat()
    judge = Person(fake_telegram, "Judge").open_chat()
    seeded = await seed_tournament(db_path, chief=chief, judges=[judge], language="en")
    for game in GAMES:
        await seed_game(db_path, seeded, judge, game)
    port = free_port()
    await bot_factory(env={"WEB_PORT": str(port), "TOP_MIN_GAMES": "2"})

    seen = await asyncio.to_thread(look, browser, f"http://127.0.0.1:{port}")

    assert seen["title"] == "Career rating"
    assert seen["rows"] == 12  # everyone played two games or three
    assert seen["overflow"] == 0 and seen["profile_overflow"] == 0, seen
    assert seen["profile"] in NICKS and seen["picture"] == 1200
