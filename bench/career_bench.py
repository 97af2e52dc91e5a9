"""Benchmark of the career rating (``bot.reads.career.CareerService``) after a change.

Builds 1,000 and 10,000 games in a temporary database: tournaments of 1,000 games and
200 players each (``bench/streams.py: seed_tournament``), the first 100 players of each
the same Telegram accounts, so the same persons play every tournament. Then times,
median and maximum over several repetitions:

* the first ``current()`` of a fresh service (every game read and replayed);
* ``current()`` when nothing changed (the change feed's one query);
* ``current()`` after one saved game (applied at the end: ``apply_elo``; the Save's own
  transaction shown apart);
* ``current()`` after a correction of a game in the first tournament, and after an
  annulment there (replayed from the snapshot before it);
* ``current()`` after two persons were merged (the chief judge's /link);
* a profile (``/me``: the person's games, tournaments and places) and the leaderboard.

Target: Save → updated rating within 5 ms at 10,000 games.

    .venv/bin/python bench/career_bench.py [--sizes 1000,10000] [--repeat N]
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
from bench.streams import GROUP, Seeded, _draft, seed_tournament  # noqa: E402
from bot.db import career as repo  # noqa: E402
from bot.db import games  # noqa: E402
from bot.db.connection import Database  # noqa: E402
from bot.reads import career as reads  # noqa: E402
from bot.reads.career import CareerService  # noqa: E402
from bot.reads.standings import StandingsService  # noqa: E402

PER_TOURNAMENT = 1_000
PLAYERS = 200
SHARED = 100  # players of each tournament who are the same accounts everywhere
TARGET_MS = 5.0
ROWS = (
    ("first current() (fresh service)", "first"),
    ("current(), nothing changed", "idle"),
    ("save_game transaction", "save"),
    ("current() after one saved game", "saved"),
    ("current() after a correction", "corrected"),
    ("current() after an annulment", "annulled"),
    ("current() after a merge", "merged"),
    ("profile (/me)", "profile"),
    ("leaderboard (/top)", "top"),
)


class Bench:
    def __init__(self, db: Database, seeded: list[Seeded], rng: random.Random) -> None:
        self.db = db
        self.seeded = seeded
        self.rng = rng
        self.service = CareerService(db)
        self.standings = StandingsService(db)
        last = seeded[-1]
        self.last = last
        self.ids = {str(p.id): p.id for p in last.players}
        self.round = last.rounds + 1
        self.table = 0
        self.times: dict[str, list[float]] = {key: [] for _label, key in ROWS}

    async def timed(self, key: str, action: Callable[[], Awaitable[object]]) -> object:
        start = time.perf_counter()
        result = await action()
        self.times[key].append(time.perf_counter() - start)
        return result

    async def first(self) -> None:
        await self.timed("first", CareerService(self.db).current)

    async def idle(self) -> None:
        await self.timed("idle", self.service.current)

    async def saved(self) -> None:
        self.table += 1
        if self.table > self.last.tables:
            self.round, self.table = self.round + 1, 1
        seated = self.rng.sample(sorted(self.ids), 10)
        spec = make_game(f"R{self.round}-T{self.table}", seated, self.rng)
        draft = _draft(spec, self.round, self.table, self.ids)

        async def save() -> object:
            async with self.db.transaction() as conn:
                judge = self.last.judges[0].id
                return await games.save_game(conn, self.last.tid, draft, judge, _now(), now=_now())

        await self.timed("save", save)
        await self.timed("saved", self.service.current)

    async def _early_game(self) -> games.GameRecord:
        async with self.db.read() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE tournament_id = ? AND status <> 'annulled'"
                " ORDER BY id LIMIT 200",
                (self.seeded[0].tid,),
            )
            return await games.require_game(conn, self.rng.choice(list(rows))[0])

    async def corrected(self) -> None:
        game = await self._early_game()
        ids = {str(seat.player_id): seat.player_id for seat in game.seats}
        spec = make_game(game.code, sorted(ids), self.rng)
        async with self.db.transaction() as conn:
            await games.update_game(conn, game.id, _draft(spec, game.round, game.table_no, ids))
        await self.timed("corrected", self.service.current)

    async def annulled(self) -> None:
        game = await self._early_game()
        async with self.db.transaction() as conn:
            await games.annul_game(conn, game.id, annulled_by=self.last.chief.id)
        await self.timed("annulled", self.service.current)

    async def merged(self) -> None:
        # Two roster players of two tournaments (no account, never at one table).
        if len(self.seeded) < 2:
            return
        first, second = self.rng.sample(self.seeded, 2)
        a = self.rng.choice(first.players[SHARED:])
        b = self.rng.choice(second.players[SHARED:])
        async with self.db.transaction() as conn:
            x = await repo.person_of_player(conn, a.id)
            y = await repo.person_of_player(conn, b.id)
            if x is None or y is None or x.id == y.id or await repo.met(conn, x.id, y.id):
                return
            await repo.merge_persons(conn, x.id, y.id)
        await self.timed("merged", self.service.current)

    async def profile(self) -> None:
        state = await self.service.current()
        person = state.leaderboard(1)[0].person_id
        await self.timed("profile", lambda: reads.profile(
            self.db, state, self.standings, person, 10))

    async def top(self) -> None:
        state = await self.service.current()
        await self.timed("top", lambda: reads.leaderboard(self.db, state, 10))


def _now() -> datetime:
    return datetime.now(UTC)


async def measure(size: int, repeat: int, seed: int) -> tuple[Bench, float]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.db")
        try:
            seeded = []
            for n in range(max(1, size // PER_TOURNAMENT)):
                seeded.append(await seed_tournament(
                    db, games_count=PER_TOURNAMENT, players_count=PLAYERS, linked=SHARED,
                    chat_id=GROUP - n, seed=seed + n,
                ))
                # The seeder names drafts by round and table: each tournament's its own.
                await db.execute("UPDATE games SET draft_id = draft_id || '-' || tournament_id"
                                 " WHERE tournament_id = ?", (seeded[-1].tid,))
            seeding = time.perf_counter() - started
            bench = Bench(db, seeded, random.Random(seed))
            await bench.service.current()  # warm: the service keeps the games from here
            for _ in range(repeat):
                await bench.saved()
                await bench.idle()
                await bench.corrected()
                await bench.annulled()
                await bench.merged()
                await bench.profile()
                await bench.top()
                await bench.first()
            # The incremental result is a fresh service's.
            kept, fresh = await bench.service.current(), await CareerService(db).current()
            assert kept.changes == fresh.changes and kept.sums == fresh.sums
        finally:
            await db.close()
    return bench, seeding


def _cell(values: list[float]) -> str:
    if not values:
        return f"{'—':>19}"
    return f"{statistics.median(values) * 1000:8.2f} / {max(values) * 1000:8.2f}"


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="games in all")
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
    if 10_000 in results:
        after = statistics.median(results[10_000].times["saved"]) * 1000
        verdict = "met" if after <= TARGET_MS else "NOT met"
        print(f"10000 games: Save -> updated rating {after:.2f} ms (median); "
              f"target <= {TARGET_MS:.0f} ms: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
