"""Benchmark of the seating plan generator on the four goal cases.

Generates, with a fixed seed, the plans of 40 players × 10 games at 4 tables,
20 × 10 at 2, 100 × 10 at 10 and 36 × 10 at 3 (12 rounds, sit-outs) through
``seating.generate`` and prints, for each: seconds, seat spread, fewest / most games a
pair shares, the pairs by games shared, table spread, whether the time limit cut the
search short, and whether each goal is met.

    .venv/bin/python bench/seating_bench.py [--seed N]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seating import Quality, generate, parse_request  # noqa: E402

Goal = tuple[str, Callable[[Quality], bool]]
CASES: list[tuple[int, int, int, list[Goal]]] = [
    (40, 10, 4, [
        ("seat spread 0", lambda q: q.seat_spread == 0),
        ("meetings 1-3", lambda q: q.meetings_min >= 1 and q.meetings_max <= 3),
        ("table spread <= 1", lambda q: q.table_spread <= 1),
    ]),
    (20, 10, 2, [
        ("seat spread 0", lambda q: q.seat_spread == 0),
        ("meetings 3-7", lambda q: q.meetings_min >= 3 and q.meetings_max <= 7),
    ]),
    (100, 10, 10, [
        ("seat spread 0", lambda q: q.seat_spread == 0),
        ("meetings <= 2", lambda q: q.meetings_max <= 2),
    ]),
    (36, 10, 3, [
        ("seat spread <= 1", lambda q: q.seat_spread <= 1),
        ("meetings <= 4", lambda q: q.meetings_max <= 4),
    ]),
]
SPEED = {40: 3.0, 100: 5.0}  # seconds aimed at


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"{'case':<10} {'s':>5} {'seat':>4} {'meet':>5} {'table':>5} {'cut':>5}  histogram"
    )
    verdicts = []
    for players, games, tables, goals in CASES:
        request = parse_request(
            {
                "players": [f"P{n:03d}" for n in range(players)],
                "games_per_player": games,
                "tables": tables,
                "seed": args.seed,
            }
        )
        q = generate(request).quality
        case = f"{players}x{games}/{tables}"
        histogram = " ".join(f"{k}:{v}" for k, v in sorted(q.meetings_histogram.items()))
        print(
            f"{case:<10} {q.seconds:>5.2f} {q.seat_spread:>4}"
            f" {q.meetings_min:>2}-{q.meetings_max:<2} {q.table_spread:>5}"
            f" {q.cut_short!s:>5}  {histogram}"
        )
        verdicts.extend((case, name, check(q)) for name, check in goals)
        if players in SPEED:
            verdicts.append((case, f"<= {SPEED[players]:g} s", q.seconds <= SPEED[players]))
    print()
    for case, name, met in verdicts:
        print(f"{case:<10} {name:<20} {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
