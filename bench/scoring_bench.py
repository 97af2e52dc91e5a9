"""Benchmark of ``python -m scoring standings`` against a bare ``json.load``.

Generates valid, realistic tournaments of 100, 1,000 and 10,000 games (about 40, 200
and 1,000 players: best moves, judge's extra points, approvals, penalties,
disqualifications, draws), writes each to a temporary file and times, in the same
run and alternating, the whole scoring command as a user runs it (a subprocess, its
output to a pipe) against ``python -c 'import json,sys; json.load(open(sys.argv[1]))'
FILE`` on the same file. Prints the median of several repetitions (wall time, and the
processes' CPU time beside it: on a shared machine the steadier figure), the ratio and
the cost per game.
Goal: at 10,000 games the command's median wall time is at most 2.0x the bare JSON
load's (reported through ``bench/goals.py``; the exit status is 1 when it is missed).

Also checks with ``python -X importtime`` that ``import scoring`` is cheap and does
not import aiogram.

    .venv/bin/python bench/scoring_bench.py [--repeat N] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
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

from bench.goals import Goal, report  # noqa: E402 - needs ROOT on sys.path

SIZES = ((100, 40), (1_000, 200), (10_000, 1_000))  # (games, players)
TARGET_RATIO = 2.0
ROLES = ["civilian"] * 6 + ["sheriff", "mafia", "mafia", "don"]


def make_tournament(games: int, players: int, rng: random.Random) -> dict[str, Any]:
    """A valid tournament: every game obeys docs/rules.md (checked by the command itself)."""
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


# The bare load the command is held against, as the goal states it.
LOAD = "import json,sys; json.load(open(sys.argv[1]))"
NICKS = ["Лис", "Кот", "Оса", "Fox", "Owl", "Север", "Тень", "Юла", "Граф", "Rook", "Мята"]


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process; its output read from a pipe."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()}")
    return elapsed, _children_cpu() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the children waited for
    return usage.ru_utime + usage.ru_stime


IMPORTS = {
    "import scoring": "import scoring",
    "the command line (scoring.cli)": "import scoring.cli",
    "the whole API": "import scoring.model, scoring.points, scoring.standings, scoring.parse",
}


def _imports(code: str, env: dict[str, str]) -> dict[str, int]:
    """The modules ``code`` imports, with their own µs by -X importtime."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = {}
    for line in done.stderr.splitlines():
        own, _cumulative, name = [*line.removeprefix("import time:").split("|"), "", ""][:3]
        if line.startswith("import time:") and own.strip().isdigit():
            found[name.strip()] = int(own)
    return found


def import_cost(code: str, env: dict[str, str], tries: int = 5) -> tuple[float, set[str]]:
    """(ms of the imports ``code`` adds to the interpreter's own start-up, best of
    ``tries``; the modules it imports)."""
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)  # warm
    start_up = set(_imports("pass", env))
    best = float("inf")
    modules: set[str] = set()
    for _ in range(tries):
        found = {name: us for name, us in _imports(code, env).items() if name not in start_up}
        best = min(best, sum(found.values()) / 1000)
        modules = set(found)
    return best, modules


class Timing:
    """Median seconds over interleaved runs on one file, and on an empty tournament."""

    def __init__(self, path: str, empty: str, repeat: int, env: dict[str, str]) -> None:
        python = sys.executable
        commands = {
            "score": [python, "-m", "scoring", "standings", path],
            "load": [python, "-c", LOAD, path],
            "score0": [python, "-m", "scoring", "standings", empty],
            "load0": [python, "-c", LOAD, empty],
        }
        for argv in commands.values():
            run(argv, env)  # warm the caches, and check the tournament is valid (exit 0)
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeat):
            for name, argv in commands.items():
                wall, used = run(argv, env)
                times[name].append(wall)
                cpu[name].append(used)
        median = {name: statistics.median(values) for name, values in times.items()}
        self.score, self.load = median["score"], median["load"]
        self.score_cpu = statistics.median(cpu["score"])
        self.load_cpu = statistics.median(cpu["load"])
        # the start-up of each command (an empty tournament), measured alongside
        self.score0, self.load0 = median["score0"], median["load0"]

    @property
    def ratio(self) -> float:
        return self.score / self.load

    @property
    def cpu_ratio(self) -> float:
        return self.score_cpu / self.load_cpu

    def per_game(self, games: int) -> tuple[float, float]:
        """µs per game of (scoring, json.load), over their start-up: flat = linear."""
        return (
            (self.score - self.score0) / games * 1e6,
            (self.load - self.load0) / games * 1e6,
        )


