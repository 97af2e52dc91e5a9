"""Properties over generated valid tournaments, and generated invalid games."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring import (
    compute_standings,
    tournament_breakdowns,
    validate_game,
    validate_tournament,
)
from scoring.model import Game, Result, Role, Seat, Tournament

from .builders import DEFAULT_ROLES

SETTINGS = settings(
    max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
POOL = [f"N{n:02d}" for n in range(16)]
RED_ROLES = {Role.CIVILIAN, Role.SHERIFF}
# The strategies ``valid_games`` draws from, made once: hypothesis validates each new
# strategy object again, which cost more than drawing from it (thousands of games a run).
ROLES = st.permutations(DEFAULT_ROLES)
TEN_PLAYERS = st.lists(st.sampled_from(POOL), min_size=10, max_size=10, unique=True)
RESULTS = st.sampled_from(list(Result))
BEST_MOVES = {
    first: st.lists(st.sampled_from([n for n in range(1, 11) if n != first]), max_size=3,
                    unique=True)
    for first in range(1, 11)
}
PENALTY_RULES: dict[tuple[str, ...], st.SearchStrategy[list[str]]] = {}


def penalty_rules(allowed: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    if allowed not in PENALTY_RULES:
        PENALTY_RULES[allowed] = st.lists(st.sampled_from(allowed), min_size=1, max_size=2)
    return PENALTY_RULES[allowed]


@st.composite
def valid_games(draw: st.DrawFn, game_id: str = "G") -> Game:
    roles = draw(ROLES)
    players = draw(TEN_PLAYERS)
    result = draw(RESULTS)
    voted_out = draw(st.integers(0, 3))
    first = draw(st.none() | st.integers(1, 10))
    best: list[int] = []
    hint = False
    if first is not None:
        hint = draw(st.booleans())
        if voted_out < 2:
            best = draw(BEST_MOVES[first])
    judge: dict[int, Fraction] = {}
    approved: set[int] = set()
    if result is not Result.DRAW:
        budget = 100
        for seat in draw(st.lists(st.integers(1, 10), max_size=4, unique=True)):
            winner = roles[seat - 1].team is result
            top = min(70 if winner else 40, budget)
            if top < 5:
                break
            value = draw(st.integers(1, top))
            budget -= value
            judge[seat] = Fraction(value, 100)
            if value > 50 and draw(st.booleans()):
                approved.add(seat)
    penalties: dict[int, list[str]] = {}
    for seat in draw(st.lists(st.integers(1, 10), max_size=2, unique=True)):
        role = roles[seat - 1]
        allowed = []
        if role in RED_ROLES and result is Result.BLACK:
            allowed += ["8.5.1", "8.5.3"]
        if role is Role.CIVILIAN:
            allowed.append("8.5.2")
        if role not in RED_ROLES and result is Result.RED:
            allowed.append("8.5.4")
        if allowed:
            penalties[seat] = draw(penalty_rules(tuple(allowed)))
    disqualified = draw(st.lists(st.integers(1, 10), max_size=2, unique=True))
    return Game(
        id=game_id,
        result=result,
        seats=tuple(Seat(p, r) for p, r in zip(players, roles, strict=True)),
        day1_voted_out=voted_out,
        first_killed=first,
        best_move=tuple(best),
        best_move_hint=hint,
        disqualified=tuple(disqualified),
        judge_extras=judge,
        chief_approved=frozenset(approved),
        penalties={seat: tuple(rules) for seat, rules in penalties.items()},
    )


@st.composite
def valid_tournaments(draw: st.DrawFn) -> Tournament:
    count = draw(st.integers(1, 7))
    games = tuple(draw(valid_games(f"R{n}")) for n in range(count))
    lot = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=6))
    return Tournament(distance=draw(st.integers(1, 12)), games=games, lot=tuple(lot))


@SETTINGS
@given(valid_tournaments())
def test_generated_tournaments_are_valid_and_total_is_main_plus_extra(t: Tournament) -> None:
    assert validate_tournament(t) == []
    standings = compute_standings(t)
    for row in standings.rows:
        assert row.total == row.main + row.extra
        assert row.main == row.wins + row.ci
    assert [r.place for r in standings.rows] == sorted(r.place for r in standings.rows)


@SETTINGS
@given(valid_tournaments(), st.randoms(use_true_random=False))
def test_standings_do_not_depend_on_the_order_of_games(t: Tournament, rnd: Any) -> None:
    games = list(t.games)
    rnd.shuffle(games)
    shuffled = compute_standings(dataclasses.replace(t, games=tuple(games)))
    original = compute_standings(t)
    assert (shuffled.B, shuffled.rows) == (original.B, original.rows)
    assert sorted(shuffled.pending_games) == sorted(original.pending_games)  # listed in game order


def permuted(game: Game, order: list[int]) -> Game:
    """The same game listed with seat ``order[k]`` as the new seat k + 1."""
    new_of = {old: new for new, old in enumerate(order, start=1)}
    return dataclasses.replace(
        game,
        seats=tuple(game.seat(old) for old in order),
        first_killed=None if game.first_killed is None else new_of[game.first_killed],
        best_move=tuple(new_of[s] for s in game.best_move),
        disqualified=tuple(new_of[s] for s in game.disqualified),
        judge_extras={new_of[s]: v for s, v in game.judge_extras.items()},
        chief_approved=frozenset(new_of[s] for s in game.chief_approved),
        penalties={new_of[s]: r for s, r in game.penalties.items()},
    )


@SETTINGS
@given(valid_tournaments(), st.permutations(range(1, 11)))
def test_standings_do_not_depend_on_how_seats_are_listed(t: Tournament, order: list[int]) -> None:
    moved = dataclasses.replace(t, games=tuple(permuted(g, list(order)) for g in t.games))
    assert validate_tournament(moved) == []
    assert compute_standings(moved) == compute_standings(t)


@SETTINGS
@given(valid_tournaments(), st.data())
def test_raising_his_own_judge_points_never_lowers_his_place(t: Tournament, data: Any) -> None:
    index = data.draw(st.integers(0, len(t.games) - 1))
    game = t.games[index]
    assume(game.result is not Result.DRAW)
    seat = data.draw(st.integers(1, 10))
    player = game.seat(seat).player
    now = game.judge_extras.get(seat, Fraction(0))
    others = sum(v for s, v in game.judge_extras.items() if s != seat)
    winner = game.seat(seat).role.team is game.result
    top = min(Fraction(70 if winner else 40, 100), 1 - others)
    assume(top > now and (seat in game.judge_extras or len(game.judge_extras) < 4))
    raised = data.draw(st.integers(int(now * 100) + 1, int(top * 100)))
    new = dataclasses.replace(
        game,
        judge_extras={**game.judge_extras, seat: Fraction(raised, 100)},
        chief_approved=game.chief_approved | {seat},  # approved, as the rules ask (D7)
    )
    assert validate_game(new) == []
    before = compute_standings(t)
    after = compute_standings(
        dataclasses.replace(t, games=(*t.games[:index], new, *t.games[index + 1 :]))
    )
    row_before = next(r for r in before.rows if r.player == player)
    row_after = next(r for r in after.rows if r.player == player)
    assert row_after.total >= row_before.total
    assert row_after.place <= row_before.place


@SETTINGS
@given(valid_tournaments())
def test_ci_never_exceeds_0_4_per_game(t: Tournament) -> None:
    for card in tournament_breakdowns(t).values():
        for seat in card.seats:
            assert 0 <= seat.ci <= Fraction(2, 5)
    for row in compute_standings(t).rows:
        assert row.ci <= Fraction(2, 5) * row.first_night_deaths


@SETTINGS
@given(valid_tournaments())
def test_breakdowns_add_up_to_the_standings(t: Tournament) -> None:
    totals: dict[str, Fraction] = {}
    for card in tournament_breakdowns(t).values():
        for seat in card.seats:
            totals[seat.player] = totals.get(seat.player, Fraction(0)) + seat.total
    assert {r.player: r.total for r in compute_standings(t).rows} == totals


# Invalid games: one rule broken on purpose, rejected with that rule's id.


def _set(**changes: Any) -> Callable[[Game], Game]:
    return lambda g: dataclasses.replace(g, **changes)


def _seat_of(g: Game, red: bool, civilian_only: bool = False) -> int:
    for n in range(1, 11):
        role = g.seat(n).role
        if (role in RED_ROLES) == red and (not civilian_only or role is Role.CIVILIAN):
            return n
    raise AssertionError


def _red_seats(g: Game) -> list[int]:
    return [n for n in range(1, 11) if g.seat(n).role in RED_ROLES]


def _clean(g: Game) -> Game:
    """The game without best move, judge's points, penalties: room for one mutation."""
    return dataclasses.replace(
        g, best_move=(), judge_extras={}, chief_approved=frozenset(), penalties={}
    )


