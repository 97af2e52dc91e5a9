"""Validation: every rule a protocol can break, with the decided rule ids, all at once."""

from __future__ import annotations

import re
from pathlib import Path

from scoring import Problem, validate_game, validate_tournament
from scoring.parse import parse_game
from scoring.problems import N_

from .builders import game, game_json, names, rules_of, tournament


def rules(g: object) -> list[str]:
    return rules_of(validate_game(g))  # type: ignore[arg-type]


def test_a_valid_game_has_no_problems() -> None:
    g = game(
        "black",
        day1_voted_out=1,
        first_killed=2,
        best_move=[8, 9, 10],
        judge={8: "0.7", 9: "0.3", 2: "0.4"},  # 2's 0.4 ties his best move (D4): 1.0 counts
        approved=[8],
        disqualified=[5],
        penalties={1: ["8.5.1", "8.5.3"], 4: ["8.5.2"]},
    )
    assert validate_game(g) == []


# Seats, roles, result, ids


def test_seats_exactly_ten() -> None:
    assert rules(
        game(players=names()[:9], roles=["civilian"] * 5 + ["sheriff", "mafia", "mafia", "don"])
    ) == ["seats", "roles"]
    eleven = parse_game(
        {**game_json(), "seats": [*game_json()["seats"], {"player": "X", "role": "civilian"}]}
    )
    assert "seats" in rules(eleven)


def test_seats_player_names_non_empty_and_unique() -> None:
    players = list(names())
    players[3] = "  "
    players[5] = "P1"
    problems = validate_game(game(players=players))
    assert rules_of(problems) == ["seats", "seats"]
    assert {p.params.get("seat") for p in problems} >= {4}
    assert any(p.params.get("seats") == "1, 6" for p in problems)


def test_roles_counts_and_unknown_roles() -> None:
    seven_civilians = ["civilian"] * 7 + ["mafia", "mafia", "don"]
    problems = validate_game(game(roles=seven_civilians))
    assert rules_of(problems) == ["roles", "roles"]  # 7 civilians, no sheriff
    assert rules(game(roles=["civilian"] * 6 + ["sheriff", "mafia", "mafia", "wizard"])) == [
        "roles"
    ]


def test_result_must_be_red_black_or_draw() -> None:
    assert rules(game("blue")) == ["result"]


def test_id_duplicate_game_ids_in_a_tournament() -> None:
    problems = validate_tournament(tournament(game(id="R1"), game(id="R1"), game(id="R2")))
    assert [(p.game_id, p.rule) for p in problems] == [("R1", "id")]


# 8.6, 8.3 — first-killed player and the best move


def test_8_6_first_killed_must_be_a_seat_or_nobody() -> None:
    assert rules(game(first_killed=11)) == ["8.6"]
    assert rules(game(first_killed=0)) == ["8.6"]
    assert rules(game(first_killed=True)) == ["8.6"]
    assert rules(game(first_killed=None)) == []


def test_8_3_6_day1_voted_out_is_a_whole_number_0_to_3() -> None:
    for bad in (4, -1, "2", 1.0, True):
        assert rules(game(day1_voted_out=bad)) == ["8.3.6"], bad
    assert rules(game(day1_voted_out=3)) == []


def test_8_3_6_no_best_move_when_two_or_more_left_by_day_1_voting() -> None:
    assert rules(game(day1_voted_out=2, first_killed=1, best_move=[8, 9, 10])) == ["8.3.6"]
    assert rules(game(day1_voted_out=1, first_killed=1, best_move=[8, 9, 10])) == []


def test_8_3_best_move_needs_a_first_killed_player() -> None:
    assert rules(game(best_move=[8, 9])) == ["8.3"]


def test_8_3_2_at_most_three_numbers() -> None:
    assert rules(game(first_killed=1, best_move=[8, 9, 10, 2])) == ["8.3.2"]


def test_8_3_3_named_number_repeated_is_rejected() -> None:
    problems = validate_game(game(first_killed=1, best_move=[8, 8, 9]))
    assert rules_of(problems) == ["D10"] and "8.3.3" in problems[0].message


def test_D10_best_move_numbers_are_seats_distinct_and_not_his_own() -> None:
    assert rules(game(first_killed=1, best_move=[8, 11])) == ["D10"]
    assert rules(game(first_killed=1, best_move=[1, 8])) == ["D10"]
    assert rules(game(first_killed=1, best_move=["8"])) == ["D10"]
    # A first-killed black player may have numbers recorded (worth nothing): valid.
    assert rules(game(first_killed=9, best_move=[8, 10, 1])) == []


def test_8_3_5_hint_is_valid_with_or_without_numbers() -> None:
    assert rules(game(first_killed=1, best_move=[8, 9], best_move_hint=True)) == []
    assert rules(game(first_killed=1, best_move_hint=True)) == []


# 8.2.4 — disqualification


