"""What the protocol's view offers (``view(p)["allowed"]``, ``scoring.protocol.allowed``)
is what the protocol accepts: random games walk through the protocol, and at every
state each candidate command is accepted exactly when the view offers it. ``offered``
reads the view as the page does (``webapp/static/app.js``, ``offered``); the candidates
are listed here, apart from the view, and go beyond what it lists (votes spread over
several seats, several seats voted out together, penalty ids that are no penalty,
judge's points off the card's steps refused or not as the view's steps say)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from scoring.protocol import Protocol, Refusal, apply, view

from .test_protocol import COMMANDS, ROLES

Command = Mapping[str, object]
SEATS = range(1, 11)
RULES = ("8.5.1", "8.5.2", "8.5.3", "8.5.4", "8.5.9")
ROLES_CLOSED = "The roles can't change once the first night has begun."


def _has(found: object, item: object) -> bool:
    return isinstance(found, list) and item in found


def offered(allowed: Mapping[str, Any], command: Command) -> bool:
    """Whether the view's ``allowed`` offers ``command`` (the page's reading of it)."""
    kind = command["type"]
    seat = command.get("seat")
    if kind == "roles":
        return bool(allowed["roles"])
    if kind in ("foul", "disqualify", "undisqualify"):
        return _has(allowed[kind], seat)
    if kind == "nominate":
        return _has(allowed["nominate"].get(str(command["by"])), seat)
    if kind == "vote":
        vote = allowed["vote"]
        votes: Mapping[str, int] = command["votes"]  # type: ignore[assignment]
        return vote is not None and sum(votes.values()) <= vote["most"] and all(
            int(n) in vote["seats"] for n in votes)
    if kind == "vote_out":
        out = allowed["vote_out"]
        leaving: list[int] = command["seats"]  # type: ignore[assignment]
        if out is None:
            return False
        return all(n in out["seats"] for n in leaving) if leaving else bool(out["nobody"])
    if kind == "shoot":
        shoot = allowed["shoot"]
        return bool(shoot["miss"]) if seat is None else _has(shoot["seats"], seat)
    if kind in ("don_check", "sheriff_check"):
        return str(seat) in allowed[kind]
    if kind in ("end_night", "undo"):
        return bool(allowed[kind])
    if kind == "best_move":
        return _has(allowed["best_move"]["seats"], seat)
    if kind == "best_move_end":
        return bool(allowed["best_move"]["end"])
    if kind == "best_move_hint":
        return bool(allowed["best_move"]["hint"])
    if kind == "result":
        return _has(allowed["result"], command["result"])
    if kind in ("penalty", "unpenalty"):
        return _has(allowed[kind].get(str(seat)), command["rule"])
    if kind == "extra":
        return _has(allowed["extra"][str(seat)]["values"], command["hundredths"])
    raise AssertionError(command)


def candidates(p: Protocol, data: st.DataObject) -> list[Command]:
    """The commands tried at a state: every one of the page's kinds, over every seat
    (and pair of seats), with a few drawn at random where there are too many."""
    found: list[Command] = []
    for kind in ("foul", "disqualify", "undisqualify", "don_check", "sheriff_check",
                 "best_move", "shoot"):
        found += [{"type": kind, "seat": n} for n in SEATS]
    found += [{"type": "nominate", "seat": n, "by": by} for n in SEATS for by in SEATS]
    found += [{"type": "vote_out", "seats": list(c)}
              for size in (0, 1, 2) for c in itertools.combinations(SEATS, size)]
    found += [{"type": kind} for kind in ("end_night", "undo", "best_move_end")]
    found += [{"type": "shoot", "seat": None}, {"type": "best_move_hint", "on": True}]
    found += [{"type": "result", "result": r} for r in ("red", "black", "draw")]
    found += [{"type": kind, "seat": n, "rule": r} for kind in ("penalty", "unpenalty")
              for n in SEATS for r in RULES]
    nominated = [s["seat"] for s in view(p, actions=False)["seats"]  # type: ignore[attr-defined]
                 if s["nominated"]]
    for _ in range(3):
        votes = data.draw(st.dictionaries(st.sampled_from(nominated) if nominated else
                                          st.sampled_from(SEATS), st.integers(0, 7),
                                          min_size=1, max_size=3), label="votes")
        found.append({"type": "vote", "votes": {str(n): k for n, k in votes.items()}})
    found += [{"type": "vote", "votes": {str(n): k}} for n in nominated for k in range(12)]
    for _ in range(3):
        sheriff, don, m1, m2 = data.draw(st.permutations(SEATS), label="roles")[:4]
        found.append({"type": "roles", "sheriff": sheriff, "don": don, "mafia": [m1, m2]})
    # Judge's points: two seats over the card's steps and beyond, and values off them.
    for n in data.draw(st.lists(st.sampled_from(SEATS), min_size=2, max_size=2,
                                unique=True), label="extra seats"):
        found += [{"type": "extra", "seat": n, "hundredths": h} for h in range(0, 105, 5)]
    return found


def check(p: Protocol, data: st.DataObject) -> Mapping[str, Any]:
    """Every candidate is accepted exactly when the view offers it; the view's
    ``allowed``."""
    shown = view(p)
    allowed: Mapping[str, Any] = shown["allowed"]  # type: ignore[assignment]
    json.dumps(shown)
    for command in candidates(p, data):
        outcome = apply(p, command)
        accepted = not isinstance(outcome, Refusal)
        if command["type"] == "roles" and allowed["roles"]:
            # Roles may be set now; four seats may still be refused for what they'd do.
            assert accepted or outcome.text != ROLES_CLOSED, (command, outcome)  # type: ignore[union-attr]
            continue
        assert accepted == offered(allowed, command), (command, outcome, allowed)
    _check_best_move(p, shown, allowed)
    _check_extras(p, allowed)
    return allowed


def _check_best_move(p: Protocol, shown: Mapping[str, Any], allowed: Mapping[str, Any]) -> None:
    """Who names the best move, and how many more numbers he may name, one by one."""
    best = allowed["best_move"]
    open_ = best["seats"] or best["end"] or best["hint"]
    assert best["by"] == (shown["best_move"]["first_killed"] if open_ else None)
    left, on = 0, p
    while seats := [n for n in SEATS
                    if not isinstance(apply(on, {"type": "best_move", "seat": n}), Refusal)]:
        outcome = apply(on, {"type": "best_move", "seat": seats[-1]})
        assert isinstance(outcome, Protocol), outcome
        left, on = left + 1, outcome
    assert best["left"] == left


def _check_extras(p: Protocol, allowed: Mapping[str, Any]) -> None:
    """Each seat's values are the card's steps the protocol accepts; the first one it
    refuses names the rule that stops them there; a value off the steps is accepted
    exactly when the steps around it are (the rules are bounds)."""
    for n in SEATS:
        extra = allowed["extra"][str(n)]
        above = [h for h in range(0, 105, 5) if h not in extra["values"]]
        first = apply(p, {"type": "extra", "seat": n, "hundredths": above[0]}) if above else None
        assert isinstance(first, Refusal | None)
        assert extra["rule"] == (first.rule if first is not None else None)
    n = 1 + len(p.events) % 10
    values = allowed["extra"][str(n)]["values"]
    for h in range(1, 100, 7):
        inside = h - h % 5 in values and h - h % 5 + 5 in values
        outcome = apply(p, {"type": "extra", "seat": n, "hundredths": h})
        if inside:
            assert not isinstance(outcome, Refusal), (h, outcome)


# The walk's kinds: the game's own first (so that it gets on: days, nights, an end),
# then what comes after it or beside it; "any" is a command of any kind at all.
PLAY = ("roles", "foul", "nominate", "vote", "vote_out", "shoot", "don_check",
        "sheriff_check", "end_night")
BESIDE = ("best_move", "best_move_end", "best_move_hint", "result", "disqualify",
          "undisqualify", "penalty", "unpenalty", "extra", "undo", "any")


def _offers(allowed: Mapping[str, Any], kind: str) -> Sequence[Command]:
    """The commands of ``kind`` the view offers (a few of them, for the walk)."""
    if kind == "roles":
        if not allowed["roles"]:
            return []
        return [ROLES, {"type": "roles", "sheriff": 5, "don": 6, "mafia": [7, 8]}]
    if kind in ("foul", "disqualify", "undisqualify"):
        return [{"type": kind, "seat": n} for n in allowed[kind]]
    if kind == "nominate":
        return [{"type": kind, "seat": n, "by": int(by)}
                for by, targets in allowed["nominate"].items() for n in targets]
    if kind == "vote":
        vote = allowed["vote"]
        if vote is None:
            return []
        seats, most = vote["seats"], vote["most"]
        return [{"type": kind, "votes": {str(seats[0]): most}},
                {"type": kind, "votes": {str(n): most // len(seats) for n in seats}}]
    if kind == "vote_out":
        out = allowed["vote_out"]
        if out is None:
            return []
        return [{"type": kind, "seats": [n]} for n in out["seats"]] + (
            [{"type": kind, "seats": []}] if out["nobody"] else [])
    if kind == "shoot":
        shoot = allowed["shoot"]
        return [{"type": kind, "seat": n} for n in shoot["seats"]] + (
            [{"type": kind, "seat": None}] if shoot["miss"] else [])
    if kind in ("don_check", "sheriff_check"):
        return [{"type": kind, "seat": int(n)} for n in allowed[kind]]
    if kind in ("end_night", "undo"):
        return [{"type": kind}] if allowed[kind] else []
    best = allowed["best_move"]
    if kind == "best_move":
        return [{"type": kind, "seat": n} for n in best["seats"]]
    if kind in ("best_move_end", "best_move_hint"):
        return [{"type": kind}] if best[kind.removeprefix("best_move_")] else []
    if kind == "result":
        return [{"type": kind, "result": r} for r in allowed["result"]]
    if kind in ("penalty", "unpenalty"):
        return [{"type": kind, "seat": int(n), "rule": r}
                for n, rules in allowed[kind].items() for r in rules]
    assert kind == "extra"
    return [{"type": kind, "seat": int(n), "hundredths": h}
            for n, extra in allowed["extra"].items() for h in extra["values"] if h]


def _next(p: Protocol, allowed: Mapping[str, Any], data: st.DataObject) -> tuple[str, Command]:
    """The walk's next command: mostly one the view offers (a kind that has offers
    drawn, the game's own three times in four), now and then any command at all."""
    offers = {kind: found for kind in (*PLAY, *BESIDE[:-1])
              if (found := _offers(allowed, kind))}
    play = [kind for kind in PLAY if kind in offers]
    beside = [kind for kind in BESIDE if kind in offers or kind == "any"]
    if p.roles_set and "roles" in play:
        play.remove("roles")  # set once, and changed now and then among "any"
    if "result" in beside and view(p)["over"] is None and data.draw(
            st.integers(0, 9), label="end early?"):
        beside.remove("result")  # mostly once the events end the game
    pool = play if play and data.draw(st.integers(0, 3), label="play?") else beside
    kind = data.draw(st.sampled_from(pool), label="kind")
    if kind == "any":
        return kind, data.draw(COMMANDS, label="any command")
    return kind, data.draw(st.sampled_from(offers[kind]), label="command")


