"""The career rating's rule (scoring/elo.py, docs/formats.md#rating): figures worked out
by hand (to 1e-9), and properties of the rule over generated games."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import (
    EloGame,
    EloKind,
    EloSeat,
    EloSums,
    apply_elo,
    elo_factors,
    red_odds,
    replay_elo,
)
from scoring.model import Result, Role

C, S, M, D = Role.CIVILIAN, Role.SHERIFF, Role.MAFIA, Role.DON
RED, BLACK = Result.RED, Result.BLACK
TABLE = (C, C, C, C, C, C, S, M, M, D)  # seats 1-7 red, 8-10 black


def game(
    players: Sequence[str],
    roles: Sequence[Role] = TABLE,
    winner: Result | None = RED,
    kind: EloKind = EloKind.TOURNAMENT,
    rated: bool = True,
    id: str = "G1",
) -> EloGame:
    seats = tuple(EloSeat(p, r) for p, r in zip(players, roles, strict=True))
    return EloGame(id, kind, seats, winner, rated)


def ten(prefix: str = "P") -> list[str]:
    return [f"{prefix}{n}" for n in range(1, 11)]


def close(a: float, b: float) -> bool:
    return abs(a - b) < 1e-9


def test_the_contracts_example_as_the_rule_computes_it() -> None:
    # The contract's sample output (red_odds 0.5, Ann +8.0, Bob -6.0, Ann 1055.33 with
    # red 61.09) is only its shape: the rule gives other figures for its sample input.
    # Ann's initial red 52.97 against Bob's black 0 makes red_odds
    # 1 / (1 + 10 ** (-52.97 / 400)) = 0.5756..., not 0.5; two players are fewer than
    # ten, so the tournament's (16, 12) are halved to (8, 6): Ann +8 * (1 - 0.5756...)
    # = +3.3948..., Bob 6 * (0.5756... - 1) = -2.5461...; Ann's red 52.97 + 3.3948...
    # = 56.3648..., her rating 1000 + 56.3648... - 5.76 = 1050.6048... (the sample's
    # 61.09 is not even 52.97 + 8).
    sums = {"Ann": EloSums(52.97, -5.76)}
    change = apply_elo(sums, game(["Ann", "Bob"], (C, D)))
    assert close(change.red_odds, 0.5756447676341096587)
    assert close(change.changes["Ann"], 3.394841858927122731)
    assert close(change.changes["Bob"], -2.546131394195342048)
    assert list(change.changes) == ["Ann", "Bob"] and change.counts
    assert close(sums["Ann"].red, 56.36484185892712273) and sums["Ann"].black == -5.76
    assert close(sums["Ann"].rating, 1050.604841858927123)
    assert sums["Bob"].red == 0.0 and close(sums["Bob"].rating, 997.4538686058046580)


def test_a_full_table_of_equal_sides_wins_half_the_factors() -> None:
    # Reds' red sums 40, 160, 100, 100, 70, 130, 100: mean 100; blacks' black sums
    # 50, 150, 100: mean 100. The other colour's sums (here 999 and -999) do not count.
    # red_odds = 1 / (1 + 10 ** 0) = 0.5; a full tournament table (16, 12): every red
    # +16 * 0.5 = +8, every black 12 * (0.5 - 1) = -6.
    players = ten()
    reds = (40.0, 160.0, 100.0, 100.0, 70.0, 130.0, 100.0)
    blacks = (50.0, 150.0, 100.0)
    sums = {p: EloSums(red, 999.0) for p, red in zip(players[:7], reds, strict=True)}
    sums |= {p: EloSums(-999.0, black) for p, black in zip(players[7:], blacks, strict=True)}
    change = apply_elo(sums, game(players))
    assert change.red_odds == 0.5
    assert change.changes == {**dict.fromkeys(players[:7], 8.0), **dict.fromkeys(players[7:], -6.0)}
    assert [sums[p].red for p in players[:7]] == [48.0, 168.0, 108.0, 108.0, 78.0, 138.0, 108.0]
    assert {sums[p].black for p in players[:7]} == {999.0}
    assert [sums[p].black for p in players[7:]] == [44.0, 144.0, 94.0]
    assert {sums[p].red for p in players[7:]} == {-999.0}
    assert sums["P1"].rating == 1000 + 48.0 + 999.0


def test_a_club_game_of_a_full_table() -> None:
    # Everyone new: red_odds 0.5; club (4, 3): red +2, black -1.5; black won: red
    # -3 * 0.5 = -1.5, black +4 * 0.5 = +2.
    players = ten()
    change = replay_elo([game(players, kind=EloKind.CLUB, winner=BLACK)]).games[0]
    assert change.changes == {**dict.fromkeys(players[:7], -1.5), **dict.fromkeys(players[7:], 2.0)}
    change = replay_elo([game(players, kind=EloKind.CLUB)]).games[0]
    assert change.changes == {**dict.fromkeys(players[:7], 2.0), **dict.fromkeys(players[7:], -1.5)}


def test_a_short_table_halves_the_factors() -> None:
    # Six players: four reds at 0, two blacks at black 400. red_odds =
    # 1 / (1 + 10 ** (400 / 400)) = 1/11. Club (4, 3) halved to (2, 1.5); black won:
    # each red -1.5 / 11 = -0.13636..., each black +2 / 11 = +0.181818...
    players = ["A", "B", "C", "D", "E", "F"]
    sums = {"E": EloSums(0.0, 400.0), "F": EloSums(0.0, 400.0)}
    roles = (C, C, C, S, M, D)
    change = apply_elo(sums, game(players, roles, winner=BLACK, kind=EloKind.CLUB))
    assert close(change.red_odds, 1 / 11)
    for player in "ABCD":
        assert close(change.changes[player], -0.136363636363636364)
        assert close(sums[player].red, -0.136363636363636364) and sums[player].black == 0.0
    for player in "EF":
        assert close(change.changes[player], 0.181818181818181818)
        assert close(sums[player].black, 400.181818181818181818)
    assert elo_factors(EloKind.CLUB, 6) == (2.0, 1.5)
    assert elo_factors(EloKind.CLUB, 9) == (2.0, 1.5)
    assert elo_factors(EloKind.CLUB, 10) == (4.0, 3.0)
    assert elo_factors(EloKind.TOURNAMENT, 1) == (8.0, 6.0)
    assert elo_factors(EloKind.ELITE, 10) == (64.0, 48.0)


def test_an_elite_upset() -> None:
    # Reds' mean red 400 above the blacks' mean black 0: red_odds = 1 / (1 + 10 ** -1)
    # = 10/11 = 0.90909...; black won an elite game (64, 48) of ten: each red
    # -48 * 10/11 = -43.6363..., each black +64 * 10/11 = +58.1818...
    players = ten()
    sums = {p: EloSums(400.0, 0.0) for p in players[:7]}
    change = apply_elo(sums, game(players, winner=BLACK, kind=EloKind.ELITE))
    assert close(change.red_odds, 0.909090909090909091)
    assert all(close(change.changes[p], -43.636363636363636364) for p in players[:7])
    assert all(close(change.changes[p], 58.181818181818181818) for p in players[7:])
    assert close(sums["P1"].red, 356.363636363636363636)
    assert close(sums["P10"].rating, 1058.181818181818181818)


def test_newcomers_at_zero_beside_players_with_sums() -> None:
    # Three reds at red 70, four new reds: mean red 210 / 7 = 30; three new blacks:
    # mean black 0. red_odds = 1 / (1 + 10 ** (-30 / 400)) = 0.543066492022211850;
    # red won a tournament table of ten: each red +16 * (1 - 0.5430...) = +7.31093...,
    # each black 12 * (0.5430... - 1) = -5.48320...
    players = ten()
    sums = {p: EloSums(70.0, 5.0) for p in players[:3]}
    change = apply_elo(sums, game(players))
    assert close(change.red_odds, 0.543066492022211850)
    assert all(close(change.changes[p], 7.310936127644610396) for p in players[:7])
    assert all(close(change.changes[p], -5.483202095733457797) for p in players[7:])
    assert close(sums["P1"].red, 77.310936127644610396) and sums["P1"].black == 5.0
    assert close(sums["P4"].red, 7.310936127644610396) and sums["P4"].black == 0.0
    assert close(sums["P8"].black, -5.483202095733457797) and sums["P8"].red == 0.0
    assert close(sums["P1"].rating, 1082.310936127644610396)


@pytest.mark.parametrize("winner", [None, Result.DRAW])
def test_a_game_without_a_winner_changes_nothing(winner: Result | None) -> None:
    sums = {"P1": EloSums(10.0, -3.0)}
    change = apply_elo(sums, game(ten(), winner=winner))
    assert change.changes == dict.fromkeys(ten(), 0.0) and not change.counts
    assert sums == {"P1": EloSums(10.0, -3.0)}  # not even the newcomers are added


def test_a_game_not_rated_changes_nothing() -> None:
    sums = {"P1": EloSums(10.0, -3.0)}
    change = apply_elo(sums, game(ten(), rated=False))
    assert change.changes == dict.fromkeys(ten(), 0.0) and not change.counts
    assert sums == {"P1": EloSums(10.0, -3.0)}
    assert change.red_odds == red_odds(10.0 / 7, 0.0)  # the odds are still told


def test_a_side_with_no_player() -> None:
    # red_odds is 0.0 when a side has no player. Three reds, halved tournament (8, 6):
    # red won: +8 * (1 - 0) = +8; red lost: -6 * 0 = 0 (and not -0.0).
    reds = game(["A", "B", "C"], (C, C, S))
    assert replay_elo([reds]).games[0].changes == {"A": 8.0, "B": 8.0, "C": 8.0}
    lost = replay_elo([game(["A", "B", "C"], (C, C, S), winner=BLACK)]).games[0]
    assert lost.red_odds == 0.0 and lost.changes == {"A": 0.0, "B": 0.0, "C": 0.0}
    assert all(math.copysign(1.0, value) == 1.0 for value in lost.changes.values())
    # Two blacks: black won: +8 * 0 = 0; black lost: 6 * (0 - 1) = -6.
    won = replay_elo([game(["X", "Y"], (M, D), winner=BLACK)]).games[0]
    assert won.changes == {"X": 0.0, "Y": 0.0}
    done = replay_elo([game(["X", "Y"], (M, D))])
    assert done.games[0].changes == {"X": -6.0, "Y": -6.0}
    assert done.sums == {"X": EloSums(0.0, -6.0), "Y": EloSums(0.0, -6.0)}


def test_games_apply_in_order_each_from_the_sums_the_last_left() -> None:
    first = game(ten(), id="G1")  # 0.5: reds +8, blacks -6
    # The same ten, the first three now black: their black sums 0, 0, 0 and the
    # red sums of the seven reds: P4-P7 at 8, P8-P10 at 0: mean 32 / 7.
    roles = (M, M, D, C, C, C, C, C, C, S)
    second = game(ten(), roles, winner=BLACK, id="G2")
    done = replay_elo([first, second])
    odds = red_odds(32 / 7, 0.0)
    assert done.games[1].red_odds == odds
    assert done.games[1].changes["P1"] == 16 * odds
    assert done.sums["P1"] == EloSums(8.0, 16 * odds)
    assert done.sums["P10"] == EloSums(0.0 - 12 * odds, -6.0)


def test_each_side_is_summed_seat_by_seat_as_the_rule_does() -> None:
    # (1e16 + 1) - 1e16 is 0 in doubles (a compensated sum would say 1): the rule's mean
    # of red is 0 / 3 here, so red_odds against a black mean of 0 is exactly 0.5.
    sums = {"A": EloSums(1e16, 0.0), "B": EloSums(1.0, 0.0), "C": EloSums(-1e16, 0.0)}
    assert apply_elo(sums, game(["A", "B", "C", "D"], (C, C, C, M))).red_odds == 0.5


def test_odds_beyond_a_doubles_range_are_those_of_ieee_arithmetic() -> None:
    assert red_odds(0.0, 200_000.0) == 0.0  # 10 ** 500 is infinite: 1 / (1 + inf)
    assert red_odds(200_000.0, 0.0) == 1.0  # 10 ** -500 is 0


def test_a_game_must_have_one_to_ten_players_each_once() -> None:
    with pytest.raises(ValueError, match="0 players"):
        EloGame("G", EloKind.CLUB, (), RED)
    with pytest.raises(ValueError, match="11 players"):
        EloGame("G", EloKind.CLUB, tuple(EloSeat(f"P{n}", C) for n in range(11)), RED)
    with pytest.raises(ValueError, match="twice"):
        EloGame("G", EloKind.CLUB, (EloSeat("A", C), EloSeat("A", M)), RED)


def test_the_kinds_factors_of_a_full_table() -> None:
    assert {kind.value: kind.factors for kind in EloKind} == {
        "club": (4.0, 3.0),
        "tournament": (16.0, 12.0),
        "elite": (64.0, 48.0),
    }


# Properties. Sums stay within a few thousand, where the odds are strictly between 0
# and 1 (10 ** 10 at most), as in any real history.
SETTINGS = settings(
    max_examples=80, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
POOL = [f"N{n:02d}" for n in range(14)]
sums_values = st.floats(-1000, 1000, allow_nan=False, allow_infinity=False)
initials = st.dictionaries(
    st.sampled_from(POOL), st.builds(EloSums, sums_values, sums_values), max_size=8
)


@st.composite
def games(draw: st.DrawFn, game_id: str = "G") -> EloGame:
    players = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=10, unique=True))
    roles = draw(
        st.lists(st.sampled_from(list(Role)), min_size=len(players), max_size=len(players))
    )
    return game(
        players,
        roles,
        winner=draw(st.sampled_from([RED, BLACK, None, Result.DRAW])),
        kind=draw(st.sampled_from(list(EloKind))),
        rated=draw(st.booleans()),
        id=game_id,
    )


histories = st.lists(games(), max_size=25)


@SETTINGS
@given(initials, games())
def test_every_player_of_a_side_gets_the_same_change_and_only_his_colour_moves(
    initial: dict[str, EloSums], played: EloGame
) -> None:
    sums = dict(initial)
    change = apply_elo(sums, played)
    assert list(change.changes) == [seat.player for seat in played.seats]
    for is_red in (True, False):
        side = [seat.player for seat in played.seats if seat.role.is_red is is_red]
        assert len({change.changes[p] for p in side}) <= 1
        for player in side if change.counts else []:
            before, after = initial.get(player, EloSums()), sums[player]
            moved, kept = ("red", "black") if is_red else ("black", "red")
            assert getattr(after, moved) == getattr(before, moved) + change.changes[player]
            assert getattr(after, kept) == getattr(before, kept)


@SETTINGS
@given(initials, games())
def test_winners_gain_and_losers_lose(initial: dict[str, EloSums], played: EloGame) -> None:
    sums = dict(initial)
    change = apply_elo(sums, played)
    red = [seat.role.is_red for seat in played.seats]
    if not change.counts:
        return
    won = [is_red is (played.winner == RED) for is_red in red]
    values = [change.changes[seat.player] for seat in played.seats]
    if any(red) and not all(red):  # both sides have players: strictly
        assert 0.0 < change.red_odds < 1.0
        assert all((value > 0) if w else (value < 0) for value, w in zip(values, won, strict=True))
    else:
        assert all(
            (value >= 0) if w else (value <= 0) for value, w in zip(values, won, strict=True)
        )


@SETTINGS
@given(initials, games())
def test_a_game_that_does_not_count_changes_nothing(
    initial: dict[str, EloSums], played: EloGame
) -> None:
    sums = dict(initial)
    change = apply_elo(sums, played)
    assert change.counts == (played.rated and played.winner in (RED, BLACK))
    if not change.counts:
        assert sums == initial and set(change.changes.values()) == {0.0}


@SETTINGS
@given(initials, histories)
def test_a_replay_is_the_games_applied_one_by_one(
    initial: dict[str, EloSums], history: list[EloGame]
) -> None:
    sums = dict(initial)
    one_by_one = [apply_elo(sums, played) for played in history]
    done = replay_elo(history, initial)
    assert done.games == one_by_one and done.sums == sums
    met = set(initial) | {s.player for g in history if g.counts for s in g.seats}
    assert set(done.sums) == met


@SETTINGS
@given(initials, histories, st.data())
def test_recomputing_from_a_game_with_the_sums_before_it_is_the_whole_replay(
    initial: dict[str, EloSums], history: list[EloGame], data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(history)))
    sums = dict(initial)
    for played in history[:start]:
        apply_elo(sums, played)
    before = dict(sums)  # a snapshot: the sums are immutable
    whole = replay_elo(history, initial)
    tail = replay_elo(history[start:], before)
    assert tail.games == whole.games[start:] and tail.sums == whole.sums
    assert sums == before  # replay_elo works on its own copy
