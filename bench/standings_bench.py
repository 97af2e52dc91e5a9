"""Benchmark of the live standings (``bot.reads.standings.StandingsService``) after a change.

Builds tournaments of 100, 1,000 and 10,000 games (40, 200 and 1,000 players) in a
temporary database with ``bench/streams.py: seed_tournament``, then times, median and
maximum over several repetitions:

* the first ``get`` of a fresh service (every game read and scored);
* the full recompute the service replaced (``load_scoring_tournament`` +
  ``compute_standings``), for comparison;
* ``get`` after one saved game, after one correction (``update_game``) and after one
  lot, each followed by ``invalidate`` as the bot does (the change itself not timed;
  the Save's own transaction is shown apart);
* ``breakdowns()`` of a result, the first call and a cached one (private /rating).

Target: Save → recomputed standings under 50 ms at 1,000 games (docs/development.md, "Reliability
and speed").

    .venv/bin/python bench/standings_bench.py [--sizes 100,1000,10000] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.scoring_bench import make_game  # noqa: E402 - needs ROOT on sys.path
from bench.streams import Seeded, _draft, seed_tournament  # noqa: E402
from bot.db import games, lots  # noqa: E402
from bot.db.connection import Database  # noqa: E402
from bot.db.scoring_bridge import load_scoring_tournament  # noqa: E402
from bot.reads.standings import StandingsService  # noqa: E402
from scoring import compute_standings  # noqa: E402

PLAYERS = {100: 40, 1_000: 200, 10_000: 1_000}
TARGET_MS = 50.0
ROWS = (
    ("first get (fresh service)", "first"),
    ("full recompute (old way)", "full"),
    ("save_game transaction", "save"),
    ("get after one saved game", "saved"),
    ("get after one correction", "corrected"),
    ("get after one lot", "lot"),
    ("breakdowns() first", "breakdowns"),
    ("breakdowns() cached", "breakdowns_cached"),
)


class Bench:
    def __init__(self, db: Database, seeded: Seeded, rng: random.Random) -> None:
        self.db = db
        self.seeded = seeded
        self.rng = rng
        self.service = StandingsService(db)
        self.ids = {str(p.id): p.id for p in seeded.players}
        self.round = seeded.rounds + 1  # new games go to rounds after the seeded ones
        self.table = 0
        self.times: dict[str, list[float]] = {key: [] for _label, key in ROWS}

    @property
    def tid(self) -> int:
        return self.seeded.tid

    async def timed(self, key: str, action: Callable[[], Awaitable[object]]) -> object:
        start = time.perf_counter()
        result = await action()
        self.times[key].append(time.perf_counter() - start)
        return result

    async def first(self) -> None:
        fresh = StandingsService(self.db)
        await self.timed("first", lambda: fresh.get(self.tid))

    async def full(self) -> None:
        async def recompute() -> object:
            async with self.db.read() as conn:
                tournament = await load_scoring_tournament(conn, self.tid)
            return compute_standings(tournament)

        await self.timed("full", recompute)

    async def saved(self) -> None:
        self.table += 1
        if self.table > self.seeded.tables:
            self.round, self.table = self.round + 1, 1
        seated = self.rng.sample(sorted(self.ids), 10)
        spec = make_game(f"R{self.round}-T{self.table}", seated, self.rng)
        draft = _draft(spec, self.round, self.table, self.ids)

        async def save() -> object:
            async with self.db.transaction() as conn:
                judge = self.seeded.judges[0].id
                return await games.save_game(conn, self.tid, draft, judge, _now())

        await self.timed("save", save)
        await self.recompute("saved")

    async def corrected(self) -> None:
        async with self.db.read() as conn:
            game_ids = await conn.execute_fetchall(
                "SELECT id FROM games WHERE tournament_id = ? AND status <> 'annulled'",
                (self.tid,),
            )
            game = await games.require_game(conn, self.rng.choice(list(game_ids))[0])
        # The same ten players, a new protocol (seats, roles, result, points).
        spec = make_game(game.code, [str(seat.player_id) for seat in game.seats], self.rng)
        draft = _draft(spec, game.round, game.table_no, self.ids)
        async with self.db.transaction() as conn:
            await games.update_game(conn, game.id, draft)
        await self.recompute("corrected")

    async def lot(self) -> None:
        pair = self.rng.sample([p.id for p in self.seeded.players], 2)
        async with self.db.transaction() as conn:
            await lots.record_lot(conn, self.tid, pair, drawn_by=self.seeded.chief.id)
        await self.recompute("lot")

    async def recompute(self, key: str) -> None:
        self.service.invalidate(self.tid)
        await self.timed(key, lambda: self.service.get(self.tid))

    async def breakdowns(self) -> None:
        current = await self.service.get(self.tid)
        await self.timed("breakdowns", _sync(current.breakdowns))
        await self.timed("breakdowns_cached", _sync(current.breakdowns))


def _sync(call: Callable[[], object]) -> Callable[[], Awaitable[object]]:
    async def run() -> object:
        return call()

    return run


def _now() -> datetime:
    return datetime.now(UTC)


async def measure(size: int, repeat: int, seed: int) -> tuple[Bench, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.db")
        try:
            seeded = await seed_tournament(
                db, games_count=size, players_count=PLAYERS.get(size, max(10, size // 5)), seed=seed
            )
            bench = Bench(db, seeded, random.Random(seed))
            await bench.service.get(bench.tid)  # warm: the service keeps the games from here
            for _ in range(repeat):
                await bench.first()
                await bench.full()
                await bench.saved()
                await bench.breakdowns()
                await bench.corrected()
                await bench.lot()
            # The incremental result is the full recompute's.
            async with db.read() as conn:
                expected = compute_standings(await load_scoring_tournament(conn, bench.tid))
            bench.service.invalidate(bench.tid)
            assert (await bench.service.get(bench.tid)).standings == expected
        finally:
            await db.close()
    return bench, seeded.seconds


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.2f} / {max(values) * 1000:8.2f}"


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="games per tournament")
    parser.add_argument("--repeat", type=int, default=7, help="repetitions of each step")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")]
    results: dict[int, Bench] = {}
    for size in sizes:
        bench, seeding = await measure(size, args.repeat, args.seed)
        results[size] = bench
        print(f"seeded {size} games in {seeding:.1f} s", file=sys.stderr)
    width = max(len(label) for label, _key in ROWS)
    print(f"ms, median / max of {args.repeat}")
    print(" " * width + "".join(f"  {f'{size} games':>19}" for size in sizes))
    for label, key in ROWS:
        print(f"{label:<{width}}" + "".join(f"  {_cell(results[s].times[key])}" for s in sizes))
    if 1_000 in results:
        saved = results[1_000].times
        total = statistics.median(saved["save"]) + statistics.median(saved["saved"])
        verdict = "met" if total * 1000 < TARGET_MS else "NOT met"
        print(
            f"1000 games: save_game + get = {total * 1000:.1f} ms (median); "
            f"target < {TARGET_MS:.0f} ms: {verdict}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
