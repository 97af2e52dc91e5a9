"""Closing a stage (docs/rules.md D13) for a tournament of 100 players: how long the chief
judge waits.

A qualifying of 10 games a player is stored (100 players, 10 rounds of 10 tables: 100
games, saved with the bot's own repository into a database FILE), a semifinal of the
top 20 added. Then, through the REAL dispatcher (``bot.app.build_dispatcher``: its
middlewares, SQLite FSM storage) on a recording session that answers at once:

* ``/stages close``: the cut's preview (the standings computed from cold, as after a
  restart, then the card);
* the tap on "Close the stage": the entrants stored and audited, the group's note and
  standings queued, each entrant told privately (20 messages, answered at once here).

Each is timed from feeding the update to the handler's return, ``--runs`` times on a
fresh copy of the database. Reported: p50 and max of each, and of both together.

    .venv/bin/python bench/stage_close_bench.py [--players 100] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.app import build_dispatcher
from bot.config import Settings
from bot.db import Database
from bot.db import stages as stages_db
from scoring import Result, Role
from tests.handlers.rating_fixtures import CHAT, CHIEF, add_game, make_world
from tests.support import BotHarness

ROLES = (Role.SHERIFF, Role.DON, Role.MAFIA, Role.MAFIA, *[Role.CIVILIAN] * 6)


async def build(path: Path, players: int, seed: int) -> None:
    """The qualifying: every player 10 games, seats shuffled each round; a semifinal."""
    rng = random.Random(seed)
    db = await Database.open(path)
    try:
        world = await make_world(db, players, distance=10)
        for round_no in range(1, 11):
            order = list(range(1, players + 1))
            rng.shuffle(order)
            for table in range(players // 10):
                seated = order[table * 10:(table + 1) * 10]
                roles = list(ROLES)
                rng.shuffle(roles)
                extras = {rng.randint(1, 10): rng.choice((10, 20, 30))}
                await add_game(db, world, seated, round_no=round_no, table_no=table + 1,
                               result=rng.choice((Result.RED, Result.BLACK)), roles=roles,
                               extras=extras)
        async with db.transaction() as conn:
            await stages_db.add_stage(conn, world.tournament_id,
                                      stages_db.StageSpec("qualifying", 10, None),
                                      status="running")
            await stages_db.add_stage(conn, world.tournament_id,
                                      stages_db.StageSpec("semifinal", 2, 20, "0.5"))
    finally:
        await db.close()


async def close_once(path: Path) -> tuple[float, float, int]:
    """Seconds for the preview and for the tap; the entrants stored."""
    db = await Database.open(path)
    settings = Settings(bot_token=None, database_path=path, standings_debounce=0)
    try:
        async with BotHarness(build_dispatcher(db, settings)) as harness:
            chief = harness.user(CHIEF, "Chief", language_code="en")
            started = time.perf_counter()
            await harness.say(chief, "/stages close", chat_id=CHAT)
            preview = time.perf_counter() - started
            card = harness.session.last_message(CHAT)
            assert card is not None and "Entering the semifinal stage (20)" in (card.text or ""), (
                card.text if card else None)
            started = time.perf_counter()
            await harness.press(chief, card, text="Close the stage")
            close = time.perf_counter() - started
        async with db.read() as conn:
            semifinal = (await stages_db.list_stages(conn, 1))[1]
            entrants = len(await stages_db.entrants_of(conn, semifinal.id))
    finally:
        await db.close()
    return preview, close, entrants


def line(name: str, values: list[float]) -> str:
    return (f"{name:<22} p50 {statistics.median(values) * 1000:7.1f} ms   "
            f"max {max(values) * 1000:7.1f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.sqlite3"
        made = time.perf_counter()
        await build(base, args.players, seed=7)
        print(f"{args.players} players, {args.players} qualifying games stored in "
              f"{time.perf_counter() - made:.1f} s")
        previews, closes, totals = [], [], []
        for run in range(args.runs):
            path = Path(tmp) / f"run{run}.sqlite3"
            shutil.copy(base, path)
            preview, close, entrants = await close_once(path)
            assert entrants == 20, entrants
            previews.append(preview)
            closes.append(close)
            totals.append(preview + close)
        print(line("/stages close (cut)", previews))
        print(line("Close the stage (tap)", closes))
        print(line("both", totals))


if __name__ == "__main__":
    asyncio.run(main())
