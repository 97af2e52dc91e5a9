"""Reading tournament files: exact numbers, structure errors, rule problems carried on."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from scoring import (
    InputError,
    Result,
    Role,
    compute_standings,
    load_json,
    parse_game,
    parse_tournament,
    validate_tournament,
)
from scoring.record import hundredths

from .builders import game_json, rules_of, tournament_json


def test_judge_points_are_exact_from_json_numbers_and_decimal_strings() -> None:
    data = load_json(
        b'{"distance": 4, "games": [{"id": "G1", "result": "red", "seats": '
        + game_json_seats()
        + b', "judge_extras": {"1": 0.1, "2": "0.2", "3": 0.30}}]}'
    )
    [g] = parse_tournament(data).games
    assert g.judge_extras == {1: Fraction(1, 10), 2: Fraction(1, 5), 3: Fraction(3, 10)}
    assert all(type(v) is Fraction for v in g.judge_extras.values())


def game_json_seats() -> bytes:
    import json

    return json.dumps(game_json()["seats"]).encode()


def test_hundredths_never_lets_binary_float_error_in() -> None:
    assert hundredths(0.1) == 10 and hundredths(0.7) == 70 and hundredths(1.15) == 115
    assert hundredths(Decimal("0.35")) == 35 and hundredths("0.05") == 5
    assert hundredths(Fraction(3, 10)) == 30 and hundredths(1) == 100
    assert hundredths("0.333") is None and hundredths(True) is None and hundredths("x") is None
    assert hundredths(float("nan")) is None and hundredths("Infinity") is None


def test_defaults_of_optional_fields() -> None:
    g = parse_game(game_json())
    assert (g.day1_voted_out, g.first_killed, g.best_move, g.best_move_hint) == (0, None, (), False)
    assert (g.disqualified, g.judge_extras, g.chief_approved, g.penalties) == (
        (),
        {},
        frozenset(),
        {},
    )
    assert g.result is Result.RED and g.seat(10).role is Role.DON and g.seat(1).player == "P1"


def test_null_optional_fields_are_their_defaults() -> None:
    g = parse_game(game_json(best_move=None, judge_extras=None, best_move_hint=None))
    assert (g.best_move, g.judge_extras, g.best_move_hint) == ((), {}, False)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"games": []}, "distance"),
        ({"distance": 4}, "games"),
        ({"distance": 0, "games": []}, "distance"),
        ({"distance": "4", "games": []}, "distance"),
        ({"distance": True, "games": []}, "distance"),
        ({"distance": 4, "games": {}}, "games"),
        ({"distance": 4, "games": [], "lot": "A"}, "lot"),
        ({"distance": 4, "games": [], "lot": [1]}, "lot"),
        ({"distance": 4, "games": [{"result": "red", "seats": []}]}, "games[0].id"),
        ({"distance": 4, "games": [{"id": 7, "result": "red", "seats": []}]}, "games[0].id"),
        ({"distance": 4, "games": [{"id": "G", "seats": []}]}, "games[0].result"),
        ({"distance": 4, "games": [{"id": "G", "result": "red"}]}, "games[0].seats"),
        ({"distance": 4, "games": [{"id": "G", "result": "red", "seats": {}}]}, "games[0].seats"),
        ({"distance": 4, "games": ["G1"]}, "games[0]"),
    ],
)
def test_structure_problems_raise_one_line_naming_file_and_field(
    data: dict[str, object], field: str
) -> None:
    with pytest.raises(InputError) as raised:
        parse_tournament(data, "t.json")
    message = str(raised.value)
    assert message.startswith(f"t.json: {field}") and "\n" not in message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seats": [{"role": "civilian"}]}, "seats[0].player"),
        ({"seats": [{"player": "A"}]}, "seats[0].role"),
        ({"seats": [{"player": 5, "role": "civilian"}]}, "seats[0].player"),
        ({"seats": [{"player": "A", "role": None}]}, "seats[0].role"),
        ({"seats": ["A"]}, "seats[0]"),
        ({"best_move": "8 9 10"}, "best_move"),
        ({"disqualified": 3}, "disqualified"),
        ({"judge_extras": [0.3]}, "judge_extras"),
        ({"chief_approved": {}}, "chief_approved"),
        ({"penalties": ["8.5.1"]}, "penalties"),
        ({"penalties": {"3": "8.5.1"}}, "penalties.3"),
        ({"best_move_hint": "yes"}, "best_move_hint"),
    ],
)
def test_structure_problems_in_a_game_name_the_game_and_field(
    change: dict[str, object], field: str
) -> None:
    data = tournament_json(game_json(id="R1-T1", **change))
    with pytest.raises(InputError) as raised:
        parse_tournament(data, "t.json")
    assert str(raised.value).startswith(f"t.json: games[0].{field} (game R1-T1): ")


def test_not_json_names_the_file() -> None:
    with pytest.raises(InputError) as raised:
        load_json(b'{"distance": 4,', "t.json")
    assert str(raised.value).startswith("t.json: not valid JSON: ")
    with pytest.raises(InputError):
        load_json(b"\xff\xfe\x00", "t.json")


def test_rule_problems_are_carried_to_validation_per_game() -> None:
    seats = game_json()["seats"]
    data = tournament_json(
        game_json(id="A", seats=seats[:9]),
        game_json(id="B", seats=[*seats[:9], {"player": "Q", "role": "wizard"}]),
        game_json(id="C", day1_voted_out="two", first_killed="4"),
        game_json(id="D", judge_extras={"x": "0.3", "2": "lots"}, penalties={"11": ["8.5.1"]}),
        game_json(id="E", result=3),
    )
    t = parse_tournament(data, "t.json")
    problems = validate_tournament(t)
    assert [(p.game_id, p.rule) for p in problems] == [
        ("A", "seats"),
        ("A", "roles"),
        ("B", "roles"),
        ("C", "8.6"),
        ("C", "8.3.6"),
        ("D", "8.4"),
        ("D", "D6"),
        ("D", "8.5"),
        ("E", "result"),
    ]
    assert [str(p) for p in problems][2] == (
        "B: roles: seat 10 has role wizard; roles are civilian, sheriff, mafia, don"
    )


def test_D11_fields_for_the_bot_such_as_end_time_do_not_change_the_points() -> None:
    # D11 (the protest window) is the bot's: the game's end time may ride along in an
    # export, and scoring ignores fields it does not know.
    plain = tournament_json(game_json(first_killed=1))
    timed = tournament_json(game_json(first_killed=1, ended_at="2024-05-01T20:15:00Z"))
    assert compute_standings(parse_tournament(timed)) == compute_standings(parse_tournament(plain))
    assert validate_tournament(parse_tournament(timed)) == []


def test_lot_is_read() -> None:
    t = parse_tournament(tournament_json(game_json(), lot=["P2", "P1"]))
    assert t.lot == ("P2", "P1") and t.distance == 10


def test_rules_of_a_parsed_valid_game() -> None:
    g = parse_game(game_json(first_killed=2, best_move=[8, 9, 10], judge_extras={"2": 0.3}))
    from scoring import validate_game

    assert rules_of(validate_game(g)) == []
