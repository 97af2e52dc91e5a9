"""Per-game points (8.2-8.6, D1-D10): expected values worked out by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scoring import (
    InvalidGameError,
    b_value,
    ci_value,
    compute_standings,
    game_breakdown,
    tournament_breakdowns,
)
from scoring.model import Game
from scoring.points import GameBreakdown, SeatPoints

from .builders import BLACK_SEATS, RED_SEATS, game, names, tournament

ZERO = Fraction(0)


def card(g: Game, ci: Fraction = ZERO) -> GameBreakdown:
    return game_breakdown(g, ci=ci)


def seat(breakdown: GameBreakdown, number: int) -> SeatPoints:
    return breakdown.seats[number - 1]


# 8.2 — wins, losses, draws, disqualification


def test_8_2_1_every_red_player_gets_one_point_for_a_red_win() -> None:
    b = card(game("red"))
    assert [seat(b, n).win for n in RED_SEATS] == [Fraction(1)] * 7
    assert [seat(b, n).win for n in BLACK_SEATS] == [ZERO] * 3
    assert seat(b, 7).main == Fraction(1) and seat(b, 7).total == Fraction(1)


def test_8_2_2_every_black_player_gets_one_point_for_a_black_win() -> None:
    b = card(game("black"))
    assert [seat(b, n).win for n in BLACK_SEATS] == [Fraction(1)] * 3
    assert [seat(b, n).win for n in RED_SEATS] == [ZERO] * 7


def test_8_2_3_loss_or_draw_gives_no_points_and_no_penalty() -> None:
    for result in ("draw", "black"):
        b = card(game(result))
        losers = RED_SEATS if result == "black" else RED_SEATS + BLACK_SEATS
        for n in losers:
            assert (seat(b, n).win, seat(b, n).extra, seat(b, n).total) == (ZERO, ZERO, ZERO)


def test_8_2_4_disqualified_player_gets_minus_half_extra() -> None:
    b = card(game("black", disqualified=[3]))
    assert seat(b, 3).disqualification == Fraction(-1, 2)
    assert seat(b, 3).extra == Fraction(-1, 2) and seat(b, 3).main == ZERO
    assert seat(b, 3).total == Fraction(-1, 2)
    assert seat(b, 4).disqualification == ZERO


def test_D9_disqualified_player_still_gets_his_teams_win() -> None:
    b = card(game("red", disqualified=[2]))
    assert seat(b, 2).win == Fraction(1)
    assert seat(b, 2).total == Fraction(1, 2)  # 1 - 0.5


# 8.3 — the best move


def test_8_3_best_move_belongs_to_the_first_killed_player() -> None:
    b = card(game("red", first_killed=2, best_move=[8, 9, 10]))
    assert seat(b, 2).best_move == Fraction(2, 5)
    assert all(seat(b, n).best_move == ZERO for n in range(1, 11) if n != 2)


def test_8_3_1_named_numbers_are_kept_in_order_and_scored_as_named() -> None:
    g = game("red", first_killed=2, best_move=[10, 8, 9])
    assert g.best_move == (10, 8, 9)
    assert seat(card(g), 2).best_move == Fraction(2, 5)


def test_8_3_2_only_numbers_named_before_breaking_off_count() -> None:
    # He named 8 and 9, then started reasoning: two numbers, both black.
    assert seat(card(game("red", first_killed=1, best_move=[8, 9])), 1).best_move == Fraction(1, 4)
    assert seat(card(game("red", first_killed=1, best_move=[8])), 1).best_move == ZERO
    assert seat(card(game("red", first_killed=1, best_move=[])), 1).best_move == ZERO


def test_8_3_4_three_blacks_give_0_4_two_give_0_25_else_nothing() -> None:
    def best(named: list[int]) -> Fraction:
        return seat(card(game("black", first_killed=3, best_move=named)), 3).best_move

    assert best([8, 9, 10]) == Fraction(2, 5)
    assert best([8, 10, 1]) == Fraction(1, 4)
    assert best([8, 1, 2]) == ZERO
    assert best([1, 2, 4]) == ZERO


def test_8_3_4_the_sheriff_gets_best_move_points_too() -> None:
    b = card(game("red", first_killed=7, best_move=[8, 9, 10]))
    assert seat(b, 7).best_move == Fraction(2, 5)
    assert seat(b, 7).total == Fraction(7, 5)  # win 1 + 0.4


def test_8_3_5_asking_for_a_hint_voids_the_best_move() -> None:
    b = card(game("red", first_killed=1, best_move=[8, 9, 10], best_move_hint=True))
    assert seat(b, 1).best_move == ZERO and seat(b, 1).extra == ZERO


def test_8_3_6_no_best_move_after_two_left_by_day_1_voting_game_is_valid_without_one() -> None:
    b = card(game("black", day1_voted_out=2, first_killed=1))
    assert seat(b, 1).best_move == ZERO


def test_D10_first_killed_black_player_gets_no_best_move_points() -> None:
    b = card(game("red", first_killed=8, best_move=[9, 10, 1]))  # recorded: valid
    assert seat(b, 8).best_move == ZERO and seat(b, 8).extra == ZERO


# 8.4 — judge's extra points


def test_8_4_judge_gives_extra_points_to_the_best_players() -> None:
    b = card(game("red", judge={1: "0.3", 9: "0.2"}))
    assert seat(b, 1).judge == Fraction(3, 10) and seat(b, 1).judge_counted
    assert seat(b, 1).bonus == Fraction(3, 10) and seat(b, 1).total == Fraction(13, 10)
    assert seat(b, 9).extra == Fraction(1, 5) and seat(b, 9).total == Fraction(1, 5)


def test_8_4_5_judge_points_are_given_whatever_team_won_or_not_at_all() -> None:
    b = card(game("black", judge={2: "0.4"}))  # a player of the losing team
    assert seat(b, 2).extra == Fraction(2, 5)
    assert all(s.judge == ZERO and s.bonus == ZERO for s in card(game("black")).seats)


def test_8_4_6_judge_points_lose_to_a_larger_best_move() -> None:
    b = card(game("red", first_killed=1, best_move=[8, 9, 10], judge={1: "0.3"}))
    s = seat(b, 1)
    assert (s.best_move, s.judge, s.bonus) == (Fraction(2, 5), Fraction(3, 10), Fraction(2, 5))
    assert not s.judge_counted and s.extra == Fraction(2, 5)


def test_8_4_6_larger_judge_points_replace_the_best_move() -> None:
    b = card(game("red", first_killed=1, best_move=[8, 9, 2], judge={1: "0.5"}))
    s = seat(b, 1)
    assert (s.best_move, s.bonus) == (Fraction(1, 4), Fraction(1, 2)) and s.judge_counted
    assert s.total == Fraction(3, 2)


def test_D4_tie_counts_as_best_move() -> None:
    b = card(game("black", first_killed=2, best_move=[8, 9, 1], judge={2: "0.25"}))
    s = seat(b, 2)
    assert (s.best_move, s.judge, s.bonus) == (Fraction(1, 4), Fraction(1, 4), Fraction(1, 4))
    assert not s.judge_counted and s.extra == Fraction(1, 4)  # once, not twice


def test_D5_voided_best_move_is_worth_nothing_so_judge_points_count() -> None:
    g = game("red", first_killed=1, best_move=[8, 9, 10], best_move_hint=True, judge={1: "0.3"})
    s = seat(card(g), 1)
    assert s.best_move == ZERO and s.judge_counted and s.bonus == Fraction(3, 10)


def test_D7_points_above_half_wait_for_the_chief_judges_approval() -> None:
    pending = card(game("red", judge={3: "0.6"}))
    s = seat(pending, 3)
    assert s.judge == Fraction(3, 5) and s.judge_pending and not s.judge_counted
    assert s.bonus == ZERO and s.total == Fraction(1)
    assert pending.pending

    approved = card(game("red", judge={3: "0.6"}, approved=[3]))
    s = seat(approved, 3)
    assert s.judge_counted and not s.judge_pending and s.total == Fraction(8, 5)
    assert not approved.pending


def test_D7_pending_points_above_half_keep_his_best_move_meanwhile() -> None:
    g = game("red", first_killed=1, best_move=[8, 9, 2], judge={1: "0.7"})
    s = seat(card(g), 1)
    assert s.judge_pending and s.bonus == Fraction(1, 4)


def test_D7_approval_of_half_or_less_is_harmless() -> None:
    s = seat(card(game("red", judge={3: "0.5"}, approved=[3, 4])), 3)
    assert s.judge_counted and s.bonus == Fraction(1, 2) and not s.judge_pending


# 8.5 — penalties (D8)


def test_8_5_each_penalty_is_minus_0_4_extra() -> None:
    b = card(game("black", penalties={2: ["8.5.1", "8.5.3"], 4: ["8.5.2"]}))
    assert seat(b, 2).penalties == Fraction(-4, 5) and seat(b, 2).total == Fraction(-4, 5)
    assert seat(b, 4).penalties == Fraction(-2, 5)


def test_D8_a_player_can_get_several_penalties_each_minus_0_4() -> None:
    b = card(game("black", penalties={7: ["8.5.1", "8.5.3"]}))  # the sheriff, red lost
    assert seat(b, 7).penalties == Fraction(-4, 5) and seat(b, 7).extra == Fraction(-4, 5)


def test_8_5_same_penalty_twice_for_one_seat_counts_twice() -> None:
    b = card(game("black", penalties={2: ["8.5.1", "8.5.1"]}))
    assert seat(b, 2).penalties == Fraction(-4, 5)


def test_8_5_4_penalised_don_keeps_nothing_for_the_loss_and_loses_0_4() -> None:
    b = card(game("red", penalties={10: ["8.5.4"]}))
    assert seat(b, 10).extra == Fraction(-2, 5) and seat(b, 10).main == ZERO


def test_8_5_penalty_disqualification_and_judge_points_add_up_in_extra() -> None:
    g = game("black", disqualified=[9], judge={9: "0.4"}, penalties={1: ["8.5.2"]})
    b = card(g)
    assert seat(b, 9).extra == Fraction(-1, 10)  # 0.4 - 0.5
    assert seat(b, 9).total == Fraction(9, 10)  # win 1 - 0.1
    assert seat(b, 1).extra == Fraction(-2, 5)


# 8.6 — compensation Ci


def test_8_6_first_killed_red_player_is_compensated_when_red_loses() -> None:
    b = card(game("black", first_killed=4), ci=Fraction(1, 10))
    assert seat(b, 4).ci == Fraction(1, 10) and seat(b, 4).main == Fraction(1, 10)
    assert seat(b, 4).extra == ZERO  # Ci is main points, not extra (8.6.3, 8.7.1)
    assert all(seat(b, n).ci == ZERO for n in range(1, 11) if n != 4)


def test_8_6_3_no_compensation_when_red_wins_or_in_a_draw_or_for_black() -> None:
    assert seat(card(game("red", first_killed=4), ci=Fraction(1, 10)), 4).ci == ZERO
    assert seat(card(game("draw", first_killed=4), ci=Fraction(1, 10)), 4).ci == ZERO
    assert seat(card(game("black", first_killed=9), ci=Fraction(1, 10)), 9).ci == ZERO


def test_8_6_1_ci_is_i_times_0_4_over_b_up_to_b_then_0_4() -> None:
    assert ci_value(1, 4) == Fraction(1, 10)
    assert ci_value(2, 4) == Fraction(1, 5)
    assert ci_value(4, 4) == Fraction(2, 5)
    assert ci_value(5, 4) == Fraction(2, 5)
    assert ci_value(2, 3) == Fraction(4, 15)
    assert ci_value(0, 4) == ZERO


def test_D2_b_is_40_percent_of_the_distance_rounded_half_up() -> None:
    # 0.4 × 1 = 0.4 → 0; 0.8 → 1; 1.2 → 1; 1.6 → 2; 2.0 → 2; 4.0 → 4; 4.4 → 4; 4.8 → 5
    got = {d: b_value(d) for d in (1, 2, 3, 4, 5, 10, 11, 12)}
    assert got == {1: 0, 2: 1, 3: 1, 4: 2, 5: 2, 10: 4, 11: 4, 12: 5}
    with pytest.raises(ValueError):
        b_value(0)


def test_D2_b_zero_means_every_i_is_above_b_so_ci_is_0_4() -> None:
    assert ci_value(1, 0) == Fraction(2, 5)
    t = tournament(game("black", first_killed=1), distance=1)
    row = next(r for r in compute_standings(t).rows if r.player == "P1")
    assert compute_standings(t).B == 0 and row.ci == Fraction(2, 5)


def test_8_6_2_ci_uses_how_many_times_he_was_shot_first_as_red() -> None:
    # distance 10 → B = 4; P1 shot first as red twice, both times red lost: Ci = 2 × 0.4 / 4.
    t = tournament(
        game("black", id="A", first_killed=1),
        game("black", id="B", first_killed=1),
        distance=10,
    )
    cards = tournament_breakdowns(t)
    assert seat(cards["A"], 1).ci == Fraction(1, 5) and seat(cards["B"], 1).ci == Fraction(1, 5)
    row = next(r for r in compute_standings(t).rows if r.player == "P1")
    assert row.ci == Fraction(2, 5) and row.main == Fraction(2, 5) and row.extra == ZERO


def test_D1_a_later_first_night_death_raises_ci_already_earned() -> None:
    first = game("black", id="A", first_killed=1)
    alone = tournament_breakdowns(tournament(first, distance=10))
    assert seat(alone["A"], 1).ci == Fraction(1, 10)  # i = 1, B = 4
    # A second first-night death as red, in a game red won (no Ci there), makes i = 2.
    both = tournament_breakdowns(tournament(first, game("red", id="B", first_killed=1)))
    assert seat(both["A"], 1).ci == Fraction(1, 5)
    assert seat(both["B"], 1).ci == ZERO


def test_D1_first_night_death_in_a_draw_counts_for_i_as_black_it_does_not() -> None:
    t = tournament(
        game("black", id="A", first_killed=1),
        game("draw", id="B", first_killed=1),  # red, in a draw: i = 2
        game("red", id="C", first_killed=10, players=names()[::-1]),  # P1 is the don here
        distance=10,
    )
    assert seat(tournament_breakdowns(t)["A"], 1).ci == Fraction(1, 5)  # 2 × 0.4 / 4
    row = next(r for r in compute_standings(t).rows if r.player == "P1")
    assert row.first_night_deaths == 3 and row.ci == Fraction(1, 5)


def test_D3_exact_thirds_of_compensation() -> None:
    # distance 8 → B = round(3.2) = 3; i = 1 → Ci = 0.4 / 3 = 2/15, not 0.1333…
    t = tournament(game("black", first_killed=5), distance=8)
    row = next(r for r in compute_standings(t).rows if r.player == "P5")
    assert row.ci == Fraction(2, 15) and row.total == Fraction(2, 15)


def test_breakdown_refuses_an_invalid_game() -> None:
    with pytest.raises(InvalidGameError) as raised:
        card(game("red", judge={1: "0.9"}))
    assert [p.rule for p in raised.value.problems] == ["8.4.3"]


def test_breakdown_totals_are_main_plus_extra() -> None:
    g = game("black", first_killed=2, best_move=[8, 9, 1], judge={8: "0.3"}, disqualified=[5])
    for s in card(g, ci=Fraction(1, 10)).seats:
        assert s.main == s.win + s.ci
        assert s.extra == s.disqualification + s.bonus + s.penalties
        assert s.total == s.main + s.extra
