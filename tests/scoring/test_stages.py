"""Stages (RULES.md D13-D16; scoring-contract.md, "Stages"): hand-made files whose
figures are worked out below, the command line as a subprocess, and properties.

The qualifying of ``staged()``: 20 players (A0-A9, B0-B9), 2 games each (B = 1), four
games; worked out by 8.2-8.7:

    A7 2.3 (extra 0.3) | B6 2 (2 wins as sheriff) | A9, B4 2 (1 as don) | A8, B2, B3, B5 2
    | A5, A6, B0, B1 1 | A0 0.8 (Ci 0.4 twice: i = 2 > B) | B7 0 (a night-1 death)
    | A1-A4, B8, B9 0

so the cut at 10 falls inside the four players with 1 point: the qualifying's lot
(B1, A6) settles it. A8 withdraws and A5 takes his place. The final: carry 0.5,
weight 1.5, compensation off, two games (below, ``FINAL_GAMES``).
"""

from __future__ import annotations

import json
from copy import deepcopy
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import ScoredGames, compute_standings
from scoring.model import Tournament
from scoring.parse import parse_game, read_stages
from scoring.record import record_of_game
from scoring.ruleset import Ruleset
from scoring.stages import (
    Stage,
    StagedStandings,
    check_entrants,
    cut,
    stage_standings,
    staged_standings,
    tournament_standings,
)
from scoring.standings import Standings
from scoring.validate import InvalidGameError

from .builders import game_json
from .test_cli import KEYS, PROBLEM_LINE, scoring, write
from .test_properties import SETTINGS, valid_tournaments

FEW = settings(SETTINGS, max_examples=30)  # the suite stays quick
A = [f"A{n}" for n in range(10)]
B = [f"B{n}" for n in range(10)]
QUALIFYING_GAMES = [
    game_json("black", id="Q1", players=A, first_killed=1, judge_extras={"8": "0.3"}),
    game_json("red", id="Q2", players=B, first_killed=8),
    game_json("black", id="Q3", players=A[:5] + B[:5], first_killed=1),
    game_json("red", id="Q4", players=A[5:] + B[5:]),
]
ENTRANTS = ["A7", "B6", "A9", "B4", "B2", "B3", "B5", "B1", "A6", "A5"]
FINAL_GAMES = [
    # Civilians A7, B6, A9, B4, B2, B3; sheriff B5; mafia B1, A6; don A5. A7 is shot on
    # night 1 in a black win: no Ci, compensation is off (D14).
    game_json("black", id="F1", players=ENTRANTS, first_killed=1),
    # Civilians A5, A6, B1, B5, B3, B2; sheriff B4 (0.25 of the judge); mafia A9, B6; don A7.
    game_json("red", id="F2", players=list(reversed(ENTRANTS)), judge_extras={"7": "0.25"}),
]


def staged(**final: Any) -> dict[str, Any]:
    """The qualifying and the final; ``final`` changes the final stage's fields."""
    games = [dict(deepcopy(g), stage="qualifying") for g in QUALIFYING_GAMES]
    games += [dict(deepcopy(g), stage="final") for g in FINAL_GAMES]
    stage = {
        "id": "final",
        "games_per_player": 2,
        "entrants": 10,
        "carry": "0.5",
        "weight": 1.5,
        "compensation": False,
        "replaced": {"A8": "A5"},
        "lot": ["B1"],
    }
    stage.update(final)
    return {
        "distance": 10,
        "stages": [
            {"id": "qualifying", "games_per_player": 2, "lot": ["B1", "A6"]},
            {key: value for key, value in stage.items() if value is not None},
        ],
        "games": games,
    }


def computed(data: dict[str, Any]) -> StagedStandings:
    """The API's answer for a contract file (the bot's path)."""
    stages, problems = read_stages(data["stages"])
    assert problems == []
    games = [(g["stage"], parse_game(g)) for g in data["games"]]
    return tournament_standings(stages, games)


def figures(standings: Standings) -> dict[str, tuple[Any, ...]]:
    return {
        row.player: (
            row.place,
            row.total,
            row.extra,
            row.wins,
            row.wins_don_sheriff,
            row.first_night_deaths,
            row.games,
        )
        for row in standings.rows
    }


F = Fraction


