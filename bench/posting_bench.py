"""Posting throughput with a poisoned item in the group's outbox.

A tournament of 40 players (4 tables) saves R rounds; each Save enqueues its result
line and publishes it (debounce 0: the caller awaits the post), so the group gets the
lines, the standings edits and a picture after each round, through FloodControl
(Telegram's limits, periods scaled down) against the offline RecordingSession. Timed,
median over several runs, for the same games:

* ``clean``: every post accepted;
* ``poisoned line``: the first result line is refused for good (400 "message is too
  long", every time it is sent);
* ``no photos``: the group refuses every picture (400 "not enough rights to send
  photos to the chat"): each round's picture goes as the standings' text.

The goal: the poisoned runs post at the clean run's pace (ratio ≈ 1), and the poisoned
item is tried a handful of times, not in a loop.

    .venv/bin/python bench/posting_bench.py [--rounds 10] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aiogram import Bot  # noqa: E402
from aiogram.client.default import DefaultBotProperties  # noqa: E402
from aiogram.enums import ParseMode  # noqa: E402
from aiogram.methods import SendMessage  # noqa: E402

from bot.db.connection import Database  # noqa: E402
from bot.publishing import Publisher  # noqa: E402
from bot.reads.standings import StandingsService  # noqa: E402
from bot.telegram.flood import FloodControl, FloodLimits  # noqa: E402
from bot.texts.i18n import create_i18n  # noqa: E402
from tests.support import BOT_TOKEN, ApiError, Limits, RecordingSession  # noqa: E402
from tests.test_publishing import GROUP, draft, make_tournament, save, table_players  # noqa: E402

SCALE = 0.001  # Telegram's flood periods, scaled: the bench times the bot, not the waits
POISON = "R1 T1: the poisoned line"
TABLES = 4


async def run(kind: str, rounds: int) -> tuple[float, int, int]:
    """Seconds to save and post ``rounds`` rounds; requests sent; tries of the poison."""
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.sqlite3")
        session = RecordingSession(limits=Limits(time_scale=SCALE))
        standings = StandingsService(db)
        publisher = Publisher(db, standings, i18n=create_i18n())
        session.middleware(FloodControl(FloodLimits().scaled(SCALE)))
        bot = Bot(BOT_TOKEN, session=session,
                  default=DefaultBotProperties(parse_mode=ParseMode.HTML))
        session.bot = bot
        try:
            t, ids = await make_tournament(db, players_count=TABLES * 10)
            if kind == "poisoned line":
                session.fail_next(lambda m: isinstance(m, SendMessage) and POISON in m.text,
                                  ApiError(400, "Bad Request: message is too long"),
                                  times=10_000)
            elif kind == "no photos":
                group = session.telegram.chats.get(GROUP) or session.telegram.add_group(GROUP)
                group.photos_allowed = False
            games = []
            for r in range(1, rounds + 1):
                for table in range(1, TABLES + 1):
                    games.append((r, table, await save(db, t.id, draft(
                        r, table, table_players(ids, r, table)))))
            start = time.perf_counter()
            for r, table, game_id in games:
                line = POISON if (r, table) == (1, 1) else f"R{r} T{table}: red win"
                async with db.transaction() as conn:
                    await publisher.enqueue(conn, t.id, result=line, game_id=game_id)
                await publisher.publish(bot, t.id)
            await publisher.close()
            elapsed = time.perf_counter() - start
            tries = sum(1 for c in session.calls
                        if isinstance(c.method, SendMessage) and POISON in (c.method.text or ""))
            return elapsed, len(session.calls), tries
        finally:
            await db.close()


async def main(rounds: int, repeat: int) -> None:
    results: dict[str, list[float]] = {}
    facts: dict[str, tuple[int, int]] = {}
    for _ in range(repeat):
        for kind in ("clean", "poisoned line", "no photos"):
            elapsed, requests, tries = await run(kind, rounds)
            results.setdefault(kind, []).append(elapsed)
            facts[kind] = (requests, tries)
    clean = statistics.median(results["clean"])
    games = rounds * TABLES
    print(f"posting {games} saves ({rounds} rounds x {TABLES} tables), median of {repeat}")
    print(f"{'run':<15}{'seconds':>9}{'saves/s':>9}{'requests':>10}{'ratio':>7}  poison tries")
    for kind, times in results.items():
        median = statistics.median(times)
        requests, tries = facts[kind]
        print(f"{kind:<15}{median:>9.3f}{games / median:>9.0f}{requests:>10}"
              f"{median / clean:>7.2f}  {tries if kind == 'poisoned line' else '-'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # each refusal logs a line: not what is timed
    asyncio.run(main(args.rounds, args.repeat))
