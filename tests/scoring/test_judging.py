"""``scoring.judging``: what the judge's card offers is what ``validate_game`` accepts,
what it refuses is refused there; Ci, the formatter and the parser of points."""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import (
    PENALTY_RULES,
    SEAT_NUMBERS,
    Game,
    Result,
    Role,
    RunningTally,
    Tournament,
    game_breakdown,
    game_tally,
    tournament_breakdowns,
    validate_game,
)
from scoring.judging import (
    APPROVAL_THRESHOLD,
    DAY1_CHOICES,
    EXTRA_STEP,
    best_move_allowed,
    best_move_points,
    compensated,
    counted_extras,
    extra_limit,
    first_killed_ci,
    first_night_deaths,
    format_points,
    judge_cap,
    judge_points_allowed,
    needs_approval,
    parse_points,
    penalties_allowed,
    penalty_allowed,
    penalty_points,
    points_hundredths,
)
from scoring.record import record_of_game

from .builders import game
from .test_properties import SETTINGS, valid_games, valid_tournaments

GRID = range(EXTRA_STEP, 100 + 1, EXTRA_STEP)


def rules_broken(g: Game) -> set[str]:
    return {problem.rule for problem in validate_game(g)}


# -- penalties (8.5, D8) ----------------------------------------------------------------------


@pytest.mark.parametrize("role", list(Role))
@pytest.mark.parametrize("result", list(Result))
@pytest.mark.parametrize("rule", PENALTY_RULES)
def test_d8_a_penalty_is_offered_exactly_when_the_engine_accepts_it(
    role: Role, result: Result, rule: str
) -> None:
    roles = [Role.CIVILIAN] * 6 + [Role.SHERIFF, Role.MAFIA, Role.MAFIA, Role.DON]
    seat = roles.index(role) + 1
    g = game(result.value, roles=roles, penalties={seat: [rule]})
    assert penalty_allowed(role, result, rule) == (not rules_broken(g))
    assert (rule in penalties_allowed(role, result)) == penalty_allowed(role, result, rule)


def test_d8_nothing_is_offered_before_the_role_and_the_result_are_known() -> None:
    assert penalties_allowed(None, Result.BLACK) == ()
    assert penalties_allowed(Role.CIVILIAN, None) == ()
    assert not penalty_allowed(Role.CIVILIAN, Result.BLACK, "8.5.9")
    assert penalty_points(["8.5.1", "8.5.3"]) == Fraction(-4, 5)


# -- judge's extra points (8.4, D4-D7) ----------------------------------------------------------


@SETTINGS
@given(valid_games(), st.data())
def test_8_4_every_value_offered_is_accepted_and_every_value_refused_is_refused(
    g: Game, data: st.DataObject
) -> None:
    seat = data.draw(st.sampled_from(list(SEAT_NUMBERS)))
    role = g.seat(seat).role
    extras = {s: int(v * 100) for s, v in g.judge_extras.items()}
    best = best_move_points(g)
    limit = extra_limit(seat, judge_cap(role, g.result), extras, best)
    for value in GRID:
        tried = replace(
            g,
            judge_extras={**g.judge_extras, seat: Fraction(value, 100)},
            chief_approved=g.chief_approved - {seat},
        )
        broken = rules_broken(tried)
        assert (value in limit.values) == (not broken), (value, limit, broken)
    # The rule named is the one that refuses the next value.
    refused = limit.most + EXTRA_STEP
    if refused <= 100:
        tried = replace(g, judge_extras={**g.judge_extras, seat: Fraction(refused, 100)})
        assert limit.rule in rules_broken(tried), (refused, limit)


@SETTINGS
@given(valid_games())
def test_8_4_6_what_counts_is_what_the_engine_counts(g: Game) -> None:
    extras = {s: int(v * 100) for s, v in g.judge_extras.items()}
    points = game_breakdown(g, ci=Fraction(0))
    engine = sum(s.judge for s in points.seats if s.judge_counted or s.judge_pending)
    assert Fraction(counted_extras(extras, best_move_points(g)), 100) == engine
    plain = replace(g, judge_extras={}, chief_approved=frozenset())
    expected = {s.seat: s.best_move for s in game_breakdown(plain, ci=Fraction(0)).seats}
    assert best_move_points(g) == {seat: v for seat, v in expected.items() if v}