def test_8_2_4_disqualified_seats_are_seats_once_each() -> None:
    assert rules(game(disqualified=[11])) == ["8.2.4"]
    assert rules(game(disqualified=[3, 3])) == ["8.2.4"]
    assert rules(game(disqualified=[3, 4])) == []


# 8.4 — judge's extra points, D4-D7


def test_8_4_judge_points_for_a_seat_that_is_not_1_to_10() -> None:
    assert rules(game(judge={11: "0.3"})) == ["8.4"]
    assert rules(parse_game(game_json(judge_extras={"03": "0.3"}))) == ["8.4"]


def test_D6_judge_points_positive_with_at_most_two_decimals() -> None:
    assert rules(parse_game(game_json(judge_extras={"3": "0.333"}))) == ["D6"]
    assert rules(parse_game(game_json(judge_extras={"3": 0}))) == ["D6"]
    assert rules(parse_game(game_json(judge_extras={"3": "-0.1"}))) == ["D6"]
    assert rules(parse_game(game_json(judge_extras={"3": "lots"}))) == ["D6"]
    assert rules(parse_game(game_json(judge_extras={"3": "0.05"}))) == []


def test_8_4_1_at_most_four_players() -> None:
    five = {1: "0.1", 2: "0.1", 3: "0.1", 4: "0.1", 5: "0.1"}
    problems = validate_game(game(judge=five))
    assert rules_of(problems) == ["8.4.1"]
    assert str(problems[0]) == "G1: 8.4.1: judge's extra points for 5 players; at most 4"
    assert rules(game(judge={1: "0.1", 2: "0.1", 3: "0.1", 4: "0.1"})) == []


def test_8_4_2_counted_sum_at_most_one() -> None:
    assert rules(game("red", judge={1: "0.4", 2: "0.4", 3: "0.3"})) == ["8.4.2"]
    assert rules(game("red", judge={1: "0.4", 2: "0.3", 3: "0.3"})) == []  # exactly 1.0


def test_8_4_6_judge_points_that_lose_to_the_best_move_do_not_count_towards_one() -> None:
    # Seat 1's 0.3 loses to his 0.4 best move: the counted sum is 0.4 + 0.3 + 0.3 = 1.0.
    g = game(
        "red",
        first_killed=1,
        best_move=[8, 9, 10],
        judge={1: "0.3", 2: "0.4", 3: "0.3", 4: "0.3"},
    )
    assert rules(g) == []


def test_D4_tie_does_not_count_towards_one() -> None:
    # Seat 1: 0.25 ties his two-black best move, so it is the best move's; 0.4+0.4+0.2 = 1.0.
    g = game(
        "red",
        first_killed=1,
        best_move=[8, 9, 2],
        judge={1: "0.25", 2: "0.4", 3: "0.4", 4: "0.2"},
    )
    assert rules(g) == []
    g = game(
        "red", first_killed=1, best_move=[8, 2, 3], judge={1: "0.25", 2: "0.4", 3: "0.4", 4: "0.2"}
    )
    assert rules(g) == ["8.4.2"]  # one black named: 0.25 beats 0, counts: 1.25


def test_D5_voided_best_move_so_judge_points_count_towards_one() -> None:
    g = game(
        "red",
        first_killed=1,
        best_move=[8, 9, 10],
        best_move_hint=True,
        judge={1: "0.3", 2: "0.4", 3: "0.4"},
    )
    assert rules(g) == ["8.4.2"]  # 0.3 counts (best move worth 0): 1.1


def test_D7_values_above_half_count_as_if_approved_for_the_budget() -> None:
    # Unapproved 0.6 is not counted in the points, but the game must stay valid once it is.
    assert rules(game("red", judge={1: "0.6", 2: "0.3", 3: "0.2"})) == ["8.4.2"]
    assert rules(game("red", judge={1: "0.6", 2: "0.4"})) == []


def test_D7_chief_approval_for_a_seat_that_is_not_1_to_10() -> None:
    assert rules(game(judge={1: "0.6"}, approved=[11])) == ["D7"]
    assert rules(game(judge={1: "0.3"}, approved=[1, 2])) == []  # harmless


def test_8_4_3_winners_get_at_most_0_7() -> None:
    assert rules(game("red", judge={1: "0.75"})) == ["8.4.3"]
    assert rules(game("black", judge={8: "0.8"}, approved=[8])) == ["8.4.3"]
    assert rules(game("red", judge={1: "0.7"}, approved=[1])) == []


def test_8_4_4_losers_get_at_most_0_4() -> None:
    assert rules(game("red", judge={9: "0.45"})) == ["8.4.4"]
    assert rules(game("black", judge={1: "0.6"}, approved=[1])) == ["8.4.4"]
    assert rules(game("red", judge={9: "0.4"})) == []


def test_8_4_7_no_judge_points_in_a_draw() -> None:
    problems = validate_game(game("draw", judge={1: "0.3", 8: "0.2"}))
    assert rules_of(problems) == ["8.4.7"]
    assert problems[0].params["seats"] == "1, 8"