MUTATIONS: dict[str, Callable[[Game], Game]] = {
    "seats": lambda g: dataclasses.replace(
        g, seats=(Seat(g.seat(2).player, g.seat(1).role), *g.seats[1:])
    ),
    "roles": lambda g: dataclasses.replace(
        g,
        seats=tuple(
            Seat(s.player, Role.MAFIA if s.role is Role.SHERIFF else s.role) for s in g.seats
        ),
    ),
    "result": _set(result="blue"),
    "8.6": _set(first_killed=11),
    "8.3.6": lambda g: dataclasses.replace(g, day1_voted_out=4),
    "8.3": lambda g: dataclasses.replace(_clean(g), first_killed=None, best_move=(1, 2)),
    "8.3.2": lambda g: dataclasses.replace(
        _clean(g), day1_voted_out=0, first_killed=1, best_move=(2, 3, 4, 5)
    ),
    "D10": lambda g: dataclasses.replace(
        _clean(g), day1_voted_out=0, first_killed=1, best_move=(1, 2)
    ),
    "8.2.4": _set(disqualified=(11,)),
    "8.4": lambda g: dataclasses.replace(
        _clean(g), result=Result.RED, judge_extras={12: Fraction(1, 10)}
    ),
    "D6": lambda g: dataclasses.replace(
        _clean(g), result=Result.RED, judge_extras={1: Fraction(1, 1000)}
    ),
    "8.4.1": lambda g: dataclasses.replace(
        _clean(g), result=Result.RED, judge_extras={n: Fraction(1, 20) for n in range(1, 6)}
    ),
    "8.4.2": lambda g: dataclasses.replace(  # three red winners at 0.4: 1.2
        _clean(g),
        result=Result.RED,
        judge_extras={n: Fraction(2, 5) for n in _red_seats(g)[:3]},
    ),
    "8.4.3": lambda g: dataclasses.replace(
        _clean(g), result=Result.RED, judge_extras={_seat_of(g, True): Fraction(3, 4)}
    ),
    "8.4.4": lambda g: dataclasses.replace(
        _clean(g), result=Result.RED, judge_extras={_seat_of(g, False): Fraction(9, 20)}
    ),
    "8.4.7": lambda g: dataclasses.replace(
        _clean(g), result=Result.DRAW, judge_extras={1: Fraction(1, 10)}
    ),
    "D7": lambda g: dataclasses.replace(g, chief_approved=frozenset({0})),
    "8.5": lambda g: dataclasses.replace(_clean(g), penalties={1: ("8.6",)}),
    "8.5.1": lambda g: dataclasses.replace(
        _clean(g), result=Result.RED, penalties={_seat_of(g, True): ("8.5.1",)}
    ),
    "8.5.2": lambda g: dataclasses.replace(_clean(g), penalties={_seat_of(g, False): ("8.5.2",)}),
    "8.5.3": lambda g: dataclasses.replace(
        _clean(g), result=Result.DRAW, penalties={_seat_of(g, True): ("8.5.3",)}
    ),
    "8.5.4": lambda g: dataclasses.replace(
        _clean(g), result=Result.RED, penalties={_seat_of(g, True): ("8.5.4",)}
    ),
}


