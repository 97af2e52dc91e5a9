"""Benchmark of the career rating (``scoring.elo``) as the bot will use it.

Builds, with a fixed seed, a history of 10,000 games (1,000 players; club, tournament
and elite games; a few short tables, draws and unrated games) and times, median and
maximum over several repetitions:

* applying one new game to the sums after the whole history (``apply_elo``: what a
  Save costs; its cost is the game's players, not the history's);
* the full replay of the history from nothing (``replay_elo``: what a correction of
  the very first game costs at most);
* ``python -m scoring elo`` on the history written to a file (reading, checking,
  computing and writing the JSON), as a subprocess.

Target: one game applied far under 5 ms at 10,000 games of history.

    .venv/bin/python bench/elo_bench.py [--games N] [--repeat N] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scoring import EloGame, EloKind, EloSeat, EloSums, apply_elo, replay_elo  # noqa: E402
from scoring.elo_file import read_elo_file  # noqa: E402
from scoring.model import Result, Role  # noqa: E402

TARGET_MS = 5.0
ROLES = ["civilian"] * 6 + ["sheriff", "mafia", "mafia", "don"]


def make_history(games: int, players: int, rng: random.Random) -> dict[str, Any]:
    """A rating file: every game valid; some players start with sums."""
    names = [f"P{n:04d}" for n in range(players)]
    initial = {
        name: {"red": rng.uniform(-50, 150), "black": rng.uniform(-50, 100)}
        for name in rng.sample(names, players // 4)
    }
    return {"initial": initial, "games": [make_game(f"G{n}", names, rng) for n in range(games)]}


def make_game(game_id: str, names: list[str], rng: random.Random) -> dict[str, Any]:
    size = 10 if rng.random() < 0.95 else rng.randint(6, 9)
    roles = rng.sample(ROLES, size)
    game: dict[str, Any] = {
        "id": game_id,
        "kind": rng.choices(["club", "tournament", "elite"], weights=[50, 45, 5])[0],
        "players": [
            {"player": player, "role": role}
            for player, role in zip(rng.sample(names, size), roles, strict=True)
        ],
        "winner": rng.choices(["red", "black", None], weights=[48, 48, 4])[0],
    }
    if rng.random() < 0.02:
        game["rated"] = False
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games of history")
    parser.add_argument("--repeat", type=int, default=7, help="repetitions of each step")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    data = make_history(args.games, max(10, args.games // 10), rng)
    read = read_elo_file(data)
    history: list[EloGame] = read.games
    initial: dict[str, EloSums] = read.initial
    names = sorted({seat.player for game in history for seat in game.seats})

    replays = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        done = replay_elo(history, initial)
        replays.append(time.perf_counter() - start)

    applies = []
    for n in range(max(args.repeat, 200)):  # one Save after the whole history
        sums = dict(done.sums)
        seated = rng.sample(names, 10)
        game = EloGame(
            f"new-{n}",
            EloKind.TOURNAMENT,
            tuple(EloSeat(p, Role(r)) for p, r in zip(seated, ROLES, strict=True)),
            rng.choice([Result.RED, Result.BLACK]),
        )
        start = time.perf_counter()
        apply_elo(sums, game)
        applies.append(time.perf_counter() - start)

    commands = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "history.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        for _ in range(max(1, args.repeat // 2)):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "scoring", "elo", str(path)],
                cwd=ROOT,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            commands.append(time.perf_counter() - start)

    per_game = statistics.median(applies) * 1e6
    print(f"{args.games} games of history, {len(names)} players")
    print(f"apply one game       {per_game:9.1f} µs median, {max(applies) * 1e6:9.1f} µs max")
    print(
        f"replay {args.games} games  {statistics.median(replays) * 1000:9.1f} ms median,"
        f" {max(replays) * 1000:9.1f} ms max"
        f" ({statistics.median(replays) / args.games * 1e6:.1f} µs a game)"
    )
    print(f"python -m scoring elo {statistics.median(commands) * 1000:9.1f} ms median")
    verdict = "met" if per_game / 1000 < TARGET_MS else "NOT met"
    print(f"one game applied under {TARGET_MS:g} ms: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
