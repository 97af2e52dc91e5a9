"""``ScoredGames``, ``game_tally`` and ``RunningTally``: the same results as the whole
tournament computed at once, whatever games were put, replaced and taken out."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import (
    InvalidGameError,
    RunningTally,
    ScoredGames,
    compute_standings,
    game_ci,
    game_tally,
    tournament_breakdowns,
    validate_tournament,
)
from scoring.judging import first_killed_ci, first_night_deaths
from scoring.model import Game, Result, Tournament
from scoring.record import record_of_game
from scoring.ruleset import Ruleset
from scoring.standings import standings_of_records

from .builders import game, names
from .test_properties import MUTATIONS, POOL, SETTINGS, valid_games

KEYS = range(8)
IDS = [f"R{n}" for n in range(6)]  # fewer ids than keys: some games share an id (rule "id")
# Strategies drawn from in loops, made once (hypothesis validates each new one again).
GAME_IDS = st.sampled_from(IDS)
KEYS_DRAWN = st.sampled_from(KEYS)
MUTATION = st.sampled_from(sorted(MUTATIONS))
PUT_ACTIONS = st.sampled_from(["put", "put", "put", "discard", "distance", "lot"])
SAVE_ACTIONS = st.sampled_from(["save"] * 5 + ["edit"] * 2 + ["annul", "lot", "B"])
LOT_OF_6 = st.lists(st.sampled_from(POOL), unique=True, max_size=6)
LOT_OF_8 = st.lists(st.sampled_from(POOL), unique=True, max_size=8)


def assert_same_as_whole(scored: ScoredGames, t: Tournament, order: list[int]) -> None:
    """What ``scored`` gives for ``order`` is what the engine gives for ``t`` at once."""
    problems = validate_tournament(t)
    assert scored.problems(order) == problems
    if problems:
        with pytest.raises(InvalidGameError) as raised:
            scored.standings(t.ruleset, order, t.lot)
        assert raised.value.problems == tuple(problems)
        with pytest.raises(InvalidGameError):
            scored.breakdowns(t.ruleset, order)
        return
    assert scored.standings(t.ruleset, order, t.lot) == compute_standings(t)
    got = scored.breakdowns(t.ruleset, order)
    expected = tournament_breakdowns(t)
    assert got == expected and list(got) == list(expected)
    # Some games only (a player's, for /rating): the same breakdowns, in the same order.
    only = set(order[::3])
    some = scored.breakdowns(t.ruleset, order, only=only)
    ids = {game.id for key, game in zip(order, t.games, strict=True) if key in only}
    assert some == {game_id: expected[game_id] for game_id in expected if game_id in ids}
    assert list(some) == [game_id for game_id in expected if game_id in ids]


@st.composite
def some_game(draw: st.DrawFn) -> Game:
    played = draw(valid_games(draw(GAME_IDS)))
    if draw(st.integers(0, 9)) == 0:  # now and then a game that breaks a rule
        played = MUTATIONS[draw(MUTATION)](played)
    return played


@SETTINGS
@given(st.data())
def test_scored_games_follow_puts_and_discards_like_the_whole_tournament(data: Any) -> None:
    scored = ScoredGames()
    held: dict[int, Game] = {}
    distance = 10
    lot: tuple[str, ...] = ()
    for _step in range(data.draw(st.integers(1, 25))):
        action = data.draw(PUT_ACTIONS)
        if action == "put":
            key = data.draw(KEYS_DRAWN)
            held[key] = data.draw(some_game())
            scored.put(key, held[key])
        elif action == "discard":
            key = data.draw(KEYS_DRAWN)
            held.pop(key, None)
            scored.discard(key)
        elif action == "distance":
            distance = data.draw(st.integers(1, 12))
        else:
            lot = tuple(data.draw(LOT_OF_6))
        assert len(scored) == len(held) and all(key in scored for key in held)
        order = data.draw(st.permutations(list(held)))
        t = Tournament(distance=distance, games=tuple(held[k] for k in order), lot=lot)
        assert_same_as_whole(scored, t, list(order))


@SETTINGS
@given(st.lists(valid_games(), min_size=1, max_size=8), st.data())
def test_running_tally_after_removals_is_the_tally_of_what_is_left(
    games: list[Game], data: Any
) -> None:
    records = [record_of_game(dataclasses.replace(g, id=f"G{n}")) for n, g in enumerate(games)]
    running = RunningTally()
    tallies = [game_tally(record) for record in records]
    for tally in tallies:
        running.add(tally)
    running.standings(Ruleset(10))  # rows are kept from here on
    removed = data.draw(st.sets(st.integers(0, len(records) - 1)))
    for index in removed:
        running.remove(tallies[index])
    left = [r for n, r in enumerate(records) if n not in removed]
    pending = [t.game_id for n, t in enumerate(tallies) if n not in removed and t.pending]
    distance = data.draw(st.integers(1, 12))
    assert running.standings(Ruleset(distance), (), pending) == standings_of_records(
        Ruleset(distance), (), left
    )


def test_a_breakdown_is_kept_until_its_ci_changes_D1() -> None:
    # P1 (seat 1, a civilian) is shot on night 1 and black wins: R1 compensates him.
    first = game("black", id="R1", first_killed=1)
    other = game("red", id="R2", players=names("Q"))
    scored = ScoredGames()
    scored.put(1, first)
    scored.put(2, other)
    before = scored.breakdowns(Ruleset(10), [1, 2])
    assert before["R1"].seats[0].ci == Fraction(1, 10)  # i = 1, B = 4
    # P1 shot on night 1 again, as a red player: i = 2 changes R1's Ci (D1) only.
    scored.put(3, game("red", id="R3", first_killed=1))
    after = scored.breakdowns(Ruleset(10), [1, 2, 3])
    assert after["R1"].seats[0].ci == Fraction(1, 5)
    assert after["R2"] is before["R2"]  # kept: its Ci did not change
    t = Tournament(10, (first, other, game("red", id="R3", first_killed=1)))
    assert after == tournament_breakdowns(t)


def test_putting_an_equal_game_again_changes_nothing() -> None:
    scored = ScoredGames()
    scored.put("a", game(id="R1"))
    changes = scored.changes
    scored.put("a", game(id="R1"))
    assert scored.changes == changes
    scored.put("a", game("black", id="R1"))
    assert scored.changes > changes
    changes = scored.changes
    scored.discard("b")  # not held: nothing to do
    assert scored.changes == changes


def test_games_sharing_an_id_break_rule_id_until_one_goes() -> None:
    scored = ScoredGames()
    scored.put(1, game(id="R1"))
    scored.put(2, game(id="R1", players=names("Q")))
    assert [p.rule for p in scored.problems([1, 2])] == ["id"]
    with pytest.raises(InvalidGameError):
        scored.standings(Ruleset(10), [1, 2])
    scored.discard(1)
    assert scored.problems([2]) == []
    assert scored.standings(Ruleset(10), [2]).rows[0].wins == 1


def test_pending_games_are_listed_in_the_order_given_D7() -> None:
    waiting = {1: "0.6"}  # above 0.5, not approved: pending (D7)
    scored = ScoredGames()
    scored.put("x", game(id="R2", judge=waiting))
    scored.put("y", game(id="R1", judge=waiting, players=names("Q")))
    assert scored.standings(Ruleset(10), ["y", "x"]).pending_games == ("R1", "R2")
    assert scored.standings(Ruleset(10), ["x", "y"]).pending_games == ("R2", "R1")


def test_order_must_name_every_game() -> None:
    scored = ScoredGames()
    scored.put(1, game(id="R1"))
    with pytest.raises(ValueError):
        scored.standings(Ruleset(10), [])


def test_game_ci_is_ci_value_for_a_compensating_game_only() -> None:
    assert game_ci(True, 2, Ruleset(10)) == Fraction(1, 5)  # 2 × 0.4 / 4 (8.6.1)
    assert game_ci(True, 5, Ruleset(10)) == Fraction(2, 5)  # i above B: 0.4
    assert game_ci(False, 2, Ruleset(10)) == 0  # a red win or a draw compensates nobody (8.6.2)


def test_game_tally_of_a_black_win_with_the_first_killed_civilian() -> None:
    tally = game_tally(record_of_game(game(Result.BLACK.value, id="R1", first_killed=2)))
    assert tally.winners == ("P8", "P9", "P10") and tally.leader == "P10"
    assert (tally.first_killed, tally.first_killed_red, tally.compensated) == ("P2", True, True)
    assert tally.extra == () and not tally.pending


@SETTINGS
@given(st.data())
def test_standings_kept_through_saves_edits_and_annulments_are_the_whole_computation(
    data: Any,
) -> None:
    """A tournament played as the bot sees it: games saved, corrected and annulled one
    at a time, the standings read after each change (so the kept order is moved, not
    rebuilt), now and then a new distance (B, 8.6.1) or a drawn lot (8.7.5); each time
    the standings equal ``compute_standings`` of the games held, places and ties
    included. Few players, so ties are common."""
    scored = ScoredGames()
    held: dict[int, Game] = {}
    distance = data.draw(st.integers(1, 12))
    lot: tuple[str, ...] = ()
    saved = 0
    for _step in range(data.draw(st.integers(1, 40))):
        action = data.draw(SAVE_ACTIONS)
        if action in ("edit", "annul") and not held:
            action = "save"
        if action == "save":
            saved += 1
            key = saved
        elif action in ("edit", "annul"):
            key = data.draw(st.sampled_from(sorted(held)))
        if action in ("save", "edit"):
            held[key] = dataclasses.replace(data.draw(valid_games()), id=f"R{key}")
            scored.put(key, held[key])
        elif action == "annul":
            del held[key]
            scored.discard(key)
        elif action == "lot":
            lot = tuple(data.draw(LOT_OF_8))
        else:
            distance = data.draw(st.integers(1, 12))
        order = sorted(held)
        t = Tournament(distance=distance, games=tuple(held[k] for k in order), lot=lot)
        places = {key: n for n, key in enumerate(order)}
        expected = compute_standings(t)
        assert scored.standings(t.ruleset, order, t.lot) == expected
        assert scored.standings(t.ruleset, order, t.lot, place_of=places.__getitem__) == expected


@SETTINGS
@given(st.data())
def test_ci_of_a_saved_game_from_the_kept_counts_is_the_counted_one_8_6_1(data: Any) -> None:
    """i of 8.6.1 as ``ScoredGames`` keeps it is ``first_night_deaths`` over the games,
    so the Ci a Save shows (``first_killed_ci``) is the same with or without it."""
    scored = ScoredGames()
    held: dict[int, Game] = {}
    for step in range(data.draw(st.integers(1, 20))):
        if held and data.draw(st.integers(0, 4)) == 0:
            key = data.draw(st.sampled_from(sorted(held)))
            del held[key]
            scored.discard(key)
        else:
            key = data.draw(st.integers(0, 12))
            held[key] = dataclasses.replace(data.draw(valid_games()), id=f"R{step}-{key}")
            scored.put(key, held[key])
        games = tuple(held[k] for k in sorted(held))
        for player in POOL:
            assert scored.first_night_red(player) == first_night_deaths(games, player)
        new = data.draw(valid_games("NEW"))
        distance = data.draw(st.integers(1, 12))
        counted = Tournament(distance, games)
        kept = Tournament(distance, games, first_night_red=scored.first_night_red)
        assert first_killed_ci(kept, new) == first_killed_ci(counted, new)
        if games:  # a correction counts the new version instead of the stored one
            old = data.draw(st.sampled_from(games)).id
            assert first_killed_ci(kept, new, replaces=old) == first_killed_ci(
                counted, new, replaces=old
            )


def test_pending_games_in_order_by_their_places_D7() -> None:
    waiting = {1: "0.6"}  # above 0.5, not approved: pending (D7)
    scored = ScoredGames()
    scored.put("x", game(id="R2", judge=waiting))
    scored.put("y", game(id="R1", judge=waiting, players=names("Q")))
    places = {"x": 2, "y": 1}
    assert scored.standings(
        Ruleset(10), ["y", "x"], place_of=places.__getitem__
    ) == scored.standings(Ruleset(10), ["y", "x"])
