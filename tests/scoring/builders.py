"""Small builders for games and tournaments in tests.

The default table: seats 1-6 civilians, 7 the sheriff, 8-9 mafia, 10 the don, players
``P1`` … ``P10``; so the red team is seats 1-7 and the black team seats 8-10.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from scoring.model import Game, Result, Role, Seat, Tournament

C, S, M, D = Role.CIVILIAN, Role.SHERIFF, Role.MAFIA, Role.DON
DEFAULT_ROLES: tuple[Role, ...] = (C, C, C, C, C, C, S, M, M, D)
RED_SEATS = (1, 2, 3, 4, 5, 6, 7)
BLACK_SEATS = (8, 9, 10)


def names(prefix: str = "P") -> tuple[str, ...]:
    return tuple(f"{prefix}{n}" for n in range(1, 11))


def game(
    result: str = "red",
    *,
    id: str = "G1",
    players: Sequence[str] | None = None,
    roles: Sequence[Role | str] = DEFAULT_ROLES,
    day1_voted_out: Any = 0,
    first_killed: Any = None,
    best_move: Iterable[Any] = (),
    best_move_hint: bool = False,
    disqualified: Iterable[Any] = (),
    judge: Mapping[Any, str | Fraction | Any] | None = None,
    approved: Iterable[Any] = (),
    penalties: Mapping[Any, Sequence[str]] | None = None,
) -> Game:
    """A ``Game``; judge's points as decimal strings (``{3: "0.4"}``) or Fractions."""
    seated = tuple(players) if players is not None else names()
    return Game(
        id=id,
        result=Result(result) if result in {"red", "black", "draw"} else result,  # type: ignore[arg-type]
        seats=tuple(
            Seat(player, Role(role) if role in {r.value for r in Role} else role)  # type: ignore[arg-type]
            for player, role in zip(seated, roles, strict=False)
        ),
        day1_voted_out=day1_voted_out,
        first_killed=first_killed,
        best_move=tuple(best_move),
        best_move_hint=best_move_hint,
        disqualified=tuple(disqualified),
        judge_extras={
            seat: Fraction(value) if isinstance(value, str) else value
            for seat, value in (judge or {}).items()
        },
        chief_approved=frozenset(approved),
        penalties={seat: tuple(rules) for seat, rules in (penalties or {}).items()},
    )


def tournament(*games: Game, distance: int = 10, lot: Sequence[str] = ()) -> Tournament:
    return Tournament(distance=distance, games=tuple(games), lot=tuple(lot))


def game_json(result: str = "red", **fields: Any) -> dict[str, Any]:
    """A game in the contract's JSON form (the default table), with extra fields."""
    data: dict[str, Any] = {
        "id": fields.pop("id", "G1"),
        "result": result,
        "seats": [
            {"player": player, "role": role.value}
            for player, role in zip(fields.pop("players", names()), DEFAULT_ROLES, strict=True)
        ],
    }
    data.update(fields)
    return data


def tournament_json(*games: dict[str, Any], distance: int = 10, **fields: Any) -> dict[str, Any]:
    return {"distance": distance, "games": list(games), **fields}


def rules_of(problems: Iterable[Any]) -> list[str]:
    return [problem.rule for problem in problems]
