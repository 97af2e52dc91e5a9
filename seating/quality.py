"""The figures of a plan's fairness (docs/formats.md#seating, "Plan": ``quality``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .model import SEATS, Plan, Quality, Request, Round


def quality(plan: Plan, request: Request) -> Quality:
    """``plan``'s figures measured afresh against ``request`` (its ``cut_short`` and
    ``seconds`` are kept: they tell how it was made)."""
    return measure(
        plan.rounds, request, cut_short=plan.quality.cut_short, seconds=plan.quality.seconds
    )


def measure(
    rounds: Sequence[Round], request: Request, *, cut_short: bool = False, seconds: float = 0.0
) -> Quality:
    players = request.players
    index = {name: n for n, name in enumerate(players)}
    count = len(players)
    seat_games = [[0] * SEATS for _ in range(count)]
    table_games = [[0] * request.tables for _ in range(count)]
    meetings = [[0] * count for _ in range(count)]
    apart = {frozenset(pair) for pair in request.apart}
    apart_games = 0
    for round_ in rounds:
        for table in round_.tables:
            group = [index[name] for name in table.seats]
            for seat, p in enumerate(group):
                seat_games[p][seat] += 1
                if 1 <= table.table <= request.tables:
                    table_games[p][table.table - 1] += 1
            for i, a in enumerate(group):
                row = meetings[a]
                for b in group[i + 1 :]:
                    row[b] += 1
            seats = table.seats
            if apart and any(
                frozenset((a, b)) in apart for i, a in enumerate(seats) for b in seats[i + 1 :]
            ):
                apart_games += 1
    # The withdrawn left with what they played: the figures are those of who plays on.
    gone = set(request.withdrawn)
    on = [p for p, name in enumerate(players) if name not in gone]
    histogram: Counter[int] = Counter()
    for i, a in enumerate(on):
        for b in on[i + 1 :]:
            histogram[meetings[a][b] + meetings[b][a]] += 1
    return Quality(
        seat_spread=max(max(seat_games[p]) - min(seat_games[p]) for p in on),
        meetings_min=min(histogram),
        meetings_max=max(histogram),
        meetings_histogram=dict(sorted(histogram.items())),
        table_spread=max(max(table_games[p]) - min(table_games[p]) for p in on),
        apart_violations=apart_games,
        cut_short=cut_short,
        seconds=seconds,
    )
