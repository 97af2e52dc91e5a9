"""A stand-in for the game's protocol (/work/protocol-spec.md) until the protocol
branch's module is merged: the commands' shapes and a few of their rules, enough for
the live protocol's server to be built and tested. The merge replaces this file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scoring.model import SEAT_NUMBERS, Result, Role


@dataclass(frozen=True, slots=True)
class Refusal:
    rule: str
    text: str
    params: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Facts:
    result: Result | None
    first_killed: int | None
    day1_voted_out: int
    best_move: tuple[int, ...]
    best_move_hint: bool
    disqualified: tuple[int, ...]
    penalties: Mapping[int, tuple[str, ...]]
    extras: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class Protocol:
    roles: tuple[Role | None, ...] = (None,) * 10
    events: tuple[Mapping[str, Any], ...] = ()
    day: int = 1
    night: bool = False
    out: Mapping[int, str] = field(default_factory=dict)
    fouls: Mapping[int, int] = field(default_factory=dict)
    shot: tuple[int | None, ...] = ()  # per night
    day1: int = 0
    result: Result | None = None
    best_move: tuple[int, ...] = ()
    best_move_hint: bool = False
    extras: Mapping[int, int] = field(default_factory=dict)

    @classmethod
    def new(cls) -> Protocol:
        return cls()


def _game(text: str, **params: object) -> Refusal:
    return Refusal("game", text, params)


def _seat(value: object) -> int | None:
    return value if isinstance(value, int) and value in SEAT_NUMBERS else None


def apply(p: Protocol, command: Mapping[str, object]) -> Protocol | Refusal:
    kind = command.get("type")
    log = (*p.events, dict(command))
    if kind == "roles":
        mafia = command.get("mafia")
        seats = [command.get("sheriff"), command.get("don"),
                 *(mafia if isinstance(mafia, list) else [])]
        if len(seats) != 4 or any(_seat(s) is None for s in seats) or len(set(seats)) != 4:
            return _game("Four different seats: the sheriff, the don and two mafia.")
        roles = [Role.CIVILIAN] * 10
        for s, role in zip(seats, (Role.SHERIFF, Role.DON, Role.MAFIA, Role.MAFIA), strict=True):
            roles[int(s) - 1] = role  # type: ignore[call-overload,unused-ignore]
        return replace(p, roles=tuple(roles), events=log)
    if kind == "foul":
        seat = _seat(command.get("seat"))
        if seat is None or seat in p.out:
            return _game("No such seat in the game.")
        fouls = {**p.fouls, seat: p.fouls.get(seat, 0) + 1}
        out = {**p.out, seat: "fouls"} if fouls[seat] >= 4 else p.out
        return replace(p, fouls=fouls, out=out, events=log)
    if kind == "vote_out":
        listed = command.get("seats")
        voted: list[int] = [s for s in listed if _seat(s)] if isinstance(listed, list) else []
        if p.night or not isinstance(listed, list) or len(voted) != len(listed):
            return _game("Votes are taken by day.")
        out = {**p.out, **{int(s): "voted" for s in voted}}
        day1 = len(voted) if p.day == 1 else p.day1
        return replace(p, out=out, night=True, day1=day1, events=log)
    if kind == "shoot":
        if not p.night or len(p.shot) >= p.day:
            return _game("The mafia shoots at night, once.")
        target = command.get("seat")
        if target is not None and _seat(target) is None:
            return _game("No such seat in the game.")
        return replace(p, shot=(*p.shot, _seat(target)), events=log)
    if kind == "end_night":
        if not p.night or len(p.shot) < p.day:
            return _game("Record the shot first.")
        shot = p.shot[-1]
        out = {**p.out, shot: "shot"} if shot is not None else p.out
        return replace(p, night=False, day=p.day + 1, out=out, events=log)
    if kind == "best_move":
        seat = _seat(command.get("seat"))
        if seat is None or seat in p.best_move or len(p.best_move) >= 3:
            return Refusal("8.3.3", "A best move names up to three different seats.")
        return replace(p, best_move=(*p.best_move, seat), events=log)
    if kind == "result":
        try:
            result = Result(str(command.get("result")))
        except ValueError:
            return _game("Unknown result.")
        return replace(p, result=result, events=log)
    if kind == "extra":
        seat, value = _seat(command.get("seat")), command.get("hundredths")
        if seat is None or not isinstance(value, int) or not 0 <= value <= 100:
            return Refusal("8.4.1", "Judge's points are 0 to 1.")
        extras = {k: v for k, v in {**p.extras, seat: value}.items() if v}
        return replace(p, extras=extras, events=log)
    if kind in ("nominate", "vote", "best_move_end"):
        return replace(p, events=log)
    if kind == "undo":
        if not p.events:
            return _game("Nothing to undo.")
        if p.events[-1].get("type") == "best_move":
            return Refusal("8.3.3", "A best move is never changed or removed.")
        replayed = replay(list(p.events[:-1]))
        return replayed
    return _game("Unknown command.")


def replay(commands: Sequence[Mapping[str, object]]) -> Protocol | Refusal:
    p = Protocol.new()
    for command in commands:
        after = apply(p, command)
        if isinstance(after, Refusal):
            return after
        p = after
    return p


def facts(p: Protocol) -> Facts:
    first = p.shot[0] if p.shot else None
    return Facts(p.result, first, p.day1, p.best_move, p.best_move_hint,
                 tuple(s for s, why in p.out.items() if why == "disqualified"), {}, p.extras)


def view(p: Protocol) -> dict[str, Any]:
    return {
        "phase": {"kind": "night" if p.night else "day", "number": p.day, "step": "speeches"},
        "seats": [
            {"seat": n, "role": None if p.roles[n - 1] is None else str(p.roles[n - 1]),
             "alive": n not in p.out, "fouls": p.fouls.get(n, 0), "nominated": False,
             "out": p.out.get(n)}
            for n in SEAT_NUMBERS
        ],
        "checks": {"don": None, "sheriff": None},
        "best_move": {"seats": list(p.best_move)},
        "over": None,
        "result": None if p.result is None else str(p.result),
        "extras": {str(k): v for k, v in p.extras.items()},
        "penalties": {},
        "dq": [],
    }
