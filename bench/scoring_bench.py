"""Benchmark of ``python -m scoring standings`` against a bare ``json.load``.

Generates valid, realistic tournaments of 100, 1,000 and 10,000 games (about 40, 200
and 1,000 players: best moves, judge's extra points, approvals, penalties,
disqualifications, draws), writes each to a temporary file and times, in the same
run and interleaved, the whole scoring command as a subprocess against
``python -c "import json; json.load(open(FILE))"`` on the same file. Prints the
median of several repetitions, the ratio and the cost per game.
Target: at 10,000 games the command takes at most 2x the bare JSON load.

Also checks with ``python -X importtime`` that ``import scoring`` is cheap and does
not import aiogram.

    .venv/bin/python bench/scoring_bench.py [--repeat N] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZES = ((100, 40), (1_000, 200), (10_000, 1_000))  # (games, players)
TARGET_RATIO = 2.0
ROLES = ["civilian"] * 6 + ["sheriff", "mafia", "mafia", "don"]


def make_tournament(games: int, players: int, rng: random.Random) -> dict[str, Any]:
    """A valid tournament: every game obeys RULES.md (checked by the command itself)."""
    names = [f"{rng.choice(NICKS)}-{n:04d}" for n in range(players)]
    distance = max(1, games * 10 // players)
    lot = rng.sample(names, k=min(4, players))
    return {
        "distance": distance,
        "lot": lot,
        "games": [make_game(f"R{g // 10 + 1}-T{g % 10 + 1}", names, rng) for g in range(games)],
    }


def make_game(game_id: str, names: list[str], rng: random.Random) -> dict[str, Any]:
    roles = ROLES[:]
    rng.shuffle(roles)
    seated = rng.sample(names, 10)
    result = rng.choices(["red", "black", "draw"], weights=[46, 46, 8])[0]
    red = [n for n in range(1, 11) if roles[n - 1] in ("civilian", "sheriff")]
    black = [n for n in range(1, 11) if n not in red]
    game: dict[str, Any] = {
        "id": game_id,
        "result": result,
        "seats": [{"player": p, "role": r} for p, r in zip(seated, roles, strict=True)],
    }
    voted_out = rng.choices([0, 1, 2], weights=[35, 55, 10])[0]
    game["day1_voted_out"] = voted_out
    first = rng.randint(1, 10) if rng.random() < 0.92 else None
    game["first_killed"] = first
    best_points = 0
    if first is not None and voted_out < 2 and rng.random() < 0.8:
        others = [n for n in range(1, 11) if n != first]
        named = rng.sample(others, rng.choices([1, 2, 3], weights=[10, 20, 70])[0])
        game["best_move"] = named
        hint = rng.random() < 0.05
        if hint:
            game["best_move_hint"] = True
        hits = len(set(named) & set(black))
        if first in red and not hint:
            best_points = 40 if hits == 3 else 25 if hits == 2 else 0
    if result != "draw":
        winners = red if result == "red" else black
        budget = 100
        extras: dict[str, Any] = {}
        approved = []
        for seat in rng.sample(range(1, 11), rng.choices([0, 1, 2, 3, 4], [10, 25, 35, 20, 10])[0]):
            top = 70 if seat in winners else 40
            value = rng.choice([v for v in range(5, top + 1, 5) if v <= 50 or rng.random() < 0.3])
            own = best_points if seat == first else 0
            if value > own and value > budget:
                continue
            if value > own:
                budget -= value
            if value > 50 and rng.random() < 0.9:
                approved.append(seat)
            text = f"{value // 100}.{value % 100:02d}".rstrip("0")
            extras[str(seat)] = text if rng.random() < 0.5 else float(text)
        if extras:
            game["judge_extras"] = extras
        if approved:
            game["chief_approved"] = approved
    if rng.random() < 0.06:
        penalty = rng.choice(["8.5.1", "8.5.2", "8.5.3", "8.5.4"])
        civilians = [n for n in red if roles[n - 1] == "civilian"]
        allowed = {
            "8.5.1": red if result == "black" else [],
            "8.5.2": civilians,
            "8.5.3": red if result == "black" else [],
            "8.5.4": black if result == "red" else [],
        }[penalty]
        if allowed:
            game["penalties"] = {str(rng.choice(allowed)): [penalty]}
    if rng.random() < 0.01:
        game["disqualified"] = [rng.randint(1, 10)]
    return game


NICKS = ["Лис", "Кот", "Оса", "Fox", "Owl", "Север", "Тень", "Юла", "Граф", "Rook", "Мята"]


def run(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed


def import_cost(env: dict[str, str]) -> tuple[float, bool]:
    """(cumulative µs of ``import scoring`` by -X importtime, whether aiogram got imported)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import scoring"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    total = 0.0
    aiogram = False
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _self, cumulative, name = line.removeprefix("import time:").split("|")
        if name.strip() == "scoring":
            total = float(cumulative)
        aiogram = aiogram or name.strip().split(".")[0] == "aiogram"
    return total, aiogram


def measure(path: str, repeat: int, env: dict[str, str]) -> tuple[float, float]:
    """Median seconds of (the scoring command, the bare json.load), interleaved."""
    python = sys.executable
    score_cmd = [python, "-m", "scoring", "standings", path]
    load_cmd = [python, "-c", f"import json; json.load(open({path!r}, encoding='utf-8'))"]
    run(score_cmd, env)  # warm the caches, and check the tournament is valid (exit 0)
    run(load_cmd, env)
    scores, loads = [], []
    for _ in range(repeat):
        loads.append(run(load_cmd, env))
        scores.append(run(score_cmd, env))
    return statistics.median(scores), statistics.median(loads)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="repetitions per size (median)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        # As installed code runs: bytecode cached (in a temporary folder, not the tree).
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
        uncached = dict(cached, PYTHONDONTWRITEBYTECODE="1")
        results = []
        for games, players in SIZES:
            path = os.path.join(folder, f"tournament-{games}.json")
            with open(path, "w", encoding="utf-8") as stream:
                json.dump(make_tournament(games, players, rng), stream, ensure_ascii=False)
            score, load = measure(path, args.repeat, cached)
            results.append((games, players, os.path.getsize(path), score, load))
        cold_score, cold_load = measure(path, args.repeat, uncached)
        micros, aiogram = import_cost(cached)
        cold_micros, _ = import_cost(uncached)

    print(f"python -m scoring standings FILE vs python -c 'json.load(FILE)', median of {args.repeat}")
    print(f"{'games':>7} {'players':>7} {'file MB':>8} {'scoring s':>10} {'json s':>8} "
          f"{'ratio':>6} {'µs/game':>8}")
    for games, players, size, score, load in results:
        print(f"{games:>7} {players:>7} {size / 1e6:>8.2f} {score:>10.3f} {load:>8.3f} "
              f"{score / load:>6.2f} {score / games * 1e6:>8.1f}")
    games, _players, _size, score, load = results[-1]
    print(f"{games} games without a bytecode cache (PYTHONDONTWRITEBYTECODE=1): "
          f"{cold_score:.3f} s vs {cold_load:.3f} s, ratio {cold_score / cold_load:.2f}")
    print(f"import scoring: {micros / 1000:.1f} ms cumulative (-X importtime), "
          f"{cold_micros / 1000:.1f} ms without a bytecode cache; "
          f"aiogram imported: {'YES' if aiogram else 'no'}")
    ok = score / load <= TARGET_RATIO and not aiogram
    print(f"target at {games} games, ratio <= {TARGET_RATIO}: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