@settings(max_examples=120, deadline=None, database=None)
@given(valid_games(), st.sampled_from(sorted(MUTATIONS)))
def test_every_generated_invalid_game_is_rejected_with_that_rule_id(game: Game, rule: str) -> None:
    broken = MUTATIONS[rule](game)
    assert rule in {p.rule for p in validate_game(broken)}


@SETTINGS
@given(valid_games("R1"), valid_games("R1"))
def test_id_duplicate_game_ids_are_rejected(first: Game, second: Game) -> None:
    problems = validate_tournament(Tournament(distance=4, games=(first, second)))
    assert [(p.game_id, p.rule) for p in problems] == [("R1", "id")]


# Anything at all in a game's fields: a structure error or rule problems, never a crash.

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 14)
    | st.floats(allow_nan=True)
    | st.sampled_from(["", "x", "0.3", "8.5.1", "red", "civilian", "3", "NaN", "1e400"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["1", "3", "11", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELDS = [
    "result",
    "day1_voted_out",
    "first_killed",
    "best_move",
    "best_move_hint",
    "disqualified",
    "judge_extras",
    "chief_approved",
    "penalties",
]


@settings(max_examples=150, deadline=None, database=None)
@given(st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=4))
def test_arbitrary_values_give_an_input_error_or_problems_never_a_crash(
    fields: dict[str, Any],
) -> None:
    from scoring import InputError, parse_tournament

    from .builders import game_json, tournament_json

    data = tournament_json(game_json(id="R1-T1", **{"result": "red", **fields}))
    try:
        t = parse_tournament(data, "t.json")
    except InputError as error:
        assert str(error).startswith("t.json: ") and "\n" not in str(error)
        return
    problems = validate_tournament(t)
    assert all(str(p).startswith("R1-T1: ") for p in problems)
    if not problems:
        compute_standings(t)


def as_json(t: Tournament) -> dict[str, Any]:
    """A tournament in the contract's JSON form (judge's points as decimal strings)."""

    def points(value: Fraction) -> str:
        return f"{float(value):.2f}"

    return {
        "distance": t.distance,
        "lot": list(t.lot),
        "games": [
            {
                "id": g.id,
                "result": g.result.value,
                "seats": [{"player": s.player, "role": s.role.value} for s in g.seats],
                "day1_voted_out": g.day1_voted_out,
                "first_killed": g.first_killed,
                "best_move": list(g.best_move),
                "best_move_hint": g.best_move_hint,
                "disqualified": list(g.disqualified),
                "judge_extras": {str(k): points(v) for k, v in g.judge_extras.items()},
                "chief_approved": sorted(g.chief_approved),
                "penalties": {str(k): list(v) for k, v in g.penalties.items()},
            }
            for g in t.games
        ],
    }


@SETTINGS
@given(valid_tournaments())
def test_the_command_line_path_gives_the_same_standings_as_the_model(t: Tournament) -> None:
    import json

    from scoring import load_json, parse_tournament
    from scoring.parse import read_tournament
    from scoring.ruleset import Ruleset
    from scoring.standings import standings_of_records
    from scoring.validate import check_records

    data = load_json(json.dumps(as_json(t)))
    read = read_tournament(data)
    assert check_records(read.games) == []
    fast = standings_of_records(Ruleset(read.distance), read.lot, read.games)
    assert fast == compute_standings(t) == compute_standings(parse_tournament(data))
