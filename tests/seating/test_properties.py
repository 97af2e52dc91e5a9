"""Small random requests: every plan keeps the hard rules."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seating import generate, parse_request, plan_to_dict

from .rules import broken_rules, spreads

SETTINGS = settings(
    max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(10, 30))
    games = draw(st.sampled_from([g for g in range(1, 11) if players * g % 10 == 0]))
    tables = draw(st.integers(1, players // 10))
    names = [f"N{n}" for n in range(players)]
    apart = draw(st.lists(st.sampled_from(names), min_size=0, max_size=4, unique=True))
    return {
        "players": names,
        "games_per_player": games,
        "tables": tables,
        "apart": [apart[i : i + 2] for i in range(0, len(apart) - 1, 2)],
        "seed": draw(st.integers(0, 2**32)),
    }


@SETTINGS
@given(requests())
def test_every_plan_keeps_the_hard_rules(request: dict[str, Any]) -> None:
    plan = plan_to_dict(generate(parse_request(request)))
    assert broken_rules(plan, request) == []
    seat, _table = spreads(plan, request["players"], request["tables"])
    assert seat <= 1 and plan["quality"]["seat_spread"] == seat
