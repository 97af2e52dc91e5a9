"""One table of ten players (a final, RULES.md D13/D14): seats rotate so everyone sits
in every seat as evenly as the games allow, from the start and around played rounds."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seating import generate, parse_request, plan_to_dict

from .rules import broken_rules

NAMES = [f"F{n}" for n in range(10)]
SETTINGS = settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def _repeats(plan: dict[str, Any]) -> list[tuple[int, str, int]]:
    """(block, player, seat) taken twice within a block of ten rounds."""
    taken: Counter[tuple[int, str, int]] = Counter()
    for n, round_ in enumerate(plan["rounds"]):
        for table in round_["tables"]:
            for seat, name in enumerate(table["seats"], start=1):
                taken[(n // 10, name, seat)] += 1
    return sorted(key for key, times in taken.items() if times > 1)


@pytest.mark.parametrize("games", range(1, 21))
def test_d13_a_final_at_one_table_seats_nobody_twice_in_a_seat(games: int) -> None:
    """D13/D14: a final of 10 at one table: with 4 games nobody sits in the same seat
    twice, with 10 each seat exactly once (and beyond 10, once more in the next ten)."""
    request = {"players": NAMES, "games_per_player": games, "tables": 1, "seed": games}
    plan = plan_to_dict(generate(parse_request(request)))
    assert broken_rules(plan, request) == []
    assert _repeats(plan) == []
    if games == 10:
        for name in NAMES:
            seats = [r["tables"][0]["seats"].index(name) for r in plan["rounds"]]
            assert sorted(seats) == list(range(10))


@st.composite
def finals_in_play(draw: st.DrawFn) -> dict[str, Any]:
    """A final of ``games`` rounds, its first rounds played in seats nobody repeated
    (rows of Latin squares with shuffled players and seats, one square a ten rounds)."""
    games = draw(st.integers(2, 20))
    played = draw(st.integers(1, games - 1))
    rounds = []
    for block in range(0, played, 10):
        people = draw(st.permutations(NAMES))
        seats = draw(st.permutations(range(10)))
        rows = draw(st.permutations(range(10)))
        for n in range(min(10, played - block)):
            row = rows[n]
            order = [people[(row + seats[s]) % 10] for s in range(10)]
            rounds.append({"round": block + n + 1, "tables": [{"table": 1, "seats": order}]})
    return {
        "players": NAMES,
        "games_per_player": games,
        "tables": 1,
        "fixed_rounds": rounds,
        "seed": draw(st.integers(0, 2**31)),
    }


@SETTINGS
@given(finals_in_play())
def test_d14_replanning_a_final_around_its_played_rounds_keeps_seats_rotating(
    request: dict[str, Any],
) -> None:
    """D14: re-planning a one-table final after some of its rounds were played in
    different seats: the rounds left still seat nobody twice in a seat (per ten)."""
    plan = plan_to_dict(generate(parse_request(request)))
    assert broken_rules(plan, request) == []
    played = len(request["fixed_rounds"])
    assert plan["rounds"][:played] == [
        {**r, "sitting_out": []} for r in request["fixed_rounds"]
    ]
    assert _repeats(plan) == []
    assert plan["quality"]["seat_spread"] <= 1