# 8.5 — penalties and their conditions (D8)


def test_8_5_penalty_seat_and_rule_id_must_exist() -> None:
    assert rules(game("black", penalties={11: ["8.5.1"]})) == ["8.5"]
    assert rules(game("black", penalties={1: ["8.5.9"]})) == ["8.5"]
    assert rules(game("black", penalties={1: ["8.5.1", "8.5.1"]})) == []


def test_8_5_1_needs_a_red_player_and_a_black_win_D8() -> None:
    assert rules(game("black", penalties={7: ["8.5.1"]})) == []  # the sheriff
    problems = validate_game(game("red", penalties={1: ["8.5.1"]}))
    assert rules_of(problems) == ["8.5.1"] and "a black win" in problems[0].message
    assert rules(game("black", penalties={8: ["8.5.1"]})) == ["8.5.1"]


def test_8_5_2_needs_a_civilian_whatever_the_result_D8() -> None:
    for result in ("red", "black", "draw"):
        assert rules(game(result, penalties={2: ["8.5.2"]})) == []
    assert rules(game("black", penalties={7: ["8.5.2"]})) == ["8.5.2"]  # the sheriff
    assert rules(game("black", penalties={9: ["8.5.2"]})) == ["8.5.2"]


def test_8_5_3_needs_a_red_player_and_a_black_win_D8() -> None:
    assert rules(game("black", penalties={7: ["8.5.3"]})) == []
    assert rules(game("draw", penalties={7: ["8.5.3"]})) == ["8.5.3"]
    assert rules(game("black", penalties={10: ["8.5.3"]})) == ["8.5.3"]


def test_8_5_4_needs_mafia_or_the_don_and_a_red_win_D8() -> None:
    assert rules(game("red", penalties={8: ["8.5.4"], 10: ["8.5.4"]})) == []
    assert rules(game("black", penalties={8: ["8.5.4"]})) == ["8.5.4"]
    assert rules(game("red", penalties={1: ["8.5.4"]})) == ["8.5.4"]


# Every problem at once; the message format


def test_every_problem_is_reported_at_once() -> None:
    g = game(
        "red",
        players=["P1", "P1", *names()[2:]],
        first_killed=12,
        day1_voted_out=5,
        best_move=[8, 8, 9, 10],
        disqualified=[0],
        judge={1: "0.75", 9: "0.5", 2: "0.1", 3: "0.1", 4: "0.1"},
        approved=[1, 20],
        penalties={1: ["8.5.4"], 30: ["x"]},
    )
    assert rules(g) == [
        "seats",
        "8.6",
        "8.3.6",
        "8.3.2",
        "D10",
        "8.2.4",
        "8.4.3",
        "8.4.4",
        "8.4.1",
        "8.4.2",
        "D7",
        "8.5.4",
        "8.5",
        "8.5",
    ]


def test_problem_line_is_game_rule_message() -> None:
    p = Problem(
        "R1-T1", "8.4.1", "judge's extra points for {count} players; at most 4", {"count": 5}
    )
    assert p.message == "judge's extra points for 5 players; at most 4"
    assert str(p) == "R1-T1: 8.4.1: judge's extra points for 5 players; at most 4"


def test_problem_template_and_params_let_the_bot_translate() -> None:
    [p] = validate_game(game("red", judge={9: "0.45"}))
    assert (
        p.template == "judge's extra points {value} for seat {seat} of the losing team; at most 0.4"
    )
    assert p.params == {"value": "0.45", "seat": 9}
    russian = "судейские баллы {value} игроку {seat} проигравшей команды; не больше 0,4"
    assert russian.format(**p.params).startswith("судейские баллы 0.45 игроку 9")
    assert N_("x") == "x"


def test_every_message_template_is_marked_for_gettext_extraction() -> None:
    source = (Path(__file__).parents[2] / "scoring" / "validate.py").read_text(encoding="utf-8")
    marked = set(re.findall(r'N_\(\s*"([^"]*)"', source))
    g = game(
        "red",
        players=["P1", "P1", *names()[2:]],
        first_killed=12,
        judge={1: "0.75", 9: "0.5"},
    )
    for problem in validate_game(g):
        assert any(problem.template.startswith(m) for m in marked), problem.template


def test_russian_translations_cover_every_message_template() -> None:
    from babel.messages.extract import extract_from_dir

    from bot.texts.i18n import read_catalog

    root = Path(__file__).parents[2]
    package = root / "scoring"
    templates = {m for _f, _l, m, _c, _x in extract_from_dir(package, keywords={"N_": None})}
    # The bot's one catalog (every *.po of the folder) holds the engine's sentences too
    # (rules.po): the bot shows them.
    folder = root / "locales/ru/LC_MESSAGES"
    catalog = {m.id: m.string for m in read_catalog(folder) if m.id}
    assert templates <= set(catalog)
    for template in templates:
        russian = catalog[template]
        assert set(re.findall(r"{\w+}", template)) == set(re.findall(r"{\w+}", russian))