def test_8_4_caps_draw_and_approval() -> None:
    assert judge_cap(Role.SHERIFF, Result.RED) == (70, "8.4.3")
    assert judge_cap(Role.DON, Result.RED) == (40, "8.4.4")
    assert judge_cap(Role.DON, Result.DRAW) is None and judge_cap(None, Result.RED) is None
    assert not judge_points_allowed(Result.DRAW) and judge_points_allowed(None)
    assert APPROVAL_THRESHOLD == 50 and needs_approval(55) and not needs_approval(50)
    broken = game("red", judge={1: "0.1"}, first_killed=None)
    assert best_move_points(replace(broken, disqualified=(1, 1))) == {}


# -- the best move (8.3) -------------------------------------------------------------------------


@pytest.mark.parametrize("day1", list(DAY1_CHOICES))
@pytest.mark.parametrize("first", [None, 3])
def test_8_3_6_the_best_move_is_allowed_as_the_engine_allows_it(
    day1: int, first: int | None
) -> None:
    g = game("red", first_killed=first, day1_voted_out=day1, best_move=[8])
    assert best_move_allowed(first, day1) == (not rules_broken(g))
    assert not best_move_allowed(first, None)


# -- Ci (8.6.1, D1) -------------------------------------------------------------------------------


@SETTINGS
@given(valid_tournaments())
def test_8_6_1_i_and_ci_are_the_standings_own(t: Tournament) -> None:
    tally = RunningTally()
    for g in t.games:
        tally.add(game_tally(record_of_game(g)))
    players = {seat.player for g in t.games for seat in g.seats}
    for player in players:
        assert first_night_deaths(t.games, player) == tally.first_night_red(player)
    breakdowns = tournament_breakdowns(t)
    for g in t.games:
        info = first_killed_ci(t, g, replaces=g.id)
        if g.first_killed is None:
            assert info.i == 0 and info.ci == 0
            continue
        seat = breakdowns[g.id].seats[g.first_killed - 1]
        assert bool(seat.ci) == compensated(seat.role, g.result)
        if seat.ci:
            assert info.ci == seat.ci
        assert info.i == first_night_deaths(t.games, g.seat(g.first_killed).player)


# -- points for people (D3, D6) ------------------------------------------------------------------


def card_format(value: Fraction) -> str:
    """The judge's card's formatter before ``format_points``: Decimal, half up."""
    number = Decimal(value.numerator) / Decimal(value.denominator)
    text = format(number.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    if text in ("-0", ""):
        return "0"
    return "\u2212" + text[1:] if text.startswith("-") else text


def standings_format(value: Fraction, minus: str = "\u2212") -> str:
    """The standings' formatter before ``format_points``: two decimals always."""
    scaled, rest = divmod(abs(value.numerator) * 100, value.denominator)
    if 2 * rest >= value.denominator:
        scaled += 1
    sign = minus if value < 0 and scaled else ""
    return f"{sign}{scaled // 100}.{scaled % 100:02d}"


@given(st.fractions(max_denominator=10_000, min_value=-50, max_value=50))
def test_d3_one_formatter_for_the_card_and_the_standings(value: Fraction) -> None:
    assert format_points(value) == card_format(value)
    assert format_points(value, fixed=True) == standings_format(value)
    assert format_points(value, fixed=True, minus="-") == standings_format(value, "-")


@pytest.mark.parametrize(
    ("value", "short", "fixed"),
    [
        (Fraction(1, 2), "0.5", "0.50"),
        (Fraction(1), "1", "1.00"),
        (Fraction(-2, 5), "\u22120.4", "\u22120.40"),
        (Fraction(1, 8), "0.13", "0.13"),
        (Fraction(-1, 1000), "0", "0.00"),
        (Fraction(2, 15), "0.13", "0.13"),
    ],
)
def test_d3_points_shown(value: Fraction, short: str, fixed: str) -> None:
    assert (format_points(value), format_points(value, fixed=True)) == (short, fixed)


@pytest.mark.parametrize(
    ("text", "value", "hundredths"),
    [
        ("0.35", Fraction(35, 100), 35),
        ("0,5", Fraction(1, 2), 50),
        ("1", Fraction(1), 100),
        ("0.355", Fraction(355, 1000), None),
        ("0.350000000000", Fraction(35, 100), 35),
        ("-0.3", None, None),
        ("0.", None, None),
        ("abc", None, None),
        ("1234567", None, None),
        ("0.1234567890123", None, None),
    ],
)
def test_d6_typed_points(text: str, value: Fraction | None, hundredths: int | None) -> None:
    parsed = parse_points(text)
    assert parsed == value
    if parsed is not None:
        assert points_hundredths(parsed) == hundredths
