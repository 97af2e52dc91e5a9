"""Standings (8.7-8.7.5, D3, D12) and the example tournament (docs/examples/)."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest

from scoring import (
    InvalidGameError,
    compute_standings,
    load_json,
    parse_tournament,
    unresolved_ties,
)
from scoring.standings import StandingRow, Standings

from .builders import game, names, tournament

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def row(standings: Standings, player: str) -> StandingRow:
    return next(r for r in standings.rows if r.player == player)


def order(standings: Standings) -> list[tuple[int, str]]:
    return [(r.place, r.player) for r in standings.rows]


def seated(first: str, *, at: int = 1, prefix: str = "x") -> list[str]:
    """Ten players: ``first`` at seat ``at``, fillers named after ``prefix``."""
    players = [f"{prefix}{n}" for n in range(1, 11)]
    players[at - 1] = first
    return players


def test_8_7_rating_is_main_plus_extra_best_first() -> None:
    s = compute_standings(tournament(game("red", judge={9: "0.4"}), game("black", id="G2")))
    assert [r.total for r in s.rows] == sorted((r.total for r in s.rows), reverse=True)
    p7 = row(s, "P7")  # sheriff: won G1, lost G2
    assert (p7.total, p7.main, p7.extra, p7.wins, p7.games) == (Fraction(1), 1, 0, 1, 2)
    p9 = row(s, "P9")  # mafia: lost G1 with 0.4, won G2
    assert (p9.total, p9.main, p9.extra) == (Fraction(7, 5), Fraction(1), Fraction(2, 5))
    assert all(r.total == r.main + r.extra for r in s.rows)


def test_8_7_1_equal_totals_more_extra_first_ci_is_not_extra() -> None:
    # distance 1 → B = 0 → Ci = 0.4. A: a win and 0.4 from the judge = 1.4 (extra 0.4).
    # B: a win and Ci 0.4 = 1.4 (extra 0).
    t = tournament(
        game("red", id="G1", players=seated("A"), judge={1: "0.4"}),
        game("black", id="G2", players=seated("B", prefix="y"), first_killed=1),
        game("red", id="G3", players=seated("B", prefix="z")),
        distance=1,
    )
    s = compute_standings(t)
    a, b = row(s, "A"), row(s, "B")
    assert a.total == b.total == Fraction(7, 5)
    assert (a.extra, b.extra, b.ci) == (Fraction(2, 5), Fraction(0), Fraction(2, 5))
    assert a.place < b.place


def test_8_7_2_then_more_wins() -> None:
    # B = 0: Ci is 0.4 a game. A: 2 wins = 2.0. B: no win, shot first 5 times as red
    # in games red lost: 5 × 0.4 = 2.0. Extra 0 both.
    games = [game("red", id=f"A{n}", players=seated("A", prefix=f"a{n}-")) for n in (1, 2)]
    games += [
        game("black", id=f"B{n}", players=seated("B", prefix=f"b{n}-"), first_killed=1)
        for n in range(5)
    ]
    s = compute_standings(tournament(*games, distance=1))
    a, b = row(s, "A"), row(s, "B")
    assert a.total == b.total == Fraction(2) and a.extra == b.extra == 0
    assert (a.wins, b.wins) == (2, 0) and a.place < b.place


def test_8_7_3_then_more_wins_as_don_or_sheriff() -> None:
    t = tournament(game("red", players=["B", *names()[1:6], "A", "m1", "m2", "d"]))
    s = compute_standings(t)
    a, b = row(s, "A"), row(s, "B")  # A the sheriff, B a civilian: both won
    assert (a.total, a.wins, a.wins_don_sheriff) == (Fraction(1), 1, 1)
    assert (b.total, b.wins, b.wins_don_sheriff) == (Fraction(1), 1, 0)
    assert a.place < b.place


def test_8_7_4_then_more_first_night_deaths() -> None:
    t = tournament(game("red", players=["B", "A", *names()[2:]], first_killed=2))
    s = compute_standings(t)
    a, b = row(s, "A"), row(s, "B")
    assert (a.first_night_deaths, b.first_night_deaths) == (1, 0)
    assert a.total == b.total and a.place < b.place


def test_8_7_4_first_night_deaths_count_in_any_role() -> None:
    s = compute_standings(tournament(game("red", first_killed=9)))
    assert row(s, "P9").first_night_deaths == 1 and row(s, "P9").ci == 0


def test_8_7_5_still_tied_share_a_place_listed_by_name() -> None:
    s = compute_standings(tournament(game("red")))
    assert order(s) == [
        (1, "P7"),  # the sheriff won (8.7.3)
        (2, "P1"), (2, "P2"), (2, "P3"), (2, "P4"), (2, "P5"), (2, "P6"),
        (8, "P10"), (8, "P8"), (8, "P9"),
    ]  # fmt: skip
    assert s.ties() == [["P1", "P2", "P3", "P4", "P5", "P6"], ["P10", "P8", "P9"]]


def test_8_7_5_the_lot_orders_tied_players_with_distinct_places() -> None:
    s = compute_standings(tournament(game("red"), lot=["P5", "P3", "P9"]))
    assert order(s)[:7] == [
        (1, "P7"), (2, "P5"), (3, "P3"), (4, "P1"), (4, "P2"), (4, "P4"), (4, "P6"),
    ]  # fmt: skip
    assert order(s)[7:] == [(8, "P9"), (9, "P10"), (9, "P8")]


def test_D12_unresolved_ties_are_what_the_chief_judge_must_draw() -> None:
    t = tournament(game("red"))
    assert unresolved_ties(t) == [["P1", "P2", "P3", "P4", "P5", "P6"], ["P10", "P8", "P9"]]
    drawn = dataclasses.replace(t, lot=("P6", "P2", "P4", "P1", "P3", "P5", "P9", "P8", "P10"))
    assert unresolved_ties(drawn) == []
    assert [r.place for r in compute_standings(drawn).rows] == list(range(1, 11))
    assert [r.player for r in compute_standings(drawn).rows][1:7] == [
        "P6",
        "P2",
        "P4",
        "P1",
        "P3",
        "P5",
    ]


def test_D12_lot_entries_of_players_no_longer_tied_do_not_matter() -> None:
    # The lot only orders players still tied after 8.7.1-8.7.4.
    s = compute_standings(tournament(game("red"), lot=["P9", "P7", "P1"]))
    assert order(s)[0] == (1, "P7") and order(s)[1] == (2, "P1")
    assert row(s, "P9").place == 8


def test_D3_ranking_is_exact_where_floats_would_differ() -> None:
    # Zed: 0.1 + 0.2 (0.30000000000000004 in floats); Abe: 0.3. Exactly equal: tied.
    t = tournament(
        game("black", id="G1", players=seated("Zed"), judge={1: "0.1"}),
        game("black", id="G2", players=seated("Zed", prefix="y"), judge={1: "0.2"}),
        game("black", id="G3", players=seated("Abe", prefix="z"), judge={1: "0.3"}),
    )
    s = compute_standings(t)
    zed, abe = row(s, "Zed"), row(s, "Abe")
    assert zed.total == abe.total == Fraction(3, 10)
    assert zed.place == abe.place
    assert [r.player for r in s.rows].index("Abe") < [r.player for r in s.rows].index("Zed")


def test_D7_standings_list_games_waiting_for_approval_and_do_not_count_them() -> None:
    s = compute_standings(tournament(game("red", id="R1-T1", judge={2: "0.6"})))
    assert s.pending_games == ("R1-T1",)
    assert row(s, "P2").total == Fraction(1)


def test_8_8_2_8_8_4_standings_follow_the_protest_decision_on_a_game() -> None:
    # 8.8.2-8.8.4: the chief judge's decision changes the game (here its result); the
    # standings are recomputed from the games as they now are.
    before = tournament(game("red", first_killed=1), distance=10)
    decided = tournament(game("black", first_killed=1), distance=10)
    assert row(compute_standings(before), "P1").total == Fraction(1)
    after = row(compute_standings(decided), "P1")
    assert (after.total, after.ci, after.wins) == (Fraction(1, 10), Fraction(1, 10), 0)


def test_compute_standings_refuses_invalid_games() -> None:
    with pytest.raises(InvalidGameError) as raised:
        compute_standings(tournament(game("red", first_killed=11)))
    assert [str(p) for p in raised.value.problems] == [
        "G1: 8.6: first-killed seat 11 is not a seat 1–10"
    ]


def test_no_games_no_rows() -> None:
    s = compute_standings(tournament(distance=10))
    assert (s.B, s.rows, s.pending_games) == (4, (), ())


def test_example_tournament_standings() -> None:
    data = load_json((EXAMPLES / "small-tournament.json").read_bytes())
    expected = json.loads((EXAMPLES / "small-tournament.standings.json").read_text("utf-8"))
    s = compute_standings(parse_tournament(data))
    assert (s.B, len(s.rows)) == (expected["B"], len(expected["standings"]))
    for got, want in zip(s.rows, expected["standings"], strict=True):
        assert (got.place, got.player) == (want["place"], want["player"])
        for key in ("total", "main", "extra", "ci"):
            assert abs(float(getattr(got, key)) - want[key]) < 1e-9, (got.player, key)
        for key in ("wins", "wins_don_sheriff", "first_night_deaths", "games"):
            assert getattr(got, key) == want[key], (got.player, key)
