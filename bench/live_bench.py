"""The live protocol under a tournament's load (docs/development.md, "The live protocol").

The bot's real aiohttp application (``bot.web.server.create_app`` with the live protocol's
routes, ``bot.web.live.add_live``) on loopback, a database FILE in a temp dir: one running
tournament, 40 tables of round 1 (400 players, 40 judges), one live draft each. Every
table's judge sends one event a second (the page's POST /api/live/{token}/events, with
initData signed by the bot's token) for ~20 s: the roles, then fouls. Measured per
request on the client, from sending to the answer read: the event's store latency
(initData check, the judge's role, BEGIN IMMEDIATE, replaying the stored events through
``scoring.protocol``, applying and storing the new one, the view). Target: p95 <= 50 ms.

    .venv/bin/python bench/live_bench.py [--tables 40] [--seconds 20]
"""

from __future__ import annotations

# First, before anything imports aiogram: its models are then built lazily.
import bot  # noqa: F401  # isort: skip
import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from aiogram import Bot, Dispatcher
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.app import build_dispatcher, live_runtime  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.db import players, staff, tournaments  # noqa: E402
from bot.db.connection import Database  # noqa: E402
from bot.services import live  # noqa: E402
from bot.web.live import add_live  # noqa: E402
from bot.web.server import create_app  # noqa: E402
from tests.support.webapp import headers  # noqa: E402

TOKEN = "123456:BENCHbenchBENCHbenchBENCHbench12345"
CHIEF = 1
JUDGE_BASE = 1000
TARGET_P95_MS = 50.0


def commands(count: int) -> list[dict[str, object]]:
    """A day of fouls after the roles: every seat up to three (a fourth removes him)."""
    found: list[dict[str, object]] = [{"type": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}]
    seat = 0
    while len(found) < count:
        found.append({"type": "foul", "seat": seat % 10 + 1})
        seat += 1
    return found[:count]


async def seed(db: Database, tables: int) -> list[tuple[int, str]]:
    """The tournament, its judges and players, a live draft per table: (judge, token)."""
    async with db.transaction() as conn:
        t = await tournaments.create_tournament(conn, title="Bench Cup", distance=10,
                                                created_by=CHIEF)
        await tournaments.set_status(conn, t.id, "running")
        ids = []
        for i in range(tables * 10):
            row = await players.add_player(conn, t.id, f"Player{i:03}", status="confirmed",
                                           decided_by=CHIEF)
            ids.append(row.id)
        for table in range(tables):
            await staff.add_staff(conn, t.id, JUDGE_BASE + table, "judge", added_by=CHIEF)
    drafts = []
    for table in range(tables):
        draft = await live.open_for_card(
            db, draft_id=f"g-bench-{table}", tournament_id=t.id, round_no=1,
            table_no=table + 1, players=ids[table * 10:(table + 1) * 10],
            judge_id=JUDGE_BASE + table)
        drafts.append((JUDGE_BASE + table, draft.token))
    return drafts


async def judge(http: aiohttp.ClientSession, user: int, token: str, seconds: float,
                start: float, latencies: list[float]) -> None:
    signed = headers(TOKEN, user)
    batch = commands(int(seconds) + 1)
    for i, command in enumerate(batch):
        # One a second, each table at its own offset within the second.
        due = start + i + (user % 97) / 97
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        sent = time.perf_counter()
        async with http.post(f"/api/live/{token}/events", headers=signed,
                             json={"events": [{"id": f"{user}-{i}", "command": command}]}) as r:
            body = await r.json()
        latencies.append((time.perf_counter() - sent) * 1000)
        if r.status != 200 or body.get("refused"):
            raise RuntimeError(f"table of judge {user}: {r.status} {body}")


async def serve_live(settings: Settings, dp: Dispatcher) -> tuple[web.AppRunner, int]:
    """The bot's aiohttp app with the live protocol's pages, on a free loopback port
    (``runner.cleanup()`` stops it)."""
    app = create_app(settings, started=time.monotonic(), mode="polling")
    telegram = Bot(TOKEN)
    add_live(app, live_runtime(dp, telegram, token=TOKEN, max_age=86400,
                               base_url="https://bench.example.org"))

    async def close_bot(_app: web.Application) -> None:
        await telegram.session.close()

    app.on_cleanup.append(close_bot)  # the runner's cleanup closes the bot's session
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]


async def run(tables: int, seconds: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.sqlite3")
        settings = Settings(bot_token=None, database_path=Path(tmp) / "bench.sqlite3",
                            standings_debounce=0)
        dp = build_dispatcher(db, settings)
        drafts = await seed(db, tables)
        runner, port = await serve_live(settings, dp)
        latencies: list[float] = []
        try:
            connector = aiohttp.TCPConnector(limit=tables * 2)
            async with aiohttp.ClientSession(f"http://127.0.0.1:{port}",
                                             connector=connector) as http:
                start = time.perf_counter() + 0.5
                await asyncio.gather(*(judge(http, user, token, seconds, start, latencies)
                                       for user, token in drafts))
            stored = await db.fetchval("SELECT count(*) FROM live_events")
        finally:
            await runner.cleanup()
            await db.close()
    latencies.sort()
    return {
        "events": len(latencies),
        "stored": stored,
        "p50": statistics.median(latencies),
        "p95": latencies[max(0, int(len(latencies) * 0.95) - 1)],
        "max": latencies[-1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    figures = asyncio.run(run(args.tables, args.seconds))
    print(f"live protocol: {args.tables} tables, one event a second each for "
          f"{args.seconds:g} s: {figures['events']:.0f} events "
          f"({figures['stored']:.0f} stored); store latency p50 {figures['p50']:.1f} ms, "
          f"p95 {figures['p95']:.1f} ms, max {figures['max']:.1f} ms "
          f"(target p95 <= {TARGET_P95_MS:g} ms)")
    return 0 if figures["p95"] <= TARGET_P95_MS else 1


if __name__ == "__main__":
    sys.exit(main())
