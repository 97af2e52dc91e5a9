"""A plan written out: the contract's JSON, or a table for people."""

from __future__ import annotations

import json

from .model import SEATS, Plan, Quality, Round


def plan_to_dict(plan: Plan) -> dict[str, object]:
    """The contract's plan object (JSON-ready: histogram keys are strings)."""
    return {
        "rounds": [round_to_dict(round_) for round_ in plan.rounds],
        "quality": quality_to_dict(plan.quality),
    }


def round_to_dict(round_: Round) -> dict[str, object]:
    return {
        "round": round_.round,
        "tables": [{"table": t.table, "seats": list(t.seats)} for t in round_.tables],
        "sitting_out": list(round_.sitting_out),
    }


def quality_to_dict(quality: Quality) -> dict[str, object]:
    return {
        "seat_spread": quality.seat_spread,
        "meetings_min": quality.meetings_min,
        "meetings_max": quality.meetings_max,
        "meetings_histogram": {str(k): v for k, v in sorted(quality.meetings_histogram.items())},
        "table_spread": quality.table_spread,
        "apart_violations": quality.apart_violations,
        "cut_short": quality.cut_short,
        "seconds": round(quality.seconds, 3),
    }


def plan_to_json(plan: Plan) -> str:
    """The plan as one line of JSON (names as written, not \\u-escaped)."""
    return json.dumps(plan_to_dict(plan), ensure_ascii=False)


def plan_to_table(plan: Plan) -> str:
    """The plan for people: per round, a line per table with the names in seat order,
    then who sits out; then the quality report."""
    width = max(
        [len(name) for r in plan.rounds for t in r.tables for name in t.seats] + [4]
    )
    label = max([len(f"Table {t.table}") for r in plan.rounds for t in r.tables] + [7])
    lines = []
    header = " " * (label + 4) + "  ".join(f"{n:<{width}}" for n in range(1, SEATS + 1))
    for round_ in plan.rounds:
        lines.append(f"Round {round_.round}")
        lines.append(header.rstrip())
        for table in round_.tables:
            cells = "  ".join(f"{name:<{width}}" for name in table.seats)
            lines.append(f"  {f'Table {table.table}':<{label}}  {cells}".rstrip())
        if round_.sitting_out:
            lines.append("  Sitting out: " + ", ".join(round_.sitting_out))
        lines.append("")
    lines.extend(quality_report(plan.quality))
    return "\n".join(lines)


def quality_report(quality: Quality) -> list[str]:
    histogram = ", ".join(
        f"{k}× {v}" for k, v in sorted(quality.meetings_histogram.items())
    )
    search = (
        f"cut short by the time limit after {quality.seconds:.2f} s"
        if quality.cut_short
        else f"complete in {quality.seconds:.2f} s"
    )
    return [
        "Quality",
        f"  Seat spread: {quality.seat_spread}"
        " (most - fewest games one player had in one seat number; 0 = all even)",
        f"  Meetings: every pair of players shares {quality.meetings_min} to"
        f" {quality.meetings_max} games",
        f"  Pairs by games shared: {histogram}",
        f"  Table spread: {quality.table_spread}"
        " (most - fewest games one player had at one table)",
        f"  Apart pairs at one table: {quality.apart_violations} games",
        f"  Search: {search}",
    ]
