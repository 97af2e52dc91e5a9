"""A club evening's next game (seating/evening.py): who plays, tables with few repeated
meetings, seats not taken twice while others are left; deterministic for a seed."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seating import Round, SeatingError
from seating.evening import History, meeting_cost, suggest, tables_for

SETTINGS = settings(
    max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
POOL = [f"P{n:02}" for n in range(45)]


def _games(round_: Round) -> list[tuple[str, ...]]:
    return [t.seats for t in round_.tables]


@st.composite
def evenings(draw: st.DrawFn) -> tuple[list[str], History, int]:
    """Players present now, an evening played so far (by suggestions, with people coming
    and going between games) and a seed."""
    rounds: list[list[tuple[str, ...]]] = []
    present = draw(st.lists(st.sampled_from(POOL), min_size=10, max_size=45, unique=True))
    for _ in range(draw(st.integers(0, 4))):
        came = draw(st.lists(st.sampled_from(POOL), max_size=5, unique=True))
        left = draw(st.lists(st.sampled_from(present), max_size=5, unique=True))
        now = [p for p in present if p not in left] + [p for p in came if p not in present]
        if len(now) < 10:
            break
        present = now
        rounds.append(_games(suggest(present, History.of(rounds), seed=len(rounds))))
    return present, History.of(rounds), draw(st.integers(0, 2**31))


@SETTINGS
@given(evenings())
def test_the_game_seats_whole_tables_of_those_present(case: tuple[list[str], History, int]) -> None:
    present, history, seed = case
    game = suggest(present, history, seed=seed)
    seated = [name for table in game.tables for name in table.seats]
    assert len(game.tables) == len(present) // 10
    assert all(len(t.seats) == 10 for t in game.tables)
    assert len(set(seated)) == len(seated)
    assert set(seated) | set(game.sitting_out) == set(present)
    assert not set(seated) & set(game.sitting_out)
    assert [n for n in present if n in game.sitting_out] == list(game.sitting_out)
    assert game.round == len(history.rounds) + 1
    assert [t.table for t in game.tables] == list(range(1, len(game.tables) + 1))


@SETTINGS
@given(evenings())
def test_fewest_games_play_first(case: tuple[list[str], History, int]) -> None:
    present, history, seed = case
    game = suggest(present, history, seed=seed)
    games = history.games_of()
    seated = {name for table in game.tables for name in table.seats}
    if game.sitting_out:
        assert max(games[n] for n in seated) <= min(games[n] for n in game.sitting_out)


@SETTINGS
@given(evenings())
def test_deterministic_for_a_seed(case: tuple[list[str], History, int]) -> None:
    present, history, seed = case
    assert suggest(present, history, seed=seed) == suggest(present, history, seed=seed)


@SETTINGS
@given(evenings())
def test_no_swap_of_two_players_meets_less(case: tuple[list[str], History, int]) -> None:
    """The tables' repeated meetings are a local optimum: swapping two players of two
    tables never lowers them."""
    present, history, seed = case
    game = suggest(present, history, seed=seed)
    meetings = history.meetings()
    groups = [list(t.seats) for t in game.tables]
    best = meeting_cost(groups, meetings)
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            for i in range(10):
                for j in range(10):
                    trial = [list(g) for g in groups]
                    trial[a][i], trial[b][j] = trial[b][j], trial[a][i]
                    assert meeting_cost(trial, meetings) >= best


def test_one_table_of_the_same_ten_takes_no_seat_twice_in_ten_games() -> None:
    players = POOL[:10]
    rounds: list[list[tuple[str, ...]]] = []
    for n in range(10):
        rounds.append(_games(suggest(players, History.of(rounds), seed=n)))
    seats = Counter((name, s) for games in rounds for g in games for s, name in enumerate(g))
    assert set(seats.values()) == {1}


def test_those_who_sat_out_play_next_and_meetings_spread() -> None:
    """23 present, two tables: the three who sat out play the next game; over three
    games nobody sits out twice before all have sat out once."""
    players = POOL[:23]
    rounds: list[list[tuple[str, ...]]] = []
    rested: list[set[str]] = []
    for n in range(3):
        game = suggest(players, History.of(rounds), seed=n)
        rested.append(set(game.sitting_out))
        rounds.append(_games(game))
    assert len(rested[0] | rested[1] | rested[2]) == 9
    meetings = History.of(rounds).meetings()
    assert max(meetings.values()) <= 3


def test_a_latecomer_plays_before_those_with_games() -> None:
    players = POOL[:20]
    first = suggest(players, History(), seed=1)
    history = History.of([_games(first)])
    game = suggest([*players, "Late"], history, seed=1)
    assert "Late" in {name for t in game.tables for name in t.seats}


def test_a_leaver_is_just_not_present() -> None:
    players = POOL[:11]
    first = suggest(players, History(), seed=1)
    game = suggest(players[1:], History.of([_games(first)]), seed=1)
    assert players[0] not in {name for t in game.tables for name in t.seats}
    assert game.sitting_out == ()


def test_too_few_or_twice_is_refused() -> None:
    with pytest.raises(SeatingError, match="9 players are present"):
        suggest(POOL[:9], History())
    with pytest.raises(SeatingError, match="twice: P00"):
        suggest([*POOL[:10], "P00"], History())


def test_tables_for() -> None:
    assert tables_for(9) == 0
    assert tables_for(29) == 2
    assert tables_for(29, 1) == 1