def test_d13_d15_qualifying_and_final_with_carry_weight_and_compensation_off() -> None:
    found = computed(staged())
    qualifying, final = found.stages
    assert qualifying.standings.B == 1 and final.standings.B == 1  # D14: 2 games each
    assert [r.player for r in qualifying.standings.rows][:10] == [
        "A7",
        "B6",
        "A9",
        "B4",
        "A8",
        "B2",
        "B3",
        "B5",
        "B1",
        "A6",
    ]
    assert qualifying.cut is None and final.cut is not None and final.cut.decided
    # D13: the top 10 (the lot put B1 and A6 in), A8 replaced by A5, in qualifying order.
    assert final.entrants == ("A7", "B6", "A9", "B4", "B2", "B3", "B5", "B1", "A6", "A5")
    # D15: 0.5 × qualifying + 1.5 × own, for the total and every tie-break figure.
    assert figures(final.standings) == {
        "A5": (1, F(7, 2), 0, F(7, 2), F(3, 2), 0, 2),  # 0.5 × 1 + 1.5 × 2; don win in F1
        "B1": (2, F(7, 2), 0, F(7, 2), 0, 0, 2),  # tied with A6: the final's lot
        "A6": (3, F(7, 2), 0, F(7, 2), 0, 0, 2),
        "B4": (4, F(23, 8), F(3, 8), F(5, 2), 2, 0, 2),  # 0.5 × 2 + 1.5 × (1 + 0.25)
        "B2": (5, F(5, 2), 0, F(5, 2), 0, 0, 2),
        "B3": (5, F(5, 2), 0, F(5, 2), 0, 0, 2),
        "B5": (5, F(5, 2), 0, F(5, 2), 0, 0, 2),
        "A7": (8, F(23, 20), F(3, 20), 1, 0, F(3, 2), 2),  # 0.5 × 2.3; shot on night 1
        "B6": (9, 1, 0, 1, 1, 0, 2),  # 0.5 × 2 wins as sheriff
        "A9": (10, 1, 0, 1, F(1, 2), 0, 2),
    }
    assert all(row.ci == 0 for row in final.standings.rows)  # compensation off (D14)
    # D16: the final's order, then who left after the qualifying, in its order.
    assert [(row.place, row.player) for row in found.final.rows] == [
        *((row.place, row.player) for row in final.standings.rows),
        (11, "A8"),  # withdrawn: at his qualifying place among those who left
        (12, "B0"),
        (13, "A0"),
        (14, "B7"),
        *((15, player) for player in ("A1", "A2", "A3", "A4", "B8", "B9")),
    ]
    assert found.final.rows[12].ci == F(4, 5)  # A0: Ci 0.4 in each of two games (i > B)
    assert found.final.B == 1 and found.final.pending_games == ()


def test_d13_d16_the_command_line_prints_every_stage_and_the_final_standings(
    tmp_path: Path,
) -> None:
    done = scoring("standings", write(tmp_path, staged()))
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    got = json.loads(done.stdout)
    assert list(got) == ["B", "pending_games", "standings", "stages"]
    assert [stage["id"] for stage in got["stages"]] == ["qualifying", "final"]
    final = got["stages"][1]
    assert list(final) == ["id", "B", "entrants", "pending_games", "standings"]
    assert final["entrants"] == ENTRANTS
    assert all(list(row) == KEYS for row in final["standings"])
    b4 = next(row for row in final["standings"] if row["player"] == "B4")
    assert b4["total"] == pytest.approx(2.875, abs=1e-9)
    assert b4["wins"] == 2.5 and b4["wins_don_sheriff"] == 2 and b4["games"] == 2
    assert [row["player"] for row in got["standings"]][10:12] == ["A8", "B0"]
    assert [row["place"] for row in got["standings"]][-6:] == [15] * 6
    table = scoring("standings", write(tmp_path, staged()), "--format", "table")
    assert table.returncode == 0
    text = table.stdout.decode()
    assert "Stage final (10 entrants, carry 0.5, weight 1.5, no compensation)" in text
    assert "Final standings (D16)" in text and "2.88" in text


def test_d13_a_tie_at_the_cut_waits_for_the_lot_of_the_stage_before(tmp_path: Path) -> None:
    data = staged()
    data["stages"][0].pop("lot")
    data["stages"][1].pop("replaced")
    qualifying = computed({**data, "games": data["games"][:4]}).stages[0]
    at_cut = cut(qualifying.standings, 10)
    assert not at_cut.decided and at_cut.tied == ("A5", "A6", "B0", "B1")
    assert cut(qualifying.standings, 8).decided and cut(qualifying.standings, 30).decided
    # The final has games: invalid until the lot decides (D13).
    done = scoring("standings", write(tmp_path, data))
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        "stages: D13: stage final has games, but stage qualifying is tied across the cut "
        "at 10: A5, A6, B0, B1; its lot (8.7.5) must decide"
    ]
    # No games yet: the standings, and a warning that the entrants are provisional.
    data["games"] = data["games"][:4]
    done = scoring("standings", write(tmp_path, data))
    assert done.returncode == 0
    (warning,) = done.stderr.decode().splitlines()
    assert warning.startswith("stages: D13: stage final: A5, A6, B0, B1 are tied") and (
        PROBLEM_LINE.match(warning)
    )


