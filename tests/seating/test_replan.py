"""Re-plans after the played rounds went differently from the plan: two players of a
played round swapped places. The kept plan (``previous_rounds``) and a fresh plan around
the played rounds keep the hard rules and the played rounds exactly; the kept plan only
re-seats players within its games, and evens out the seats the swap unbalanced."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seating import generate, parse_request, plan_to_dict

from .rules import broken_rules, spreads

SETTINGS = settings(
    max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def make(request: dict[str, Any]) -> dict[str, Any]:
    return plan_to_dict(generate(parse_request(request)))


def rounds_of(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"round": r["round"], "tables": copy.deepcopy(r["tables"])} for r in plan["rounds"]]


def swapped(rounds: list[dict[str, Any]], at: int, a: tuple[int, int], b: tuple[int, int]) -> None:
    """Round ``at`` (index) as played: the players at (table, seat) ``a`` and ``b`` swapped."""
    tables = rounds[at]["tables"]
    (ta, sa), (tb, sb) = a, b
    tables[ta]["seats"][sa], tables[tb]["seats"][sb] = (
        tables[tb]["seats"][sb], tables[ta]["seats"][sa]
    )


def groups(rounds: list[dict[str, Any]]) -> list[list[tuple[int, frozenset[str]]]]:
    """Each round's tables as (number, players): who meets whom where, seats aside."""
    return [sorted((t["table"], frozenset(t["seats"])) for t in r["tables"]) for r in rounds]


@st.composite
def replans(draw: st.DrawFn) -> dict[str, Any]:
    """A plan's re-plan request after some of its rounds were played with a swap."""
    players = draw(st.integers(10, 30))
    games = draw(st.sampled_from([g for g in range(2, 11) if players * g % 10 == 0]))
    tables = draw(st.integers(1, players // 10))
    request = {
        "players": [f"N{n}" for n in range(players)],
        "games_per_player": games,
        "tables": tables,
        "seed": draw(st.integers(0, 2**32)),
    }
    rounds = rounds_of(make(request))
    played = draw(st.integers(1, len(rounds) - 1))
    at = draw(st.integers(0, played - 1))
    count = len(rounds[at]["tables"])
    a = (draw(st.integers(0, count - 1)), draw(st.integers(0, 9)))
    b = (draw(st.integers(0, count - 1)), draw(st.integers(0, 9)))
    swapped(rounds, at, a, b)
    replan = {
        **request,
        "seed": draw(st.integers(0, 2**32)),
        "fixed_rounds": rounds[:played],
        "previous_rounds": rounds[played:],
    }
    return replan


@SETTINGS
@given(replans())
def test_a_kept_replan_keeps_the_played_rounds_and_its_games(
    request: dict[str, Any],
) -> None:
    kept = make(request)
    assert broken_rules(kept, request) == []
    played = len(request["fixed_rounds"])
    assert rounds_of(kept)[:played] == request["fixed_rounds"]
    # Nobody's games changed, so nobody changes tables: only seats within a game.
    assert groups(rounds_of(kept)[played:]) == groups(request["previous_rounds"])
    # The seats are no more uneven than the plan left as it was around the played rounds.
    unmended = {"rounds": [*request["fixed_rounds"], *request["previous_rounds"]]}
    before, _ = spreads(unmended, request["players"], request["tables"])
    after, _ = spreads(kept, request["players"], request["tables"])
    assert after <= max(before, 1) and kept["quality"]["seat_spread"] == after
    assert make(request)["rounds"] == kept["rounds"]  # seeded: the same re-plan again


@SETTINGS
@given(replans())
def test_a_fresh_replan_keeps_the_played_rounds(
    kept_request: dict[str, Any],
) -> None:
    request = {k: v for k, v in kept_request.items() if k != "previous_rounds"}
    fresh = make(request)
    assert broken_rules(fresh, request) == []
    played = len(request["fixed_rounds"])
    assert rounds_of(fresh)[:played] == request["fixed_rounds"]
    assert make(request)["rounds"] == fresh["rounds"]


FORTY: dict[str, Any] = {
    "players": [f"P{n:03d}" for n in range(40)], "games_per_player": 10, "tables": 4, "seed": 1
}


def test_forty_players_replanned_after_two_swapped_tables_in_round_3() -> None:
    """40 players, 4 tables, 10 games, 3 rounds played; in round 3 the players at table 1
    seat 3 and table 2 seat 7 swapped (as bench/seating_bench.py does)."""
    plan = make(FORTY)
    rounds = rounds_of(plan)
    swapped(rounds, 2, (0, 2), (1, 6))
    request = {**FORTY, "seed": 2, "fixed_rounds": rounds[:3], "previous_rounds": rounds[3:]}
    kept = make(request)
    assert broken_rules(kept, request) == []
    assert rounds_of(kept)[:3] == rounds[:3]
    assert groups(rounds_of(kept)[3:]) == groups(rounds[3:])
    assert kept["quality"]["seat_spread"] <= 1  # it was 2 before the seats were mended
    moved = {
        name
        for before, after in zip(rounds[3:], rounds_of(kept)[3:], strict=True)
        for t, u in zip(before["tables"], after["tables"], strict=True)
        for pair in zip(t["seats"], u["seats"], strict=True)
        if pair[0] != pair[1]
        for name in pair
    }
    assert len(moved) <= 6
    fresh_request = {k: v for k, v in request.items() if k != "previous_rounds"}
    fresh = make(fresh_request)
    assert broken_rules(fresh, fresh_request) == []
    assert rounds_of(fresh)[:3] == rounds[:3]
    assert fresh["quality"]["seat_spread"] <= 1  # 2 before
    # The bench's goal is 3; neither re-plan reaches it yet (bench/seating_bench.py).
    assert kept["quality"]["meetings_max"] <= 4
    assert fresh["quality"]["meetings_max"] <= 4
