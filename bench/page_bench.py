"""The Mini App's page load (docs/development.md, "The live protocol"): headless Chromium opens
``/app/?g=<token>`` of a live draft in the middle of a game (roles, a day, a night)
from the bot's real aiohttp application on loopback, again and again; measured by the
browser's own Navigation Timing: the page loaded (``loadEventEnd``) and the table drawn
with the server's state (the page's ``live-table`` mark, after GET /api/live/{token}).
Cold: the browser's cache off; warm: on (a judge opening the page again). Telegram's
script is not fetched (no internet here; in Telegram the client has it cached).
Target: the table drawn within 1 s, cold.

    .venv/bin/python bench/page_bench.py [--loads 10]
"""

from __future__ import annotations

# First, before anything imports aiogram: its models are then built lazily.
import bot  # noqa: F401  # isort: skip
import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.app import build_dispatcher  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.db.connection import Database  # noqa: E402
from bot.services import live  # noqa: E402
from tests.browser.page import Browser  # noqa: E402
from tests.support.webapp import sign_init_data  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from live_bench import TOKEN, seed, serve_live  # noqa: E402

TARGET_MS = 1000.0
# A game in its second day: what a reload in the middle brings back.
GAME = [
    {"type": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"type": "nominate", "seat": 3, "by": 1}, {"type": "nominate", "seat": 5, "by": 2},
    {"type": "foul", "seat": 6}, {"type": "vote", "votes": {"3": 6, "5": 4}},
    {"type": "vote_out", "seats": [3]}, {"type": "shoot", "seat": 5},
    {"type": "don_check", "seat": 1}, {"type": "sheriff_check", "seat": 2},
    {"type": "end_night"}, {"type": "foul", "seat": 7},
]


def measure(url: str, init_data: str, loads: int, profile: Path) -> dict[str, list[float]]:
    chrome = Browser(profile)
    figures: dict[str, list[float]] = {"cold load": [], "cold table": [], "warm load": [],
                                       "warm table": []}
    try:
        chrome.telegram(init_data)
        chrome.driver.execute_cdp_cmd("Network.enable", {})
        for kind in ("cold", "warm"):
            chrome.driver.execute_cdp_cmd("Network.setCacheDisabled",
                                          {"cacheDisabled": kind == "cold"})
            chrome.open(url)  # the first of each kind is not counted
            for _ in range(loads):
                chrome.driver.get(url)
                chrome.wait(lambda: chrome.js(
                    "return performance.getEntriesByName('live-table').length"
                    " && performance.getEntriesByType('navigation')[0].loadEventEnd > 0"),
                    "the table")
                load, table = chrome.js(
                    "var n = performance.getEntriesByType('navigation')[0];"
                    " return [n.loadEventEnd, performance.getEntriesByName('live-table')[0]"
                    ".startTime];")
                figures[f"{kind} load"].append(load)
                figures[f"{kind} table"].append(table)
    finally:
        chrome.quit()
    return figures


async def run(loads: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.sqlite3")
        settings = Settings(bot_token=None, database_path=Path(tmp) / "bench.sqlite3",
                            standings_debounce=0)
        dp = build_dispatcher(db, settings)
        [(judge, token)] = await seed(db, 1)
        draft = await live.judged(db, token, judge)
        runner, port = await serve_live(settings, dp)
        try:
            assert isinstance(draft, live.LiveDraft), draft
            done = await live.append_events(
                db, draft, [(f"bench-{i}", c) for i, c in enumerate(GAME)])
            assert isinstance(done, live.Appended) and done.refused is None, done
            init_data = sign_init_data(TOKEN, {"id": judge, "first_name": "Judge",
                                               "language_code": "en"})
            return await asyncio.to_thread(
                measure, f"http://127.0.0.1:{port}/app/?g={token}", init_data, loads,
                Path(tmp) / "chromium")
        finally:
            await runner.cleanup()
            await db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=10)
    args = parser.parse_args()
    figures = asyncio.run(run(args.loads))
    line = ", ".join(f"{name} median {statistics.median(values):.0f} ms "
                     f"(max {max(values):.0f})" for name, values in figures.items())
    print(f"Mini App page over loopback, {args.loads} loads each: {line} "
          f"(target: the table within {TARGET_MS:g} ms, cold)")
    return 0 if statistics.median(figures["cold table"]) <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
