"""The next game of a club evening: who plays and where, from who is present and what the
evening has played so far (docs/club.md, "The evening").

An evening has no distance and no plan made in advance: people come late and leave early,
so each game is suggested when the host asks for it, from the players present now.

* **Who plays**: ``floor(n / 10)`` tables (at most ``tables``) of ten. Those with the
  fewest games so far play first; among equals, whoever sat out most recently (a
  latecomer counts as having sat out the last game), then the seed's lot.
* **Tables**: the chosen players split into tables with the fewest repeated meetings
  (``Σ meetings²`` over the pairs at a table; the tournament generator's measure of
  meetings, ``quality``), by a greedy start and pairwise swaps until none helps.
* **Seats**: at each table the cheapest assignment where a seat costs what one more
  game in it adds to the player's ``Σ games²`` over the seat numbers (as ``seats``
  does for a plan), so a player does not take the same seat again while he has others
  left.

Pure and deterministic: the same present players, history and seed give the same game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from random import Random

from .assignment import cheapest_assignment
from .model import SEATS, Round, SeatingError, Table

# A game played (or planned) earlier in the evening: its players in seat order.
Game = Sequence[str]


@dataclass(frozen=True, slots=True)
class History:
    """What the evening has played so far, round by round (a round: its games)."""

    rounds: tuple[tuple[tuple[str, ...], ...], ...] = ()

    @classmethod
    def of(cls, rounds: Sequence[Sequence[Game]]) -> History:
        return cls(tuple(tuple(tuple(game) for game in games) for games in rounds))

    def games_of(self) -> Counter[str]:
        return Counter(name for games in self.rounds for game in games for name in game)

    def meetings(self) -> Counter[frozenset[str]]:
        found: Counter[frozenset[str]] = Counter()
        for games in self.rounds:
            for game in games:
                found.update(frozenset(pair) for pair in combinations(game, 2))
        return found

    def seat_games(self) -> dict[str, list[int]]:
        """Name -> games in seats 1-10 (index seat - 1)."""
        found: dict[str, list[int]] = {}
        for games in self.rounds:
            for game in games:
                for seat, name in enumerate(game):
                    found.setdefault(name, [0] * SEATS)[seat] += 1
        return found

    def last_rest(self, name: str) -> int:
        """The latest round (from 1) ``name`` did not play; 0 if he played every one. A
        latecomer rested in them all."""
        for number in range(len(self.rounds), 0, -1):
            if all(name not in game for game in self.rounds[number - 1]):
                return number
        return 0


def tables_for(present: int, tables: int | None = None) -> int:
    """Tables of ten that ``present`` players fill, at most ``tables``."""
    fit = present // SEATS
    return fit if tables is None else min(fit, tables)


def suggest(
    present: Sequence[str], history: History, *, seed: int = 0, tables: int | None = None
) -> Round:
    """The next round of the evening (numbered after the history's rounds): its tables
    with the players in seat order, and who sits it out (in ``present``'s order).

    ``SeatingError`` when fewer than ten are present or a name is given twice."""
    if len(set(present)) != len(present):
        twice = sorted(name for name, n in Counter(present).items() if n > 1)
        raise SeatingError(f"a player is present twice: {', '.join(twice)}")
    count = tables_for(len(present), tables)
    if count < 1:
        raise SeatingError(
            f"{len(present)} players are present; a game needs {SEATS}: mark more as present"
        )
    rng = Random(seed)
    games = history.games_of()
    order = list(present)
    rng.shuffle(order)
    order.sort(key=lambda name: (games[name], -history.last_rest(name)))
    playing = order[: count * SEATS]
    groups = _split(playing, count, history.meetings(), rng)
    seats = history.seat_games()
    played = {name for group in groups for name in group}
    return Round(
        round=len(history.rounds) + 1,
        tables=tuple(
            Table(table=n, seats=_seat(group, seats)) for n, group in enumerate(groups, start=1)
        ),
        sitting_out=tuple(name for name in present if name not in played),
    )


def meeting_cost(groups: Sequence[Sequence[str]], meetings: Counter[frozenset[str]]) -> int:
    """``Σ (meetings + 1)² - 1`` over the pairs sharing a table: what the game adds to the
    evening's ``Σ meetings²``."""
    return sum(
        2 * meetings[frozenset(pair)] + 1 for group in groups for pair in combinations(group, 2)
    )


def _split(
    playing: Sequence[str], count: int, meetings: Counter[frozenset[str]], rng: Random
) -> list[list[str]]:
    """The players into ``count`` tables of ten, few repeated meetings: greedy (each
    player to the open table he met least), then swaps of two players of two tables
    while one lowers the cost."""
    groups: list[list[str]] = [[] for _ in range(count)]
    for name in playing:
        open_ = [g for g in groups if len(g) < SEATS]
        best = min(open_, key=lambda g: sum(meetings[frozenset((name, o))] for o in g))
        best.append(name)
    if count < 2 or not meetings:
        return groups

    def cost(name: str, group: Sequence[str], without: str) -> int:
        return sum(meetings[frozenset((name, o))] for o in group if o != without)

    improved = True
    while improved:
        improved = False
        pairs = [(a, b) for a in range(count) for b in range(a + 1, count)]
        rng.shuffle(pairs)
        for a, b in pairs:
            for i, x in enumerate(groups[a]):
                for j, y in enumerate(groups[b]):
                    now = cost(x, groups[a], x) + cost(y, groups[b], y)
                    swapped = cost(x, groups[b], y) + cost(y, groups[a], x)
                    if swapped < now:
                        groups[a][i], groups[b][j] = y, x
                        x = y
                        improved = True
    return groups


def _seat(group: Sequence[str], seats: dict[str, list[int]]) -> tuple[str, ...]:
    """The table's players in seat order: the cheapest by each one's games per seat."""
    empty = [0] * SEATS
    cost = [[2 * seats.get(name, empty)[s] + 1 for s in range(SEATS)] for name in group]
    order = cheapest_assignment(cost)
    placed = [""] * SEATS
    for name, seat in zip(group, order, strict=True):
        placed[seat] = name
    return tuple(placed)


__all__ = ["History", "meeting_cost", "suggest", "tables_for"]