def write(folder: str, name: str, data: dict[str, Any]) -> str:
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as stream:
        json.dump(data, stream, ensure_ascii=False)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="repetitions per size (median)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        # As installed code runs: bytecode cached (in a temporary folder, not the tree);
        # and, for comparison, compiled from source on every run.
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
        # (This environment's default: the standard library's bytecode is installed.)
        uncached = {k: v for k, v in cached.items() if k != "PYTHONPYCACHEPREFIX"}
        uncached["PYTHONDONTWRITEBYTECODE"] = "1"
        empty = write(folder, "tournament-0.json", {"distance": 10, "games": []})
        results = []
        for games, players in SIZES:
            path = write(folder, f"tournament-{games}.json", make_tournament(games, players, rng))
            timing = Timing(path, empty, args.repeat, cached)
            results.append((games, players, os.path.getsize(path), timing))
        cold = Timing(path, empty, args.repeat, uncached)
        imports = {label: import_cost(code, cached) for label, code in IMPORTS.items()}
        cold_cli, _ = import_cost(IMPORTS["the command line (scoring.cli)"], uncached)

    print(
        f"python -m scoring standings FILE vs python -c '{LOAD}' FILE:"
        f" median of {args.repeat}, alternating"
    )
    print(
        f"{'games':>7} {'players':>7} {'file MB':>7} {'scoring s':>9} {'json s':>7} {'ratio':>5}"
        f" {'CPU ratio':>9} {'scoring µs/game':>15} {'json µs/game':>12}"
    )
    for games, players, size, timing in results:
        score_each, load_each = timing.per_game(games)
        print(
            f"{games:>7} {players:>7} {size / 1e6:>7.2f} {timing.score:>9.3f} {timing.load:>7.3f}"
            f" {timing.ratio:>5.2f} {timing.cpu_ratio:>9.2f} {score_each:>15.1f}"
            f" {load_each:>12.1f}"
        )
    starts = [(t.score0, t.load0) for *_rest, t in results]
    print(
        "(µs/game: over each command's time on an empty tournament, measured alongside:"
        f" {statistics.median(s for s, _ in starts) * 1000:.0f} ms and"
        f" {statistics.median(j for _, j in starts) * 1000:.0f} ms; flat = linear growth)"
    )
    games, _players, _size, timing = results[-1]
    print(
        f"{games} games, bytecode compiled on every run (PYTHONDONTWRITEBYTECODE=1): "
        f"{cold.score:.3f} s vs {cold.load:.3f} s, ratio {cold.ratio:.2f}"
    )
    aiogram = False
    for label, (ms, modules) in imports.items():
        heavy = sorted(
            m for m in modules if m.split(".")[0] in {"aiogram", "dataclasses", "typing"}
        )
        aiogram = aiogram or any(m.split(".")[0] == "aiogram" for m in modules)
        print(
            f"imports of {label}: {ms:.1f} ms (-X importtime), {len(modules)} modules"
            f"{'; includes ' + ', '.join(heavy) if heavy else ''}"
        )
    print(f"imports of the command line without a bytecode cache: {cold_cli:.1f} ms")
    print(f"aiogram imported: {'YES' if aiogram else 'no'}")
    goal = Goal.at_most(
        f"python -m scoring standings <= {TARGET_RATIO:g}x json.load, {games:,} games",
        round(timing.ratio, 2),
        TARGET_RATIO,
        "x",
    )
    return report([goal])


if __name__ == "__main__":
    raise SystemExit(main())
