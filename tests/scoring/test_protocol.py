"""The game's protocol (``scoring.protocol``): every command, every refusal with the rule
it names, the knock-ons (8.4.7, 8.3.6, 8.3.3), the win checks, the 4th foul, undo, a
replay of stored commands, the JSON round trip; and properties over random commands."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scoring import Result, Role, validate_game
from scoring.protocol import (
    Note,
    Protocol,
    Refusal,
    apply,
    apply_noting,
    complete,
    facts,
    from_json,
    of_game,
    replay,
    to_game,
    to_json,
    view,
)

Command = Mapping[str, object]
PLAYERS = [f"P{n}" for n in range(1, 11)]
# Seat 1 the sheriff, 2 the don, 3 and 4 mafia; 5-10 civilians.
ROLES: Command = {"type": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}


def run(*commands: Command, start: Protocol | None = None) -> Protocol:
    p = Protocol.new() if start is None else start
    for command in commands:
        outcome = apply(p, command)
        assert not isinstance(outcome, Refusal), (command, outcome)
        p = outcome
    return p


def refused(p: Protocol, command: Command) -> Refusal:
    outcome = apply(p, command)
    assert isinstance(outcome, Refusal), (command, outcome)
    assert outcome.message  # its template fills with its params
    return outcome


def card(day1: int = 0, night1: int | None = 5, result: str = "red") -> Protocol:
    """A game entered on the card: roles, the day-1 and night-1 summary, the result."""
    return run(
        ROLES,
        {"type": "day1", "count": day1},
        {"type": "night1", "seat": night1},
        {"type": "result", "result": result},
    )


# -- the values ------------------------------------------------------------------------------


def test_new_protocol_is_day_1_speeches_without_roles() -> None:
    p = Protocol.new()
    assert p.roles == (None,) * 10 and p.events == ()
    shown = view(p)
    assert shown["phase"] == {"kind": "day", "number": 1, "step": "speeches"}
    assert shown["over"] is None and shown["result"] is None
    assert not complete(p)
    with pytest.raises(ValueError):
        to_game(p, "g", PLAYERS)


@pytest.mark.parametrize(
    "command",
    [
        {"type": "nonsense"},
        {},
        {"type": 3},
        {"type": "foul", "seat": 11},
        {"type": "foul", "seat": True},
        {"type": "foul", "seat": "3"},
        {"type": "roles", "sheriff": 1, "don": 2, "mafia": [3]},
        {"type": "vote", "votes": {"x": 1}},
        {"type": "vote", "votes": {"3": -1}},
        {"type": "vote_out", "seats": [3, 3]},
        {"type": "day1", "count": 4},
        {"type": "result", "result": "green"},
        {"type": "extra", "seat": 5, "hundredths": -5},
        {"type": "extra", "seat": 5, "hundredths": 0.5},
        {"type": "penalty", "seat": 5, "rule": 851},
        {"type": "best_move_hint", "on": "yes"},
    ],
)
def test_a_malformed_command_is_a_game_refusal_not_an_exception(command: Command) -> None:
    assert refused(Protocol.new(), command).rule == "game"


def test_a_command_that_is_not_a_mapping_is_refused() -> None:
    assert refused(Protocol.new(), [1, 2]).rule == "game"  # type: ignore[arg-type]


# -- roles -----------------------------------------------------------------------------------


def test_roles_four_distinct_seats_and_reset_until_the_first_night() -> None:
    p = run(ROLES)
    assert p.roles[0] is Role.SHERIFF and p.roles[1] is Role.DON
    assert p.roles[2] is p.roles[3] is Role.MAFIA and p.roles[9] is Role.CIVILIAN
    assert refused(p, {"type": "roles", "sheriff": 1, "don": 1, "mafia": [3, 4]}).rule == "roles"
    p = run({"type": "roles", "sheriff": 5, "don": 2, "mafia": [3, 4]}, start=p)
    assert p.roles[4] is Role.SHERIFF
    p = run({"type": "vote_out", "seats": []}, start=p)  # night 1 begins
    again = refused(p, ROLES)
    assert again.rule == "game" and "first night" in again.message


def test_the_night_needs_the_roles() -> None:
    assert refused(Protocol.new(), {"type": "vote_out", "seats": []}).rule == "game"


# -- the live game ---------------------------------------------------------------------------


def test_a_day_nominations_votes_and_vote_out() -> None:
    p = run(ROLES, {"type": "nominate", "seat": 3, "by": 5}, {"type": "nominate", "seat": 7,
                                                             "by": 6})
    assert refused(p, {"type": "nominate", "seat": 3, "by": 8}).message == (
        "Seat 3 is nominated already today.")
    assert "has nominated already" in refused(p, {"type": "nominate", "seat": 8, "by": 5}).message
    assert view(p)["seats"][2]["nominated"] is True  # type: ignore[index]
    assert "not nominated" in refused(p, {"type": "vote", "votes": {"4": 1}}).message
    assert "only 10 players" in refused(p, {"type": "vote", "votes": {"3": 6, "7": 5}}).message
    p = run({"type": "vote", "votes": {"3": 5, "7": 5}}, start=p)
    assert view(p)["phase"]["step"] == "voting"  # type: ignore[index]
    assert "voting has begun" in refused(p, {"type": "nominate", "seat": 8, "by": 9}).message
    p = run({"type": "vote", "votes": {"3": 6, "7": 4}}, {"type": "vote_out", "seats": [3]},
            start=p)
    shown = view(p)
    assert shown["phase"] == {"kind": "night", "number": 1, "step": "shot"}
    assert shown["seats"][2]["out"] == "voted" and not shown["seats"][2]["alive"]  # type: ignore[index]
    assert facts(p).day1_voted_out == 1
    assert refused(p, {"type": "nominate", "seat": 5, "by": 6}).rule == "game"


def test_a_night_shot_checks_and_its_end() -> None:
    p = run(ROLES, {"type": "vote_out", "seats": []})
    assert "shot" in refused(p, {"type": "end_night"}).message
    p = run({"type": "shoot", "seat": 5}, {"type": "don_check", "seat": 1},
            {"type": "sheriff_check", "seat": 2}, start=p)
    assert refused(p, {"type": "shoot", "seat": 6}).rule == "game"
    assert refused(p, {"type": "don_check", "seat": 6}).rule == "game"
    assert refused(p, {"type": "sheriff_check", "seat": 6}).rule == "game"
    shown = view(p)
    assert shown["checks"] == {"don": {"seat": 1, "sheriff": True},
                               "sheriff": {"seat": 2, "black": True}}
    p = run({"type": "end_night"}, start=p)
    shown = view(p)
    assert shown["phase"] == {"kind": "day", "number": 2, "step": "speeches"}
    assert shown["seats"][4]["out"] == "shot"  # type: ignore[index]
    assert facts(p).first_killed == 5 and facts(p).day1_voted_out == 0
    assert refused(p, {"type": "shoot", "seat": 6}).rule == "game"  # day now
    assert refused(p, {"type": "foul", "seat": 5}).message == "Seat 5 is out of the game."


def test_a_miss_leaves_nobody_first_killed() -> None:
    p = run(ROLES, {"type": "vote_out", "seats": []}, {"type": "shoot", "seat": None},
            {"type": "end_night"})
    assert facts(p).first_killed is None and facts(p).night1_known
    assert refused(p, {"type": "best_move", "seat": 3}).rule == "8.3"


def test_the_4th_foul_removes_the_player() -> None:
    p = run(ROLES, *({"type": "foul", "seat": 6},) * 3)
    assert view(p)["seats"][5]["fouls"] == 3 and view(p)["seats"][5]["alive"]  # type: ignore[index]
    p = run({"type": "foul", "seat": 6}, start=p)
    assert view(p)["seats"][5]["out"] == "fouls"  # type: ignore[index]
    fifth = refused(p, {"type": "foul", "seat": 6})
    assert fifth.rule == "game" and fifth.params == {"seat": 6}


def _night(shot: int | None) -> list[Command]:
    return [{"type": "shoot", "seat": shot}, {"type": "end_night"}]


def _day(out: Sequence[int], by: int) -> list[Command]:
    commands: list[Command] = []
    for k, seat in enumerate(out):
        commands.append({"type": "nominate", "seat": seat, "by": by + k})
    commands.append({"type": "vote_out", "seats": list(out)})
    return commands


def test_red_wins_when_no_black_is_alive() -> None:
    p = run(ROLES, *_day([3], 5), *_night(None), *_day([4], 5), *_night(None))
    p = run(*_day([2], 5), start=p)
    assert view(p)["over"] == "red"
    assert refused(p, {"type": "shoot", "seat": 5}).message == "The game is over: the red team won."
    assert refused(p, {"type": "result", "result": "black"}).rule == "game"
    draw = refused(p, {"type": "result", "result": "draw"})
    assert draw.rule == "game" and "draw" in draw.message
    assert facts(run({"type": "result", "result": "red"}, start=p)).result is Result.RED


def test_black_wins_when_black_alive_reach_red_alive() -> None:
    # 7 red, 3 black: the shots and votes take four red players: 3 red, 3 black.
    p = run(ROLES, *_day([5], 6), *_night(6), *_day([7], 8), *_night(8))
    assert view(p)["over"] == "black"
    assert refused(p, {"type": "result", "result": "red"}).rule == "game"
    run({"type": "result", "result": "black"}, start=p)


def test_the_view_says_what_ended_the_game() -> None:
    """The seat whose leaving decided it: the day-N vote, the night-N shot, a 4th foul or
    a disqualification; none while the game goes on, nor after an undo."""
    p = run(ROLES, *_day([5], 6), *_night(6), *_day([7], 8))
    assert view(p)["ended"] is None
    shot = run(*_night(8), start=p)
    assert view(shot)["ended"] == {"by": "shot", "kind": "night", "number": 2, "seat": 8}
    voted = run(*_night(None), *_day([9], 10), start=p)
    assert view(voted)["over"] == "black"
    assert view(voted)["ended"] == {"by": "voted", "kind": "day", "number": 3, "seat": 9}
    fouls = run(*_night(None), *({"type": "foul", "seat": 9},) * 4, start=p)
    assert view(fouls)["ended"] == {"by": "fouls", "kind": "day", "number": 3, "seat": 9}
    dq = run(*_night(None), {"type": "disqualify", "seat": 9}, start=p)
    assert view(dq)["ended"] == {"by": "disqualified", "kind": "day", "number": 3, "seat": 9}
    assert view(run({"type": "undo"}, start=dq))["ended"] is None
    red = run(ROLES, *_day([3], 5), *_night(None), *_day([4], 5), *_night(None), *_day([2], 5))
    assert view(red)["ended"] == {"by": "voted", "kind": "day", "number": 3, "seat": 2}


def test_a_result_is_refused_by_the_events_only_once_a_team_won() -> None:
    p = run(ROLES, *_day([5], 6))
    for result in ("red", "black", "draw"):
        run({"type": "result", "result": result}, start=p)
    after = run({"type": "result", "result": "draw"}, start=p)
    assert refused(after, {"type": "shoot", "seat": 6}).rule == "game"  # the game is over


def test_undo_drops_the_last_live_event() -> None:
    p = run(ROLES, {"type": "foul", "seat": 6}, {"type": "nominate", "seat": 3, "by": 5})
    p = run({"type": "undo"}, start=p)
    assert view(p)["seats"][2]["nominated"] is False  # type: ignore[index]
    assert view(p)["seats"][5]["fouls"] == 1  # type: ignore[index]
    p = run({"type": "undo"}, start=p)
    assert refused(p, {"type": "undo"}).message == "Nothing to undo."


def test_8_3_3_undo_stops_at_a_named_best_move_number() -> None:
    p = run(ROLES, *_day([], 5), *_night(5), {"type": "best_move", "seat": 3})
    assert refused(p, {"type": "undo"}).rule == "8.3.3"
    p = run({"type": "foul", "seat": 7}, {"type": "undo"}, start=p)  # a later event: fine
    assert refused(p, {"type": "undo"}).rule == "8.3.3"


def test_8_2_4_a_disqualified_player_leaves_the_live_game() -> None:
    p = run(ROLES, {"type": "foul", "seat": 6}, {"type": "disqualify", "seat": 7})
    assert view(p)["seats"][6]["out"] == "disqualified"  # type: ignore[index]
    assert refused(p, {"type": "disqualify", "seat": 7}).rule == "8.2.4"
    assert refused(p, {"type": "nominate", "seat": 7, "by": 5}).rule == "game"
    back = run({"type": "undisqualify", "seat": 7}, start=p)
    assert view(back)["seats"][6]["alive"] and back.disqualified == ()  # type: ignore[index]
    assert refused(back, {"type": "undisqualify", "seat": 7}).rule == "8.2.4"
    gone = run({"type": "nominate", "seat": 8, "by": 9}, start=p)
    assert run({"type": "undo"}, {"type": "undo"}, start=gone).disqualified == ()


def test_summary_and_live_do_not_mix() -> None:
    live = run(ROLES, {"type": "foul", "seat": 6})
    assert refused(live, {"type": "day1", "count": 1}).rule == "game"
    assert refused(live, {"type": "night1", "seat": 5}).rule == "game"
    summary = run(ROLES, {"type": "day1", "count": 1})
    assert refused(summary, {"type": "foul", "seat": 6}).rule == "game"


# -- the best move (8.3) ---------------------------------------------------------------------


def test_8_3_best_move_only_for_the_first_killed_player() -> None:
    assert refused(card(night1=None), {"type": "best_move", "seat": 2}).rule == "8.3"
    p = run(ROLES, {"type": "night1", "seat": 5})
    assert refused(p, {"type": "best_move", "seat": 2}).rule == "8.3.6"  # day 1 not entered
    p = card()
    assert refused(p, {"type": "best_move", "seat": 5}).rule == "D10"
    p = run({"type": "best_move", "seat": 2}, start=p)
    again = refused(p, {"type": "best_move", "seat": 2})
    assert again.rule == "8.3.3" and again.message == "Seat 2 is named already (8.3.3)."
    p = run({"type": "best_move", "seat": 3}, {"type": "best_move", "seat": 4}, start=p)
    assert facts(p).best_move == (2, 3, 4) and facts(p).best_move_final
    assert refused(p, {"type": "best_move", "seat": 6}).rule == "8.3.3"  # at most 3, final
    assert refused(p, {"type": "best_move_end"}).rule == "8.3.3"


def test_8_3_2_the_best_move_ends_early_and_8_3_5_hint() -> None:
    p = run({"type": "best_move", "seat": 2}, {"type": "best_move_end"}, start=card())
    assert facts(p).best_move == (2,) and facts(p).best_move_final
    assert refused(p, {"type": "best_move", "seat": 3}).rule == "8.3.3"
    p = run({"type": "best_move_hint"}, start=p)
    assert facts(p).best_move_hint
    assert not facts(run({"type": "best_move_hint", "on": False}, start=p)).best_move_hint


def test_8_3_6_no_best_move_after_two_left_by_the_day_1_vote() -> None:
    p = card(day1=2)
    refusal = refused(p, {"type": "best_move", "seat": 2})
    assert refusal.rule == "8.3.6" and refusal.params == {"count": 2}
    live = run(ROLES, *_day([6, 7], 8), *_night(5))
    assert facts(live).day1_voted_out == 2
    assert refused(live, {"type": "best_move", "seat": 2}).rule == "8.3.6"


def test_8_3_6_knock_on_a_second_day_1_vote_out_voids_the_best_move() -> None:
    p = run({"type": "best_move", "seat": 2}, {"type": "best_move_hint"}, start=card(day1=1))
    outcome = apply_noting(p, {"type": "day1", "count": 2})
    assert not isinstance(outcome, Refusal)
    after, notes = outcome
    assert after.best_move == () and not after.best_move_hint
    assert [note.rule for note in notes] == ["8.3.6"]
    # Back to 1: nothing to clear, no note.
    assert apply_noting(after, {"type": "day1", "count": 1}) == (
        run({"type": "day1", "count": 1}, start=after), ())


def test_8_3_3_knock_on_another_first_killed_clears_the_best_move() -> None:
    p = run({"type": "best_move", "seat": 2}, start=card())
    outcome = apply_noting(p, {"type": "night1", "seat": 6})
    assert not isinstance(outcome, Refusal)
    after, notes = outcome
    assert after.best_move == () and facts(after).first_killed == 6
    assert notes == (Note("8.3", "The best move was removed: it belonged to another "
                                 "first-killed player."),)
    same = apply_noting(after, {"type": "night1", "seat": 6})
    assert not isinstance(same, Refusal) and same[1] == ()


# -- the result, penalties and judge's points ------------------------------------------------


def test_8_4_7_knock_on_a_draw_clears_judges_points() -> None:
    p = run({"type": "extra", "seat": 6, "hundredths": 30}, start=card())
    outcome = apply_noting(p, {"type": "result", "result": "draw"})
    assert not isinstance(outcome, Refusal)
    after, notes = outcome
    assert after.extras == () and [note.rule for note in notes] == ["8.4.7"]
    assert refused(after, {"type": "extra", "seat": 6, "hundredths": 30}).rule == "8.4.7"


def test_8_4_3_8_4_4_a_changed_result_drops_points_above_the_new_cap() -> None:
    p = run({"type": "extra", "seat": 6, "hundredths": 60}, {"type": "extra", "seat": 3,
                                                              "hundredths": 40}, start=card())
    outcome = apply_noting(p, {"type": "result", "result": "black"})
    assert not isinstance(outcome, Refusal)
    after, notes = outcome
    assert after.extras == ((3, 40),) and [note.rule for note in notes] == ["8.4.4"]


def test_8_4_caps_sum_and_players() -> None:
    p = card()
    assert refused(Protocol.new(), {"type": "extra", "seat": 6, "hundredths": 30}).rule == "8.4"
    over = refused(p, {"type": "extra", "seat": 6, "hundredths": 75})
    assert over.rule == "8.4.3" and over.params["cap"] == "0.7"
    assert refused(p, {"type": "extra", "seat": 3, "hundredths": 45}).rule == "8.4.4"
    p = run({"type": "extra", "seat": 3, "hundredths": 40},
            {"type": "extra", "seat": 4, "hundredths": 40}, start=p)
    summed = refused(p, {"type": "extra", "seat": 6, "hundredths": 25})
    assert summed.rule == "8.4.2" and summed.params == {"total": "1.05"}
    p = run({"type": "extra", "seat": 6, "hundredths": 10},
            {"type": "extra", "seat": 7, "hundredths": 10}, start=p)
    assert refused(p, {"type": "extra", "seat": 8, "hundredths": 5}).rule == "8.4.1"
    p = run({"type": "extra", "seat": 7, "hundredths": 0}, start=p)
    assert facts(p).extras == {3: 40, 4: 40, 6: 10}


def test_8_4_6_best_move_points_free_the_budget() -> None:
    p = run(*({"type": "best_move", "seat": s} for s in (2, 3, 4)), start=card())
    p = run({"type": "extra", "seat": 5, "hundredths": 40},  # = his best move: not counted
            {"type": "extra", "seat": 6, "hundredths": 50},
            {"type": "extra", "seat": 7, "hundredths": 50}, start=p)
    # 8.3.5 would make seat 5's points count: 1.4 in all, so the hint is refused.
    assert refused(p, {"type": "best_move_hint"}).rule == "8.4.2"


@pytest.mark.parametrize(("rule", "seat", "result", "ok"), [
    ("8.5.1", 5, "black", True), ("8.5.1", 5, "red", False), ("8.5.1", 3, "black", False),
    ("8.5.2", 5, "red", True), ("8.5.2", 1, "red", False),
    ("8.5.3", 1, "black", True), ("8.5.4", 2, "red", True), ("8.5.4", 2, "black", False),
])
def test_8_5_penalties_only_where_judging_allows_them(
    rule: str, seat: int, result: str, ok: bool
) -> None:
    p = card(result=result)
    command = {"type": "penalty", "seat": seat, "rule": rule}
    if ok:
        p = run(command, start=p)
        assert facts(p).penalties == {seat: (rule,)}
        assert refused(p, command).rule == rule
        assert facts(run({**command, "type": "unpenalty"}, start=p)).penalties == {}
    else:
        assert refused(p, command).rule == rule


def test_8_5_penalty_refusals() -> None:
    assert refused(card(), {"type": "penalty", "seat": 5, "rule": "8.5.9"}).rule == "8.5"
    assert refused(run(ROLES), {"type": "penalty", "seat": 5, "rule": "8.5.1"}).rule == "8.5"
    assert refused(card(), {"type": "unpenalty", "seat": 5, "rule": "8.5.1"}).rule == "8.5"


def test_8_5_knock_on_a_changed_result_drops_penalties_it_no_longer_allows() -> None:
    p = run({"type": "penalty", "seat": 2, "rule": "8.5.4"},
            {"type": "penalty", "seat": 6, "rule": "8.5.2"}, start=card())
    outcome = apply_noting(p, {"type": "result", "result": "black"})
    assert not isinstance(outcome, Refusal)
    after, notes = outcome
    assert facts(after).penalties == {6: ("8.5.2",)}
    assert [note.rule for note in notes] == ["8.5.4"]
    # New roles likewise: seat 6 becomes mafia.
    moved = run({"type": "roles", "sheriff": 1, "don": 2, "mafia": [3, 6]}, start=after)
    assert facts(moved).penalties == {}


def test_8_2_4_disqualify_on_the_card() -> None:
    p = run({"type": "disqualify", "seat": 7}, {"type": "disqualify", "seat": 3}, start=card())
    assert facts(p).disqualified == (3, 7) and p.events == ()
    assert validate_game(to_game(p, "g", PLAYERS)) == []


# -- replay and JSON -------------------------------------------------------------------------


GAME: list[Command] = [
    ROLES,
    {"type": "foul", "seat": 9},
    *_day([7], 5),
    {"type": "shoot", "seat": 5},
    {"type": "don_check", "seat": 6},
    {"type": "sheriff_check", "seat": 3},
    {"type": "end_night"},
    {"type": "best_move", "seat": 3},
    {"type": "best_move", "seat": 4},
    {"type": "best_move_end"},
    {"type": "nominate", "seat": 3, "by": 6},
    {"type": "vote", "votes": {"3": 8}},
    {"type": "vote_out", "seats": [3]},
    {"type": "shoot", "seat": 6},
    {"type": "end_night"},
    {"type": "disqualify", "seat": 4},
    {"type": "result", "result": "red"},
    {"type": "extra", "seat": 9, "hundredths": 30},
    {"type": "penalty", "seat": 9, "rule": "8.5.2"},
]


def test_a_stored_live_game_replays_offline() -> None:
    p = replay(GAME)
    assert isinstance(p, Protocol)
    f = facts(p)
    assert (f.day1_voted_out, f.first_killed, f.best_move) == (1, 5, (3, 4))
    assert view(p)["over"] is None  # alive: the don (4 disqualified) and four red
    game = to_game(p, "g", PLAYERS)
    assert validate_game(game) == []
    assert game.day1_voted_out == 1 and game.disqualified == (4,)
    assert replay([*GAME, {"type": "foul", "seat": 5}]) == Refusal(
        "game", "The result is entered: the game is over.")


def test_a_whole_game_is_entered_by_its_outcome_commands() -> None:
    """``of_game``: a game recorded live is accepted entered as the card enters it, and
    makes the same game; one breaking a rule is refused with it (8.3.6)."""
    p = replay(GAME)
    assert isinstance(p, Protocol)
    game = to_game(p, "g", PLAYERS)
    entered = of_game(game)
    assert isinstance(entered, Protocol)
    assert to_game(entered, "g", PLAYERS) == game
    voided = dataclasses.replace(game, day1_voted_out=2)
    refusal = of_game(voided)
    assert isinstance(refusal, Refusal) and refusal.rule == "8.3.6"


def test_json_round_trip() -> None:
    p = replay(GAME)
    assert isinstance(p, Protocol)
    data = json.loads(json.dumps(to_json(p)))
    assert from_json(data) == p
    json.dumps(view(p))
    assert from_json(to_json(card())) == card()
    with pytest.raises(ValueError):
        from_json({"roles": []})
    broken = to_json(p)
    broken["events"] = [{"kind": "end_night"}]
    with pytest.raises(ValueError):
        from_json(broken)


# -- properties ------------------------------------------------------------------------------

SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
SEAT = st.integers(1, 10)
COMMANDS = st.one_of(
    st.builds(lambda s, d, m: {"type": "roles", "sheriff": s, "don": d, "mafia": m},
              SEAT, SEAT, st.lists(SEAT, min_size=2, max_size=2)),
    st.builds(lambda s: {"type": "foul", "seat": s}, SEAT),
    st.builds(lambda s, b: {"type": "nominate", "seat": s, "by": b}, SEAT, SEAT),
    st.builds(lambda v: {"type": "vote", "votes": {str(k): n for k, n in v.items()}},
              st.dictionaries(SEAT, st.integers(0, 6), min_size=1, max_size=3)),
    st.builds(lambda s: {"type": "vote_out", "seats": s},
              st.lists(SEAT, max_size=2, unique=True)),
    st.builds(lambda s: {"type": "shoot", "seat": s}, st.none() | SEAT),
    st.builds(lambda s: {"type": "don_check", "seat": s}, SEAT),
    st.builds(lambda s: {"type": "sheriff_check", "seat": s}, SEAT),
    st.just({"type": "end_night"}),
    st.just({"type": "undo"}),
    st.builds(lambda n: {"type": "day1", "count": n}, st.integers(0, 3)),
    st.builds(lambda s: {"type": "night1", "seat": s}, st.none() | SEAT),
    st.builds(lambda s: {"type": "best_move", "seat": s}, SEAT),
    st.just({"type": "best_move_end"}),
    st.builds(lambda on: {"type": "best_move_hint", "on": on}, st.booleans()),
    st.builds(lambda r: {"type": "result", "result": r}, st.sampled_from(["red", "black",
                                                                           "draw"])),
    st.builds(lambda k, s: {"type": k, "seat": s}, st.sampled_from(["disqualify",
                                                                     "undisqualify"]), SEAT),
    st.builds(lambda k, s, r: {"type": k, "seat": s, "rule": r},
              st.sampled_from(["penalty", "unpenalty"]), SEAT,
              st.sampled_from(["8.5.1", "8.5.2", "8.5.3", "8.5.4"])),
    st.builds(lambda s, h: {"type": "extra", "seat": s, "hundredths": h}, SEAT,
              st.sampled_from([0, 5, 10, 25, 40, 45, 55, 70, 80])),
    st.dictionaries(st.sampled_from(["type", "seat", "x"]),
                    st.none() | st.integers(-2, 12) | st.text(max_size=3)),
)


@SETTINGS
@given(st.lists(COMMANDS, max_size=40))
def test_random_commands_never_raise_and_keep_the_game_valid(
    commands: list[Command],
) -> None:
    p = Protocol.new()
    accepted: list[Command] = []
    for command in commands:
        outcome = apply(p, command)
        if isinstance(outcome, Refusal):
            assert outcome.rule and outcome.message
            continue
        accepted.append(command)
        p = outcome
        json.dumps(view(p))
        if complete(p):
            assert validate_game(to_game(p, "g", PLAYERS)) == [], (accepted, p)
    assert replay(accepted) == p
    assert from_json(json.loads(json.dumps(to_json(p)))) == p


def _plausible(p: Protocol, data: st.DataObject) -> Command:
    """A command that fits the game as it stands (most are accepted)."""
    shown = view(p)
    alive = [seat["seat"] for seat in shown["seats"] if seat["alive"]]  # type: ignore[attr-defined]
    nominated = [seat["seat"] for seat in shown["seats"] if seat["nominated"]]  # type: ignore[attr-defined]
    pick = st.sampled_from(alive) if alive else SEAT
    phase = shown["phase"]
    if phase["kind"] == "night":  # type: ignore[index]
        options = [
            st.builds(lambda s: {"type": "shoot", "seat": s}, st.none() | pick),
            st.builds(lambda s: {"type": "don_check", "seat": s}, pick),
            st.builds(lambda s: {"type": "sheriff_check", "seat": s}, pick),
            st.just({"type": "end_night"}),
        ]
    else:
        options = [
            st.builds(lambda s: {"type": "foul", "seat": s}, pick),
            st.builds(lambda s, b: {"type": "nominate", "seat": s, "by": b}, pick, pick),
            st.builds(lambda s: {"type": "vote_out", "seats": s},
                      st.lists(st.sampled_from(nominated), max_size=2, unique=True)
                      if nominated else st.just([])),
        ]
    options += [
        st.builds(lambda s: {"type": "best_move", "seat": s}, SEAT),
        st.builds(lambda s: {"type": "disqualify", "seat": s}, pick),
        st.just({"type": "undo"}),
    ]
    return data.draw(st.one_of(options))  # type: ignore[no-any-return]


@settings(SETTINGS, max_examples=20)
@given(st.data())
def test_random_live_games_end_with_a_result_the_events_allow(data: st.DataObject) -> None:
    """Live play to its end: the win checks decide, the result must agree, and the
    facts pass ``validate_game``."""
    p = run(ROLES)
    commands: list[Command] = [ROLES]
    for _ in range(80):
        if view(p, actions=False)["over"] is not None:
            break
        command = _plausible(p, data)
        outcome = apply(p, command)
        if not isinstance(outcome, Refusal):
            p = outcome
            commands.append(command)
    over = view(p, actions=False)["over"]
    event(f"over: {over}")
    for result in ("red", "black", "draw"):
        outcome = apply(p, {"type": "result", "result": result})
        assert isinstance(outcome, Refusal) == (over is not None and over != result)
        if not isinstance(outcome, Refusal):
            assert validate_game(to_game(outcome, "g", PLAYERS)) == []
            assert replay([*commands, {"type": "result", "result": result}]) == outcome