def test_d13_a_withdrawn_entrant_is_replaced_by_a_player_ranked_below_the_cut() -> None:
    found = computed(staged(replaced={"A8": "A5"}))
    assert "A8" not in found.stages[1].entrants and "A5" in found.stages[1].entrants
    with pytest.raises(InvalidGameError) as raised:
        computed(staged(replaced={"A0": "B0"}))  # A0 is not among the top 10
    assert str(raised.value.problems[0]) == (
        "stages: D13: stage final: A0 is replaced but not among the top 10 of qualifying"
    )


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (
            lambda d: d["stages"][0].update(entrants=5),
            "stages: D13: stage qualifying: entrants and replaced are not allowed on the "
            "first stage, whose entrants are all players",
        ),
        (
            lambda d: d["stages"][1].update(carry=-0.5),
            "stages: D13: stage final: carry is -0.5; it may not be negative",
        ),
        (
            lambda d: d["stages"][1].update(weight="heavy"),
            "stages: D13: stage final: weight heavy is not a number",
        ),
        (
            lambda d: d["stages"][1].update(id="qualifying"),
            "stages: D13: stage qualifying: two stages have this id",
        ),
        (
            lambda d: d["stages"][1].pop("entrants"),
            "stages: D13: stage final: entrants is required after the first stage",
        ),
        (
            lambda d: d["games"][4].update(stage="semifinal"),
            "F1: D13: unknown stage semifinal",
        ),
        (
            lambda d: d["games"][4].pop("stage"),
            "F1: D13: the game names no stage; with stages every game names its stage",
        ),
        (
            lambda d: d["games"][5]["seats"][0].update(player="A0"),
            "F2: D13: A0 not among the entrants of stage final",
        ),
        (
            lambda d: d["stages"][1].update(replaced={"A8": "B6"}),
            "stages: D13: stage final: B6, who replaces A8, is not ranked below the top 10 "
            "of qualifying",
        ),
    ],
    ids=[
        "entrants-on-first",
        "negative-carry",
        "non-number-weight",
        "duplicate-stage-id",
        "no-entrants",
        "unknown-stage",
        "no-stage",
        "non-entrant",
        "replaced-by-entrant",
    ],
)
def test_d13_invalid_stage_input_exits_2_with_a_d13_line(
    tmp_path: Path, change: Any, line: str
) -> None:
    data = staged()
    change(data)
    done = scoring("standings", write(tmp_path, data))
    assert done.returncode == 2 and done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert lines[0] == line  # (then what follows from it: e.g. games of a stage now unknown)
    assert all(PROBLEM_LINE.match(each) and ": D13: " in each for each in lines)


def test_d13_more_entrants_than_players_lets_all_of_them_in() -> None:
    """The contract: ``entrants`` larger than the stage before's players lets all in."""
    found = computed(staged(entrants=30, replaced={}, lot=[]))
    assert len(found.stages[1].entrants) == 20 and found.stages[1].cut is not None
    assert found.stages[1].cut.decided
    # Who never plays the final has its games 0 and the carried figures (D15).
    a0 = next(row for row in found.stages[1].standings.rows if row.player == "A0")
    assert a0.games == 0 and a0.total == F(2, 5)


def test_d14_i_and_b_count_the_stage_own_games_only() -> None:
    players = [f"P{n}" for n in range(1, 11)]
    shot = game_json("black", players=players, first_killed=1)  # P1, a civilian
    stages = [
        Stage("one", Ruleset(5)),  # B = 2
        Stage("two", Ruleset(5), entrants=10),
    ]
    games = [("one", parse_game({**shot, "id": "G1"})), ("two", parse_game({**shot, "id": "G2"}))]
    found = tournament_standings(stages, games)
    p1 = {row.player: row for row in found.stages[1].standings.rows}["P1"]
    assert p1.ci == F(1, 5)  # i = 1 in stage two: 1 × 0.4 / 2, not 2 × 0.4 / 2 (D14)
    off = [stages[0], stages[1]._replace(rules=Ruleset(5, compensation=False))]
    found = tournament_standings(off, games)
    assert {row.player: row for row in found.stages[1].standings.rows}["P1"].ci == 0
    assert found.stages[1].standings.B == 2  # still reported (contract)