# Each example is a whole game, checked at every state, and a failure names the command
# and the state: no shrinking (it would replay games for minutes).
WALK = settings(deadline=None, database=None, phases=(Phase.explicit, Phase.generate),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(WALK, max_examples=8)
@given(st.data())
def test_the_view_offers_exactly_what_the_protocol_accepts(data: st.DataObject) -> None:
    """A random game through the protocol; at every state the view's offers and the
    protocol's answers agree."""
    p = Protocol.new()
    for _ in range(data.draw(st.integers(10, 30), label="steps")):
        kind, command = _next(p, check(p, data), data)
        outcome = apply(p, command)
        if isinstance(outcome, Refusal):
            assert kind in ("any", "roles"), (command, outcome)
            continue
        p = outcome
    event(f"{sum(e.kind == 'end_night' for e in p.events)} nights, result {p.result}")
    check(p, data)


# A whole game the red team wins by the events (the don and both mafia voted out), with
# its best move, result, judge's points and penalties: every state of it checked.
WON: tuple[Command, ...] = (
    ROLES,
    {"type": "foul", "seat": 6},
    {"type": "nominate", "seat": 2, "by": 1},
    {"type": "nominate", "seat": 7, "by": 2},
    {"type": "vote", "votes": {"2": 3, "7": 3}},
    {"type": "vote", "votes": {"2": 6, "7": 4}},
    {"type": "vote_out", "seats": [2]},
    {"type": "shoot", "seat": 5},
    {"type": "sheriff_check", "seat": 3},
    {"type": "end_night"},
    {"type": "best_move", "seat": 3},
    {"type": "best_move", "seat": 4},
    {"type": "nominate", "seat": 3, "by": 1},
    {"type": "vote_out", "seats": [3]},
    {"type": "shoot", "seat": None},
    {"type": "end_night"},
    {"type": "nominate", "seat": 4, "by": 1},
    {"type": "vote_out", "seats": [4]},
    {"type": "result", "result": "red"},
    {"type": "extra", "seat": 1, "hundredths": 70},
    {"type": "extra", "seat": 4, "hundredths": 30},
    {"type": "penalty", "seat": 3, "rule": "8.5.4"},
    {"type": "result", "result": "red"},
)


@settings(WALK, max_examples=2)
@given(st.data())
def test_a_won_game_offers_what_the_protocol_accepts_at_every_step(
    data: st.DataObject,
) -> None:
    p = Protocol.new()
    for command in WON:
        check(p, data)
        outcome = apply(p, command)
        assert isinstance(outcome, Protocol), (command, outcome)
        p = outcome
    check(p, data)
    allowed: Mapping[str, Any] = view(p)["allowed"]  # type: ignore[assignment]
    assert allowed["result"] == ["red"] and not allowed["undo"] and not allowed["roles"]
    assert allowed["best_move"] == {"by": 5, "seats": [1, 2, 6, 7, 8, 9, 10], "left": 1,
                                    "end": True, "hint": True}
    # 0.7 and 0.3 given: the rest of 8.4.2's 1.0 is gone, but for seat 5, whose points
    # up to his best move's 0.25 would not count (8.4.6, D4).
    extra = allowed["extra"]
    assert extra["1"] == {"values": list(range(0, 75, 5)), "rule": "8.4.3"}
    assert extra["4"] == {"values": list(range(0, 35, 5)), "rule": "8.4.2"}
    assert extra["5"] == {"values": list(range(0, 30, 5)), "rule": "8.4.2"}
    assert extra["6"] == {"values": [0], "rule": "8.4.2"}
    assert allowed["penalty"]["2"] == ["8.5.4"] and allowed["unpenalty"] == {"3": ["8.5.4"]}
