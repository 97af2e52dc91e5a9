"""The contract's hard rules, checked on a plan as JSON data (independent of ``seating``)."""

from __future__ import annotations

from collections import Counter
from typing import Any


def broken_rules(plan: dict[str, Any], request: dict[str, Any]) -> list[str]:
    """Every hard rule of seating-contract.md that ``plan`` breaks (empty: none)."""
    players = request["players"]
    games = request["games_per_player"]
    tables = request.get("tables", len(players) // 10)
    total = len(players) * games // 10
    rounds = plan["rounds"]
    problems = []
    if [r["round"] for r in rounds] != list(range(1, len(rounds) + 1)):
        problems.append("rounds are not numbered 1..n")
    if sum(len(r["tables"]) for r in rounds) != total:
        problems.append(f"not {total} games")
    played: Counter[str] = Counter()
    for n, round_ in enumerate(rounds):
        last = n == len(rounds) - 1
        count = len(round_["tables"])
        if count != tables and not (last and count < tables):
            problems.append(f"round {round_['round']}: {count} tables")
        numbers = [t["table"] for t in round_["tables"]]
        if len(set(numbers)) != len(numbers) or not all(1 <= t <= tables for t in numbers):
            problems.append(f"round {round_['round']}: table numbers {numbers}")
        seated = [name for t in round_["tables"] for name in t["seats"]]
        if any(len(t["seats"]) != 10 for t in round_["tables"]):
            problems.append(f"round {round_['round']}: a table without 10 seats")
        if len(set(seated)) != len(seated):
            problems.append(f"round {round_['round']}: someone plays twice")
        if set(seated) - set(players):
            problems.append(f"round {round_['round']}: unknown players")
        resting = [p for p in players if p not in set(seated)]
        if round_["sitting_out"] != resting:
            problems.append(f"round {round_['round']}: sitting_out is not the rest")
        played.update(seated)
    for name in players:
        if played[name] != games:
            problems.append(f"{name} plays {played[name]} games")
    return problems


def meetings(plan: dict[str, Any]) -> Counter[frozenset[str]]:
    met: Counter[frozenset[str]] = Counter()
    for round_ in plan["rounds"]:
        for table in round_["tables"]:
            seats = table["seats"]
            for i, a in enumerate(seats):
                for b in seats[i + 1 :]:
                    met[frozenset((a, b))] += 1
    return met


def spreads(plan: dict[str, Any], players: list[str], tables: int) -> tuple[int, int]:
    """(seat spread, table spread), counted from the rounds."""
    seat = {p: [0] * 10 for p in players}
    table = {p: [0] * tables for p in players}
    for round_ in plan["rounds"]:
        for t in round_["tables"]:
            for n, name in enumerate(t["seats"]):
                seat[name][n] += 1
                table[name][t["table"] - 1] += 1
    return (
        max(max(c) - min(c) for c in seat.values()),
        max(max(c) - min(c) for c in table.values()),
    )