def test_d3_d15_half_of_a_third_of_0_4_stays_exact(tmp_path: Path) -> None:
    players = [f"P{n}" for n in range(1, 11)]
    shot = game_json("black", id="G1", players=players, first_killed=1, stage="one")
    data = {
        "distance": 10,
        "stages": [
            {"id": "one", "games_per_player": 7},  # B = round-half-up(2.8) = 3
            {"id": "two", "games_per_player": 1, "entrants": 10, "carry": "0.5"},
        ],
        "games": [shot],
    }
    two = computed(data).stages[1].standings
    p1 = {row.player: row for row in two.rows}["P1"]
    assert p1.ci == F(1, 15) == p1.total  # 0.5 × 0.4 / 3, exactly
    done = scoring("standings", write(tmp_path, data))
    row = next(r for r in json.loads(done.stdout)["stages"][1]["standings"] if r["player"] == "P1")
    assert abs(row["ci"] - 1 / 15) < 1e-12
    inexact = Ruleset(1, carry=0.5)  # type: ignore[arg-type]
    floats = [Stage("one", Ruleset(7)), Stage("two", inexact, entrants=10)]
    rounded = r"carry 0\.5 is not an exact number: the points would be rounded"
    with pytest.raises(InvalidGameError, match=rounded):
        tournament_standings(floats, [("one", parse_game(shot))])


def test_d15_figures_compound_over_three_stages() -> None:
    players = [f"P{n}" for n in range(1, 11)]
    win = game_json("black", players=players, judge_extras={"10": "0.3"})  # P10: don
    stages = [
        Stage("one", Ruleset(3)),
        Stage("two", Ruleset(3, carry=F(1, 2), weight=F(3, 2)), entrants=10),
        Stage("three", Ruleset(3, carry=F(1, 3), weight=F(2)), entrants=10),
    ]
    games = [(s.id, parse_game({**win, "id": s.id})) for s in stages]
    found = tournament_standings(stages, games)
    p10 = found.stages[2].standings.rows[0]
    own = F(13, 10)  # a win and 0.3
    assert p10.player == "P10"
    assert p10.total == F(1, 3) * (F(1, 2) * own + F(3, 2) * own) + 2 * own
    assert p10.wins == F(1, 3) * (F(1, 2) + F(3, 2)) + 2 == p10.wins_don_sheriff


def test_d13_d16_staged_standings_from_each_stage_own_standings_are_the_same() -> None:
    """The bot's incremental path: a ``ScoredGames`` per stage, then the stages."""
    data = staged()
    stages, _problems = read_stages(data["stages"])
    owns = []
    for stage in stages:
        scored = ScoredGames()
        order = [g["id"] for g in data["games"] if g["stage"] == stage.id]
        for g in data["games"]:
            if g["stage"] == stage.id:
                scored.put(g["id"], parse_game(g))
        owns.append(scored.standings(stage.rules, order))
    assert staged_standings(stages, owns) == computed(data)
    with pytest.raises(InvalidGameError):
        staged_standings([stages[0], stages[1]._replace(entrants=None)], owns)


def test_d13_check_entrants_and_stage_standings_refuse_a_non_entrant() -> None:
    first, final = computed(staged()).stages
    stranger = parse_game(game_json("red", id="F9", players=["Z9", *ENTRANTS[1:]]))
    (problem,) = check_entrants("final", [record_of_game(stranger)], final.entrants)
    assert str(problem) == "F9: D13: Z9 not among the entrants of stage final"
    own = compute_standings(Tournament(2, (stranger,)))
    with pytest.raises(InvalidGameError) as raised:
        stage_standings(final.stage, own, first)
    assert [str(p) for p in raised.value.problems] == [
        "stages: D13: stage final: not among its entrants, yet in its games: Z9"
    ]


@FEW
@given(valid_tournaments())
def test_d15_one_stage_with_carry_0_and_weight_1_is_the_file_without_stages(
    t: Tournament,
) -> None:
    stageless = compute_standings(t)
    found = tournament_standings(
        [Stage("only", Ruleset(t.distance), lot=t.lot)], [("only", g) for g in t.games]
    )
    assert found.stages[0].standings == stageless
    assert found.final == stageless


@FEW
@given(valid_tournaments(), st.fractions(min_value=F(1, 10), max_value=5, max_denominator=12))
def test_d15_weight_scales_every_figure_exactly(t: Tournament, weight: Fraction) -> None:
    stageless = compute_standings(t)
    rules = Ruleset(t.distance, weight=weight)
    found = tournament_standings([Stage("only", rules, lot=t.lot)], [("only", g) for g in t.games])
    scaled = found.stages[0].standings
    assert [row.place for row in scaled.rows] == [row.place for row in stageless.rows]
    for row, plain in zip(scaled.rows, stageless.rows, strict=True):
        assert row.player == plain.player
        assert row.total == weight * plain.total and row.extra == weight * plain.extra
        assert row.wins == weight * plain.wins and row.ci == weight * plain.ci
